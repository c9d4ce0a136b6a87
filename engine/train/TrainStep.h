#pragma once
// The training step every engine path shares (trainer, step benchmark, precision benchmark):
// the precision policy of ARCHITECTURE.md, the device (CUDA with cudnn benchmark, or the CPU
// with all its cores), channels-last-3d on CUDA, and one optimizer step over one or more
// micro-batches: forward + loss under autocast, scaled backward, one unscale, grad norm,
// clipping, step (skipped on inf/NaN), scaler update. Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "amp/AutocastGuard.h"
#include "amp/GradScaler.h"

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

/// What TRAIN.MIXED_PRECISION, AMP.DTYPE and AMP.SCALER mean on the device NUM_GPUS picks:
/// auto is float16 + scaler on CUDA (PySlowFast's MIXED_PRECISION) and bfloat16 on the CPU.
struct PrecisionPolicy {
  bool cuda = false;
  bool mixed = false;
  bool fp16 = false;
  bool scaler = false;
  std::string name = "fp32";  ///< "fp32", "fp16" or "bf16"

  static PrecisionPolicy fromConfig(const config::Config& c);
  /// The same config forced to one precision ("fp32", "bf16", "fp16" or "amp"); the scaler follows
  /// AMP.SCALER. Throws std::invalid_argument naming the key for impossible requests.
  static PrecisionPolicy forced(const config::Config& c, const std::string& precision);
  precision::AutocastDevice autocastDevice() const {
    return cuda ? precision::AutocastDevice::CUDA : precision::AutocastDevice::CPU;
  }
  precision::AutocastType autocastType() const {
    return fp16 ? precision::AutocastType::Float16 : precision::AutocastType::BFloat16;
  }
};

/// The device NUM_GPUS asks for: CUDA device `localRank` (a data-parallel process's own GPU)
/// with cudnn benchmark mode (as PySlowFast), or the CPU with cpuTrainingThreads() LibTorch
/// threads. Throws std::runtime_error naming NUM_GPUS when this LibTorch has no such CUDA device.
torch::Device trainingDevice(const config::Config& c, int localRank = 0);
/// LibTorch threads for CPU training: OMP_NUM_THREADS when set (as PyTorch), else the cores this
/// process may run on (its CPU affinity).
int cpuTrainingThreads();
/// AMP.CHANNELS_LAST_3D and a CUDA device: convolution weights and clips in NDHWC order.
bool useChannelsLast3d(const config::Config& c, const torch::Device& device);
void toChannelsLast3d(torch::nn::Module& net);
/// The clip tensors of a batch on the device (channels-last-3d when asked).
std::vector<torch::Tensor> toDevice(std::vector<torch::Tensor> clips, const torch::Device& device,
                                    bool channelsLast);

/// One micro-batch: pathway tensors and labels, already on the device.
struct MicroBatch {
  std::vector<torch::Tensor> inputs;
  torch::Tensor labels;  ///< class indices
  torch::Tensor
      targets;  ///< B x classes soft targets (MIXUP.*); undefined: the labels are the targets
};

/// A batch of random clips shaped as the config's (pathways, frames, crop) with random labels.
MicroBatch randomMicroBatch(const config::Config& c, int64_t batch, const torch::Device& device,
                            bool channelsLast);

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

/// MODEL.LOSS_FUNC on training logits and class-index labels, in float32, mean over the batch:
/// cross_entropy (PySlowFast's nn.CrossEntropyLoss), soft_cross_entropy (its
/// SoftTargetCrossEntropyLoss on one-hot targets) and bce_logit (nn.BCEWithLogitsLoss on one-hot
/// targets). Throws std::invalid_argument naming the key for the losses of tasks the studio does
/// not train (bce needs probabilities and multi-hot labels; contrastive_loss, mse, multi_mse).
torch::Tensor classificationLoss(const std::string& lossFunc, const torch::Tensor& logits,
                                 const torch::Tensor& labels);
/// The same losses on soft targets (B x classes, e.g. mixup's): cross_entropy as torch's
/// CrossEntropyLoss on class probabilities, which equals soft_cross_entropy (its
/// SoftTargetCrossEntropyLoss without normalising the targets); bce_logit on the soft targets.
torch::Tensor softTargetLoss(const std::string& lossFunc, const torch::Tensor& logits,
                             const torch::Tensor& targets);

/// Throws std::invalid_argument when MODEL.LOSS_FUNC is one classificationLoss refuses.
void checkLossFunc(const std::string& lossFunc);

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
