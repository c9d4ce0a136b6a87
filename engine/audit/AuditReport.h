#pragma once
// What the precision audit found (audit/PrecisionAudit.h runs it): per layer, in execution order,
// the dtype its forward ran in under autocast and why, the activation's headroom to float16's
// largest value, the bfloat16 forward's error against float32 on the same batch, the gradient's
// abs-max, the share of it float16 would flush to zero or to subnormals at a loss scale, and the
// loss scale at which it would overflow; the summary and recommendation over all layers.
// Torch-free, in the core library: the studio reads a report back from JSON (audit/AuditJson.h)
// without LibTorch.
//
//   audit::PrecisionAuditReport report;  // filled by auditPrecision or auditReportFromJson
//   audit::summarizeAudit(report.layers, report.summary);
//   std::cout << report.summary.recommendation;
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace amp::audit {

constexpr double kFp16Max = 65504.0;  ///< largest finite float16
constexpr double kFp16MinSubnormal =
    5.9604644775390625e-08;                         ///< 2^-24: below it float16 holds zero
constexpr double kFp16MinNormal = 6.103515625e-05;  ///< 2^-14: below it float16 is subnormal

/// One layer: a module whose parameters an operation used (named by its module path), or a
/// parameter-free operation autocast has an opinion on (softmax, pooling, matmul ...), named
/// "<op> (after <the last module before it>)". A second row of the same name in one forward
/// gets "#2".
struct LayerAudit {
  int index = 0;  ///< execution order in the forward pass
  std::string name;
  std::string op;      ///< the ATen operation, e.g. "conv3d", "batch_norm", "linear", "softmax"
  std::string module;  ///< module path ("" for a parameter-free operation)
  std::string
      dtype;  ///< the dtype of its output in the audited precision: float32, bfloat16, float16
  std::string why;        ///< which autocast list (or none) decided that dtype
  double act_absmax = 0;  ///< largest |output| over the batches
  /// log2(65504 / act_absmax): how many doublings the activation could take before float16
  /// overflows (negative: it already does). +inf for an all-zero output.
  double headroom_log2 = std::numeric_limits<double>::infinity();
  /// ||y_bf16 - y_fp32|| / ||y_fp32||: the bfloat16 autocast forward against the float32 forward
  /// of the same batch and weights (errors of earlier layers included), averaged over the
  /// compared batches. NaN: not compared.
  double bf16_rel_error = std::numeric_limits<double>::quiet_NaN();
  bool has_grad = false;  ///< a gradient reached its output or its parameters
  /// Largest |gradient| over the gradient of its output and of its parameters, unscaled.
  double grad_absmax = 0;
  std::int64_t grad_elements = 0;  ///< gradient elements seen (all batches)
  std::int64_t grad_nonzero = 0;   ///< of which not exactly zero
  /// Of the nonzero gradient elements, the share with |g x s| < 2^-24 (float16 stores 0) and
  /// < 2^-14 (float16 stores a subnormal or 0) at the report scale s.
  double fp16_underflow_fraction = 0;
  double fp16_subnormal_fraction = 0;
  /// 65504 / grad_absmax: the loss scale at which this layer's gradient overflows float16.
  double overflow_scale = std::numeric_limits<double>::infinity();
  bool nonfinite_grad = false;  ///< inf/NaN already in the audited run's gradient
};

struct AuditSummary {
  std::string precision;  ///< what the training batches ran in: fp32, bf16 or fp16
  std::string device;     ///< "cpu" or "cuda:0"
  int batches = 0;
  int batch_size = 0;
  double report_scale = 65536;  ///< the loss scale s of the underflow fractions
  double applied_scale = 1;     ///< the loss scale the audited backward used (1 without a scaler)
  /// Every layer's gradient stays below 65504 up to safe_scale_max (its smallest overflow
  /// scale, limited by overflow_layer) and every layer's largest gradient reaches float16's
  /// normal range from safe_scale_min (the largest 2^-14 / grad_absmax, limited by
  /// underflow_layer).
  double safe_scale_min = 0, safe_scale_max = std::numeric_limits<double>::infinity();
  std::string overflow_layer, underflow_layer;
  bool safe_range_exists = true;  ///< safe_scale_min <= safe_scale_max
  int layers_overflowing = 0;     ///< layers whose gradient overflows at the report scale
  int layers_underflowing = 0;    ///< layers with over 1% of their gradient flushed to zero there
  double min_headroom_log2 = std::numeric_limits<double>::infinity();
  std::string min_headroom_layer;
  double max_bf16_rel_error = std::numeric_limits<double>::quiet_NaN();
  std::string max_bf16_error_layer;
  std::string nonfinite_layer;  ///< first layer in backward order whose gradient held inf/NaN
  double suggested_init_scale =
      65536;  ///< largest power of two not above safe_scale_max (2^0..2^24)
  bool bf16_safer = false;
  std::string recommendation;  ///< one line: AMP.INIT_SCALE, bf16 or fp16, the LR rule of thumb
};

struct PrecisionAuditReport {
  std::vector<LayerAudit> layers;
  AuditSummary summary;
  std::vector<std::string> notes;  ///< checkpoint notes, keys the audit changed
  std::vector<double> losses;      ///< the training batches' losses
  int skipped_steps = 0;
  double audit_seconds = 0;                ///< the audited batches (data loaded before)
  std::vector<double> plain_step_seconds;  ///< time_plain_steps: one per batch
};

/// The summary of audited layers at the report scale (fills everything but precision, device,
/// batches, batch_size and applied_scale, which it keeps).
void summarizeAudit(const std::vector<LayerAudit>& layers, AuditSummary& summary);

/// "2^16" for powers of two, else a short decimal.
std::string scaleText(double scale);

}  // namespace amp::audit
