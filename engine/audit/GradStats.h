#pragma once
// How much of a gradient float16 would lose at a loss scale: its abs-max and the elements that
// would flush to zero or to subnormals once scaled, counted in one pass (the precision audit's
// per-layer gradient columns). Internal to the engine (LibTorch types).
//
//   audit::GradStats s = audit::gradStats(p.grad(), /*appliedScale=*/1024, /*reportScale=*/65536);
//   double lost = double(s.zero16) / double(s.nonzero);  // the share float16 flushes to zero
#include <torch/torch.h>

#include <cstdint>

namespace amp::audit {

/// Gradient statistics of some tensors, unscaled, at a report scale.
struct GradStats {
  double absmax = 0;
  std::int64_t elements = 0, nonzero = 0;
  std::int64_t zero16 = 0;       ///< nonzero elements with |g x s| < 2^-24
  std::int64_t subnormal16 = 0;  ///< nonzero elements with |g x s| < 2^-14 (zero16 included)
  bool nonfinite = false;
  void add(const GradStats& o);
};
/// `grad` was computed at loss scale `appliedScale`; the fractions are for `reportScale`.
GradStats gradStats(const torch::Tensor& grad, double appliedScale, double reportScale);

}  // namespace amp::audit
