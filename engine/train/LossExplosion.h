#pragma once
// TRAIN.KILL_LOSS_EXPLOSION_FACTOR as PySlowFast's TrainMeter.update_stats checks it: the losses
// of the epoch so far in a window LOG_PERIOD long (its ScalarMeter, reset every epoch); once the
// window holds more than 6, a loss above FACTOR x the mean of the 5 before it ends the run. (So
// with LOG_PERIOD 6 or less the check never fires, as in PySlowFast.) Torch-free.
#include <cstdio>
#include <deque>
#include <optional>
#include <string>

namespace amp::train {

class LossExplosionGuard {
 public:
  LossExplosionGuard(double factor, int logPeriod)
      : factor_(factor), period_(logPeriod > 0 ? logPeriod : 1) {}

  void startEpoch() { window_.clear(); }

  /// Adds this step's (rank-averaged, finite) loss; returns the reason to stop when it exploded.
  std::optional<std::string> add(double loss) {
    window_.push_back(loss);
    if (static_cast<int>(window_.size()) > period_) window_.pop_front();
    if (!(factor_ > 0) || window_.size() <= 6) return std::nullopt;
    double previous = 0;
    for (std::size_t i = 2; i <= 6; ++i) previous += window_[window_.size() - i];
    if (!(loss > factor_ * previous / 5.0)) return std::nullopt;
    char why[200];
    std::snprintf(why, sizeof why,
                  "loss exploded: %.6g > TRAIN.KILL_LOSS_EXPLOSION_FACTOR %g x %.6g (the mean of "
                  "the 5 losses before it)",
                  loss, factor_, previous / 5.0);
    return std::string(why);
  }

 private:
  double factor_;
  int period_;
  std::deque<double> window_;
};

}  // namespace amp::train
