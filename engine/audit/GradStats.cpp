#include "audit/GradStats.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <mutex>

#include "audit/AuditReport.h"

namespace amp::audit {

void GradStats::add(const GradStats& o) {
  if (!(absmax >= o.absmax)) absmax = o.absmax;  // NaN wins
  elements += o.elements;
  nonzero += o.nonzero;
  zero16 += o.zero16;
  subnormal16 += o.subnormal16;
  nonfinite = nonfinite || o.nonfinite;
}

namespace {

// One pass over a CPU tensor's values (the tensor ops below take a dozen passes and as many
// temporaries: on SlowFast they cost more than the backward itself).
template <typename T>
void countCpu(const T* v, std::int64_t n, double raw0, double raw1, GradStats& s) {
  const auto t0 = static_cast<float>(raw0), t1 = static_cast<float>(raw1);
  std::mutex m;
  float absmax = 0;
  bool nan = false;
  at::parallel_for(0, n, 1 << 15, [&](std::int64_t begin, std::int64_t end) {
    float mx = 0;
    bool sawNan = false;
    std::int64_t nonzero = 0, zero16 = 0, sub16 = 0;
    for (std::int64_t i = begin; i < end; ++i) {
      const float a = std::fabs(static_cast<float>(v[i]));
      if (a > mx)
        mx = a;
      else if (std::isnan(a))
        sawNan = true;
      if (a > 0) {
        ++nonzero;
        zero16 += a < t0;
        sub16 += a < t1;
      }
    }
    std::lock_guard<std::mutex> lock(m);
    absmax = std::max(absmax, mx);
    nan = nan || sawNan;
    s.nonzero += nonzero;
    s.zero16 += zero16;
    s.subnormal16 += sub16;
  });
  s.absmax = nan ? std::numeric_limits<double>::quiet_NaN() : absmax;
  s.nonfinite = nan || std::isinf(absmax);
}

}  // namespace

GradStats gradStats(const torch::Tensor& grad, double appliedScale, double reportScale) {
  GradStats s;
  if (!grad.defined() || grad.numel() == 0) return s;
  torch::NoGradGuard noGrad;
  at::DisableRecordFunctionGuard notObserved;
  const double toRawCpu = appliedScale / reportScale;
  if (grad.is_cpu() && !grad.is_sparse()) {
    const auto c = grad.detach().contiguous();
    const auto type = c.scalar_type();
    if (type == torch::kFloat || type == torch::kBFloat16 || type == torch::kHalf) {
      const double raw0 = kFp16MinSubnormal * toRawCpu, raw1 = kFp16MinNormal * toRawCpu;
      if (type == torch::kFloat)
        countCpu(c.data_ptr<float>(), c.numel(), raw0, raw1, s);
      else if (type == torch::kBFloat16)
        countCpu(c.data_ptr<c10::BFloat16>(), c.numel(), raw0, raw1, s);
      else
        countCpu(c.data_ptr<c10::Half>(), c.numel(), raw0, raw1, s);
      s.absmax /= appliedScale;
      s.elements = c.numel();
      return s;
    }
  }
  // |g / applied| x report < t  <=>  |g| < t x applied / report: the thresholds move, the gradient
  // is read as it is (float32 holds every float16 and bfloat16 value exactly).
  const auto a = grad.detach().abs().to(torch::kFloat);
  const auto nz = a > 0;
  const double toRaw = appliedScale / reportScale;
  const auto v = torch::stack({a.max().to(torch::kDouble), nz.sum().to(torch::kDouble),
                               (nz & (a < kFp16MinSubnormal * toRaw)).sum().to(torch::kDouble),
                               (nz & (a < kFp16MinNormal * toRaw)).sum().to(torch::kDouble)})
                     .cpu();
  const double* p = v.data_ptr<double>();
  s.absmax = p[0] / appliedScale;
  s.elements = grad.numel();
  s.nonzero = static_cast<std::int64_t>(p[1]);
  s.zero16 = static_cast<std::int64_t>(p[2]);
  s.subnormal16 = static_cast<std::int64_t>(p[3]);
  s.nonfinite = !std::isfinite(p[0]);  // max() propagates NaN
  return s;
}

}  // namespace amp::audit
