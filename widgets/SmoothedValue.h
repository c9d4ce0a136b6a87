#pragma once
// The smoothing of the charts' strong lines.
#include <algorithm>
#include <cmath>
#include <cstddef>

namespace amp::widgets {

/// Exponential moving average with TensorBoard's bias correction (the first values are not
/// pulled towards 0). weight 0 returns the raw values.
///
/// Time-weighted: add(v, intervals) weighs the past by weight^intervals, where `intervals` is the
/// distance from the previous point in reference intervals (e.g. steps / the densest run's median
/// spacing). A run that logs every 10th step then decays as much per step as one that logs every
/// step, so runs of unequal step counts are smoothed over the same span of the X axis. With
/// every interval 1 it is the plain average; the bias correction divides by 1 - the product of
/// the decays (1 - weight^n when each is weight).
///
///   SmoothedValue smooth(0.9);
///   for (double loss : losses) drawn.push_back(smooth.add(loss));
///   SmoothedValue timed(0.9);  // points at steps 0, 10, 20 of a run beside one of every step
///   for (std::size_t i = 0; i < n; ++i) drawn.push_back(timed.add(y[i], i ? (x[i] - x[i-1]) : 1));
class SmoothedValue {
 public:
  explicit SmoothedValue(double weight = 0.9) : weight_(weight) {}
  double add(double v) { return add(v, 1.0); }
  double add(double v, double intervals) {
    const double decay = intervals == 1.0 ? weight_ : std::pow(weight_, std::max(0.0, intervals));
    value_ = decay * value_ + (1 - decay) * v;
    kept_ *= decay;
    const double debias = 1 - kept_;
    return debias > 0 ? value_ / debias : v;
  }

 private:
  double weight_;
  double value_ = 0;
  double kept_ = 1;  ///< the product of the decays so far: what the start value of 0 still weighs
};

}  // namespace amp::widgets
