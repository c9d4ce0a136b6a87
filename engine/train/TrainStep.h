#pragma once
// The training step every engine path shares (trainer, step benchmark, precision benchmark):
// one optimizer step over one or more micro-batches: forward + loss under autocast, scaled
// backward, one unscale, grad norm, clipping, step (skipped on inf/NaN), scaler update. The
// precision policy, the device, the losses and the batches it takes are their own headers,
// included here because the step's interface uses them. Internal to the engine (LibTorch types).
//
//   train::TrainStep step(cfg, *net, *optimizer, train::PrecisionPolicy::fromConfig(cfg));
//   const train::StepOutcome out = step.run({source.next()});
//   if (!out.stepped) std::cout << "skipped: inf/NaN gradients\n";
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "amp/GradScaler.h"
#include "train/Losses.h"
#include "train/MicroBatch.h"
#include "train/PrecisionPolicy.h"
#include "train/TrainingDevice.h"

namespace amp::config {
class Config;
}
namespace amp::models {
class VideoNetImpl;
}
namespace amp::dist {
class GradientReducer;
}

namespace amp::train {

/// The model as PySlowFast's train_epoch sets it before its steps: training mode, then with
/// MODEL.FROZEN_BN every batch norm back in evaluation mode (misc.frozen_bn_stats). Every path
/// that trains calls it after anything that switched the mode (validation, a benchmark's
/// evaluation forward).
void trainingMode(torch::nn::Module& net, const config::Config& c);

struct StepOutcome {
  double loss = 0;          ///< mean loss over the micro-batches (unscaled)
  torch::Tensor logits;     ///< float32, detached, the micro-batches' logits concatenated
  torch::Tensor labels;     ///< concatenated labels
  torch::Tensor targets;    ///< concatenated soft targets (undefined without MIXUP)
  double grad_norm = 0;     ///< global L2 norm of the unscaled gradients, before clipping
  bool stepped = false;     ///< false when the step was skipped (inf/NaN gradients)
  bool finite_loss = true;  ///< false: the loss was inf/NaN with no scaler running, no step taken
  precision::ScaleUpdate update;
  double forward_s = 0;  ///< seconds in forward and loss (to the loss's value), all micro-batches
  double backward_s =
      0;  ///< seconds in backward (with activation checkpointing: the recomputation too)
};

class TrainStep {
 public:
  TrainStep(const config::Config& c, models::VideoNetImpl& net, torch::optim::Optimizer& optimizer,
            PrecisionPolicy policy);

  /// One optimizer step over the micro-batches (gradient accumulation when there are several:
  /// each loss is divided by their number, gradients add up, and the scaler unscales and steps
  /// once). Without a running scaler (FP32, bfloat16, AMP.SCALER off) a non-finite loss leaves the
  /// weights untouched and reports finite_loss false, and inf/NaN gradients of a finite loss skip
  /// the step (stepped false), as a scaler would.
  StepOutcome run(const std::vector<MicroBatch>& micro);

  /// Data-parallel training: gradients averaged over the ranks by `reducer` (overlapping the last
  /// micro-batch's backward), buffers following rank 0's, and the scaler's inf/NaN verdict and a
  /// non-finite loss agreed by every rank. nullptr: one process.
  void setGradientReducer(dist::GradientReducer* reducer);

  /// Benchmarks: waits for the device after each backward so that StepOutcome's forward_s and
  /// backward_s split a CUDA step truly (the trainer leaves the device asynchronous).
  void synchronizePhases(bool on) { syncPhases_ = on; }

  precision::GradScaler& scaler() { return scaler_; }
  const PrecisionPolicy& policy() const { return policy_; }

 private:
  models::VideoNetImpl& net_;
  torch::optim::Optimizer& optimizer_;
  PrecisionPolicy policy_;
  precision::GradScaler scaler_;
  std::optional<double> clipVal_, clipNorm_;
  std::string lossFunc_;
  dist::GradientReducer* reducer_ = nullptr;
  bool syncPhases_ = false;
};

}  // namespace amp::train
