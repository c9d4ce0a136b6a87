#pragma once
// PySlowFast's learning-rate schedule (slowfast/utils/lr_policy.py), evaluated at a fractional
// epoch, with the studio's SOLVER.LR_SCALE applied to every rate. Torch-free.
#include <string>
#include <vector>

namespace amp::config {
class Config;

class LrSchedule {
 public:
  /// Reads SOLVER.* (BASE_LR_SCALE_NUM_SHARDS multiplies the rates by NUM_SHARDS) and
  /// SOLVER.LR_SCALE.
  explicit LrSchedule(const config::Config& c);

  /// The rate at fractional epoch `e = epoch + iteration / iterations_per_epoch`.
  double at(double epoch) const;

 private:
  double policy(double epoch) const;  // without warmup and scale
  std::string policy_;
  double base_, end_, warmupStart_, warmupEpochs_, maxEpoch_, scale_;
  bool cosineAfterWarmup_;
  std::vector<double> steps_, lrs_;
};

}  // namespace amp::config
