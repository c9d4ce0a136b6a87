#pragma once
// What the config's precision keys mean on the device NUM_GPUS picks (ARCHITECTURE.md's
// precision policy), shared by the trainer, the audits and the benchmarks. Torch-free.
//
//   const auto policy = train::PrecisionPolicy::forced(cfg, "amp");  // fp16 + scaler on CUDA
//   precision::AutocastGuard guard(policy.mixed, policy.autocastDevice(), policy.autocastType());
#include <string>

#include "amp/AutocastGuard.h"

namespace amp::config {
class Config;
}

namespace amp::train {

/// What TRAIN.MIXED_PRECISION, AMP.DTYPE and AMP.SCALER mean on the device NUM_GPUS picks:
/// auto is float16 + scaler on CUDA (PySlowFast's MIXED_PRECISION) and bfloat16 on the CPU.
struct PrecisionPolicy {
  bool cuda = false;
  bool mixed = false;
  bool fp16 = false;
  bool scaler = false;
  std::string name = "fp32";  ///< "fp32", "fp16" or "bf16"

  static PrecisionPolicy fromConfig(const config::Config& c);
  /// The same config forced to one precision ("fp32", "bf16", "fp16" or "amp"); the scaler follows
  /// AMP.SCALER. Throws std::invalid_argument naming the key for impossible requests.
  static PrecisionPolicy forced(const config::Config& c, const std::string& precision);
  precision::AutocastDevice autocastDevice() const {
    return cuda ? precision::AutocastDevice::CUDA : precision::AutocastDevice::CPU;
  }
  precision::AutocastType autocastType() const {
    return fp16 ? precision::AutocastType::Float16 : precision::AutocastType::BFloat16;
  }
};

}  // namespace amp::train
