#pragma once
// The precision audit: a config's model trained for a few batches with every layer observed,
// to see where mixed precision runs out (ampstudio-cli audit precision, docs/precision-audit.md);
// what it reports is audit/AuditReport.h. Torch-free header of the engine library.
//
//   audit::PrecisionAuditReport report;
//   std::string error;
//   if (!audit::auditPrecision(cfg, {}, report, &error)) std::cerr << error;
#include <string>

#include "audit/AuditReport.h"

namespace amp::config {
class Config;
}

namespace amp::audit {

struct PrecisionAuditOptions {
  int batches = 4;
  int batch_size = 0;             ///< 0: TRAIN.BATCH_SIZE
  std::string checkpoint;         ///< weights (and a running scaler's loss scale) to start from
  std::string precision = "amp";  ///< amp, bf16, fp16 or fp32 (PrecisionPolicy::forced)
  double report_scale = 0;        ///< 0: the scaler's current scale, or AMP.INIT_SCALE without one
  bool synthetic = false;         ///< random clips instead of the training set
  /// The first N batches also run a float32 and a bfloat16 forward for bf16_rel_error (0: none).
  /// One is the default: on the CPU the float32 forward costs nearly a bfloat16 training step.
  int compare_batches = 1;
  int threads = 0;  ///< CPU threads (0: as training)
  /// Benchmark: time the audit against plain training steps (the trainer's TrainStep) of the
  /// same model on the same batches, after one untimed forward + backward.
  bool time_plain_steps = false;
};

/// Builds the config's model (and loads `checkpoint`), trains options.batches batches of its
/// training set with every layer observed and fills `report`. MODEL.ACT_CHECKPOINT is turned
/// off (recomputation would observe layers twice; the numbers do not change). False with
/// `error` naming the key, file or device problem.
[[nodiscard]] bool auditPrecision(const config::Config& cfg, const PrecisionAuditOptions& options,
                                  PrecisionAuditReport& report, std::string* error);

}  // namespace amp::audit
