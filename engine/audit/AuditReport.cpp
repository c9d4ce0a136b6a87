#include "audit/AuditReport.h"

#include <cmath>
#include <cstdio>

namespace amp::audit {

std::string scaleText(double scale) {
  if (std::isinf(scale)) return scale > 0 ? "inf" : "-inf";
  if (std::isnan(scale)) return "n/a";
  if (scale > 0) {
    int e = 0;
    if (std::frexp(scale, &e) == 0.5) return "2^" + std::to_string(e - 1);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", scale);
  return buf;
}

void summarizeAudit(const std::vector<LayerAudit>& layers, AuditSummary& s) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  s.safe_scale_min = 0;
  s.safe_scale_max = kInf;
  s.overflow_layer.clear();
  s.underflow_layer.clear();
  s.layers_overflowing = s.layers_underflowing = 0;
  s.min_headroom_log2 = kInf;
  s.min_headroom_layer.clear();
  s.max_bf16_rel_error = std::numeric_limits<double>::quiet_NaN();
  s.max_bf16_error_layer.clear();
  for (const auto& l : layers) {
    if (l.headroom_log2 < s.min_headroom_log2) {
      s.min_headroom_log2 = l.headroom_log2;
      s.min_headroom_layer = l.name;
    }
    if (!std::isnan(l.bf16_rel_error) && !(l.bf16_rel_error <= s.max_bf16_rel_error)) {
      s.max_bf16_rel_error = l.bf16_rel_error;
      s.max_bf16_error_layer = l.name;
    }
    if (!l.has_grad || l.grad_absmax == 0) continue;
    const bool finite = std::isfinite(l.grad_absmax);
    const double over = finite ? kFp16Max / l.grad_absmax : 0.0;
    if (over < s.safe_scale_max) {
      s.safe_scale_max = over;
      s.overflow_layer = l.name;
    }
    const double under = finite ? kFp16MinNormal / l.grad_absmax : 0.0;
    if (under > s.safe_scale_min) {
      s.safe_scale_min = under;
      s.underflow_layer = l.name;
    }
    if (!finite || l.grad_absmax * s.report_scale > kFp16Max) ++s.layers_overflowing;
    if (l.fp16_underflow_fraction > 0.01) ++s.layers_underflowing;
  }
  s.safe_range_exists = s.safe_scale_min <= s.safe_scale_max && s.safe_scale_max > 0;
  if (std::isinf(s.safe_scale_max)) {
    s.suggested_init_scale = 65536.0;  // no gradient seen: PyTorch's default
  } else {
    const int e =
        s.safe_scale_max > 0 ? static_cast<int>(std::floor(std::log2(s.safe_scale_max))) : -24;
    s.suggested_init_scale = std::ldexp(1.0, std::max(-24, std::min(24, e)));
  }
  std::string fp16Trouble;
  if (!s.safe_range_exists)
    fp16Trouble = "no float16 loss scale keeps every layer safe (overflow from " +
                  scaleText(s.safe_scale_max) + " in " + s.overflow_layer +
                  ", total underflow below " + scaleText(s.safe_scale_min) + " in " +
                  s.underflow_layer + ")";
  else if (s.min_headroom_log2 < 1.0)
    fp16Trouble =
        s.min_headroom_layer + "'s activation is within a factor 2 of float16's 65504 (headroom " +
        (std::isfinite(s.min_headroom_log2) ? std::to_string(s.min_headroom_log2).substr(0, 5)
                                            : std::string("-inf")) +
        " bits), which no loss scale helps";
  s.bf16_safer = !fp16Trouble.empty();
  std::string r;
  if (std::isinf(s.safe_scale_max)) {
    r = "no gradient reached the audited layers: keep AMP.INIT_SCALE 65536";
  } else {
    r = "AMP.INIT_SCALE " + scaleText(s.suggested_init_scale) +
        " (the largest power of two not above " + scaleText(s.safe_scale_max) + ", where " +
        s.overflow_layer + " overflows)";
  }
  if (s.bf16_safer)
    r += "; bfloat16 is safer for this model: " + fp16Trouble;
  else if (!std::isinf(s.safe_scale_max))
    r += "; float16 with the scaler fits (every layer is safe from " + scaleText(s.safe_scale_min) +
         " to " + scaleText(s.safe_scale_max) + "), bfloat16 needs no scaler";
  if (!std::isnan(s.max_bf16_rel_error) && s.max_bf16_rel_error > 0.05)
    r += "; note bfloat16's error reaches " + std::to_string(s.max_bf16_rel_error).substr(0, 5) +
         " at " + s.max_bf16_error_layer;
  r += "; SOLVER.LR_SCALE 0.6 when turning mixed precision on is a rule of thumb, not a result of "
       "this audit";
  s.recommendation = r;
}

}  // namespace amp::audit
