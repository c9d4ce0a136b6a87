#pragma once
// What the trainer asks of a data-parallel job, in one room so the loop stays one step, one
// epoch, one evaluation: joining the job, refusing ranks with another config, rank 0's weights
// to everyone, the gradient reducer, averaging the per-iteration metrics and agreeing on stop
// and pause, and summing evaluation counts. With one process every call is a no-op that returns
// its input. Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "dist/DistEnv.h"

namespace amp::config {
class Config;
}
namespace amp::dist {
class Communicator;
class GradientReducer;
}  // namespace amp::dist

namespace amp::train {

class TrainStep;

class DataParallel {
 public:
  /// Joins the job described by `env` (nothing to join when its world is 1). Throws
  /// std::runtime_error when the layout does not fit the config or the rendezvous fails.
  DataParallel(const dist::DistEnv& env, const config::Config& c, const torch::Device& device);
  ~DataParallel();

  bool active() const { return comm_ != nullptr; }
  int rank() const { return env_.rank; }
  int worldSize() const { return env_.world_size; }
  bool isMain() const { return env_.rank == 0; }
  std::string backend() const;

  /// Every rank must run the same resolved config (SHARD_ID aside): refused by name otherwise.
  void checkSameConfig(const config::Config& c);
  /// After the model is built and any checkpoint loaded: sync batch norm when BN.NORM_TYPE asks
  /// for it, rank 0's parameters and buffers to all, the gradient reducer wired into `step`, and
  /// the check that every rank resumed at `step`.
  void attach(torch::nn::Module& net, TrainStep& stepper, std::int64_t globalStep);
  /// Multigrid phases: the batch norm of `net` becomes sync_batchnorm over groups of `devices`
  /// processes, or (any other `normType`) local again. Nothing with one process.
  void setBatchNormSync(torch::nn::Module& net, const std::string& normType, int devices);

  /// The stop and pause requests of all ranks (any rank's request holds for all), once per
  /// iteration, so every rank stops or pauses after the same one.
  struct Control {
    bool stop, pause;
  };
  Control control(bool stop, bool pause);
  /// Per-iteration loss and errors averaged over the ranks (PySlowFast's du.all_reduce).
  std::tuple<double, double, double> average(double loss, double top1, double top5);
  /// Evaluation counts summed over the ranks (each evaluates its own share).
  std::tuple<double, double, double, double> sum(double a, double b, double c, double d);
  /// `t` summed over the ranks, in place (the multi-view test's per-video scores).
  void sumInPlace(torch::Tensor& t, const char* what);
  /// Element-wise maximum over the ranks, in place (no-op with one process).
  void maxInPlace(torch::Tensor& t, const char* what);
  /// All-reduce seconds not hidden by backward, and buckets launched during it, of the last step.
  double lastSyncWaitSeconds() const;
  int lastBucketsInBackward() const;

 private:
  torch::Tensor allreduce(std::vector<double> values, bool max, const char* what);
  dist::DistEnv env_;
  bool syncBatchNorm_ = false, globalSync_ = false;
  bool detachFinalFc_ = false;  // PySlowFast's find_unused_parameters
  int syncDevices_ = 1;
  std::unique_ptr<dist::Communicator> comm_;
  std::unique_ptr<dist::GradientReducer> reducer_;
};

}  // namespace amp::train
