#pragma once
// The smoothing of the charts' strong lines.
#include <cmath>
#include <cstddef>

namespace amp::widgets {

/// Exponential moving average with TensorBoard's bias correction (the first values are not
/// pulled towards 0). weight 0 returns the raw values.
///
///   SmoothedValue smooth(0.9);
///   for (double loss : losses) drawn.push_back(smooth.add(loss));
class SmoothedValue {
 public:
  explicit SmoothedValue(double weight = 0.9) : weight_(weight) {}
  double add(double v) {
    value_ = weight_ * value_ + (1 - weight_) * v;
    const double debias = 1 - std::pow(weight_, static_cast<double>(++count_));
    return debias > 0 ? value_ / debias : v;
  }

 private:
  double weight_;
  double value_ = 0;
  std::size_t count_ = 0;
};

}  // namespace amp::widgets
