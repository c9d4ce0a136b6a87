#include "config/LrSchedule.h"

#include <algorithm>

#include <cmath>

#include "config/Config.h"

namespace amp::config {

LrSchedule::LrSchedule(const config::Config& c)
    : policy_(c.getString("SOLVER.LR_POLICY")),
      base_(c.getFloat("SOLVER.BASE_LR")),
      end_(c.getFloat("SOLVER.COSINE_END_LR")),
      warmupStart_(c.getFloat("SOLVER.WARMUP_START_LR")),
      warmupEpochs_(c.getFloat("SOLVER.WARMUP_EPOCHS")),
      maxEpoch_(static_cast<double>(c.getInt("SOLVER.MAX_EPOCH"))),
      scale_(c.getFloat("SOLVER.LR_SCALE")),
      cosineAfterWarmup_(c.getBool("SOLVER.COSINE_AFTER_WARMUP")),
      steps_(c.getFloatList("SOLVER.STEPS")),
      lrs_(c.getFloatList("SOLVER.LRS")) {
  if (c.getBool("SOLVER.BASE_LR_SCALE_NUM_SHARDS")) {
    const double shards = static_cast<double>(c.getInt("NUM_SHARDS"));
    base_ *= shards;
    end_ *= shards;
    warmupStart_ *= shards;
  }
}

double LrSchedule::policy(double e) const {
  if (policy_ == "steps_with_relative_lrs") {
    // get_step_index: the index of the first of STEPS + [MAX_EPOCH] above e, minus one; before
    // STEPS[0] that is -1, which Python reads as LRS[-1] (the last rate), and the config check
    // makes sure every index a training epoch reaches exists.
    std::vector<double> steps = steps_;
    steps.push_back(maxEpoch_);
    long ind = static_cast<long>(steps.size()) - 2;  // e at or past MAX_EPOCH: the loop ran out
    for (size_t k = 0; k < steps.size(); ++k)
      if (e < steps[k]) {
        ind = static_cast<long>(k) - 1;
        break;
      }
    if (lrs_.empty()) return base_;
    const long n = static_cast<long>(lrs_.size());
    const long i = ind < 0 ? ind + n : ind;
    return lrs_[static_cast<size_t>(std::clamp(i, 0L, n - 1))] * base_;
  }
  const double offset = cosineAfterWarmup_ ? warmupEpochs_ : 0.0;
  return end_ + (base_ - end_) * (std::cos(M_PI * (e - offset) / (maxEpoch_ - offset)) + 1.0) * 0.5;
}

double LrSchedule::at(double e) const {
  double lr = policy(e);
  if (e <
      warmupEpochs_) {  // a straight line from WARMUP_START_LR to the policy at the end of warmup
    const double lrEnd = policy(warmupEpochs_);
    lr = warmupStart_ + e * (lrEnd - warmupStart_) / warmupEpochs_;
  }
  return lr * scale_;
}

}  // namespace amp::config
