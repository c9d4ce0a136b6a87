#pragma once
// Data-parallel gradient synchronisation, the way PyTorch's DDP reducer does it: parameters
// grouped into buckets of about 25 MB in reverse registration order (the order backward
// produces their gradients), a hook after each parameter's gradient accumulation, and each
// bucket's all-reduce launched as soon as all of its gradients are in, while backward goes on
// through the earlier layers. Buckets are launched in bucket order on every rank (collectives
// must match across ranks), and finish() waits for them and writes back the average. With
// gradient accumulation, only the last micro-batch synchronises (DDP's no_sync). Buffers (batch
// norm statistics) follow rank 0's before each forward (DDP's broadcast_buffers). Internal to
// the engine (LibTorch types).
#include <torch/torch.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace amp::dist {

class Communicator;

/// What the last synchronised step's all-reduce cost.
struct ReducerStats {
  int buckets = 0;
  int launched_in_backward = 0;  ///< buckets whose all-reduce started before backward ended
  double wait_s = 0;      ///< time finish() spent waiting for all-reduces (not hidden by backward)
  std::size_t bytes = 0;  ///< gradient bytes all-reduced
};

class GradientReducer {
 public:
  static constexpr std::size_t kDefaultBucketBytes = 25u << 20;

  /// `params`: the model's parameters in registration order (net->parameters()); `buffers` its
  /// buffers. Registers the hooks.
  GradientReducer(Communicator& comm, std::vector<torch::Tensor> params,
                  std::vector<torch::Tensor> buffers,
                  std::size_t bucketBytes = kDefaultBucketBytes);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  /// Parameters and buffers from rank 0 to every rank: at start, and after a resume or a load.
  void broadcastState();
  /// Before each forward of a step: buffers follow rank 0; `lastMicroBatch` arms the hooks (a
  /// backward of an earlier micro-batch only accumulates locally).
  void beforeForward(bool lastMicroBatch);
  /// After the last backward (or instead of it, when this rank skipped it): launches the buckets
  /// not yet launched, waits for all, and leaves every gradient the average over the ranks.
  /// Throws std::runtime_error when a collective fails.
  void finish();
  /// True on every rank when `flag` is true on every rank.
  bool allTrue(bool flag);
  /// DDP's find_unused_parameters, which PySlowFast turns on for MODEL.DETACH_FINAL_FC: after
  /// finish(), a parameter that got no gradient on any rank this step has none (the optimizer
  /// skips it: no weight decay, no momentum) instead of the bucket's zeros. One small all-reduce
  /// more per step; every rank must set the same.
  void findUnusedParameters(bool on) { findUnused_ = on; }

  /// On CUDA, finish() waits for the device before it stops its clock, so wait_s is the
  /// all-reduces' real tail (NCCL's wait() only orders the current stream after them, the CPU
  /// does not block). Costs a device sync a step; the benchmarks turn it on, training does not.
  void timeOnDevice(bool on) { timeOnDevice_ = on; }
  const ReducerStats& lastStats() const { return stats_; }
  std::size_t bucketCount() const;
  /// Parameter indices (registration order) of each bucket, in launch order.
  std::vector<std::vector<std::size_t>> bucketLayout() const;

  struct State;  // shared with the hooks, which may outlive nothing: they check `alive`

 private:
  Communicator& comm_;
  std::vector<torch::Tensor> buffers_;
  std::shared_ptr<State> state_;
  std::vector<std::shared_ptr<torch::autograd::Node>>
      accumulators_;  // hooks live on them; the tensors hold weak refs
  ReducerStats stats_;
  bool timeOnDevice_ = false;
  bool findUnused_ = false;

  void dropGloballyUnusedGradients();
};

}  // namespace amp::dist
