#pragma once
// One micro-batch of clips on the training device, made from a loader's batch or from random
// numbers of the config's shape: the one place a data::Batch becomes tensors (the trainer, the
// tester, the audits and the benchmarks all come through here). Internal to the engine (LibTorch
// types).
//
//   auto b = loader.next();                                    // a data::Batch on the host
//   train::MicroBatch mb = train::toMicroBatch(*b, device, channelsLast);
//   loader.recycle(std::move(*b));                             // its buffers are free again
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace amp::config {
class Config;
}
namespace amp::data {
struct Batch;
}
namespace amp::models {
class VideoNetImpl;
}

namespace amp::train {

/// One micro-batch: pathway tensors and labels, already on the device.
struct MicroBatch {
  std::vector<torch::Tensor> inputs;
  torch::Tensor labels;   ///< class indices
  torch::Tensor targets;  ///< B x classes soft (MIXUP.*) or multi-hot (multi-label datasets)
                          ///< targets; undefined: the labels are the targets
  /// Detection (AVA): K x 5 boxes (clip index, x1, y1, x2, y2 in input pixels) the model scores,
  /// and `targets` is then K x classes, one multi-hot row a box; undefined otherwise.
  torch::Tensor boxes;
};

/// A batch of random clips shaped as the config's (pathways, frames, crop) with random labels;
/// with DETECTION.ENABLE also kRandomBoxesPerClip random person boxes a clip and random multi-hot
/// targets for them (the benchmarks and audits of detection configs).
constexpr int kRandomBoxesPerClip = 2;
MicroBatch randomMicroBatch(const config::Config& c, int64_t batch, const torch::Device& device,
                            bool channelsLast);

/// The clips of a loader batch as the model's inputs on `device` (the slow pathway first when the
/// batch has one): copied out of the batch's buffers, so the batch may be recycled at once.
std::vector<torch::Tensor> batchTensors(data::Batch& b, const torch::Device& device,
                                        bool channelsLast);
/// The boxes of a detection batch (Batch::boxes) as a K x 5 float tensor on `device`; undefined
/// when the batch has none (classification).
torch::Tensor batchBoxes(const data::Batch& b, const torch::Device& device);
/// batchTensors and the batch's labels as class indices on `device` (detection: its boxes and
/// their multi-hot targets).
MicroBatch toMicroBatch(data::Batch& b, const torch::Device& device, bool channelsLast);

/// The model's forward on a micro-batch: with its boxes for a detection model.
torch::Tensor forwardMicroBatch(models::VideoNetImpl& net, const MicroBatch& mb);
/// MODEL.LOSS_FUNC on a micro-batch's outputs: on its targets when it has them (multi-label,
/// mixup, detection), else on its labels.
torch::Tensor microBatchLoss(const std::string& lossFunc, const torch::Tensor& y,
                             const MicroBatch& mb);

}  // namespace amp::train
