#include "train/MicroBatch.h"

#include "config/Config.h"
#include "data/VideoLoader.h"
#include "models/Net.h"
#include "train/Losses.h"
#include "train/TrainingDevice.h"

namespace amp::train {

MicroBatch randomMicroBatch(const config::Config& c, int64_t batch, const torch::Device& device,
                            bool channelsLast) {
  const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t t = c.getInt("DATA.NUM_FRAMES"), crop = c.getInt("DATA.TRAIN_CROP_SIZE");
  const bool slowfast = c.getString("MODEL.ARCH") == "slowfast";
  MicroBatch mb;
  for (size_t p = 0; p < channels.size(); ++p)
    mb.inputs.push_back(torch::randn(
        {batch, channels[p], slowfast && p == 0 ? t / c.getInt("SLOWFAST.ALPHA") : t, crop, crop}));
  mb.inputs = toDevice(std::move(mb.inputs), device, channelsLast);
  mb.labels = torch::randint(c.getInt("MODEL.NUM_CLASSES"), {batch},
                             torch::TensorOptions().dtype(torch::kLong))
                  .to(device);
  if (c.getBool("DETECTION.ENABLE")) {
    // Boxes of a quarter to three quarters of the crop a side, anywhere in it.
    const int64_t k = batch * kRandomBoxesPerClip;
    auto clip = torch::arange(batch, torch::kFloat).repeat_interleave(kRandomBoxesPerClip);
    auto side = (0.25 + 0.5 * torch::rand({k, 2})) * static_cast<double>(crop);
    auto corner = torch::rand({k, 2}) * (static_cast<double>(crop) - side);
    mb.boxes = torch::cat({clip.unsqueeze(1), corner, corner + side}, 1).to(device);
    mb.targets =
        (torch::rand({k, c.getInt("MODEL.NUM_CLASSES")}) < 0.1).to(torch::kFloat).to(device);
  }
  return mb;
}

torch::Tensor forwardMicroBatch(models::VideoNetImpl& net, const MicroBatch& mb) {
  return mb.boxes.defined() ? net.forward(mb.inputs, mb.boxes) : net.forward(mb.inputs);
}

torch::Tensor microBatchLoss(const std::string& lossFunc, const torch::Tensor& y,
                             const MicroBatch& mb) {
  return mb.targets.defined() ? softTargetLoss(lossFunc, y, mb.targets)
                              : classificationLoss(lossFunc, y, mb.labels);
}

std::vector<torch::Tensor> batchTensors(data::Batch& b, const torch::Device& device,
                                        bool channelsLast) {
  std::vector<torch::Tensor> x;
  if (b.slow_frames > 0)
    x.push_back(
        torch::from_blob(b.slow.data(), {b.size, b.channels, b.slow_frames, b.height, b.width}));
  x.push_back(torch::from_blob(b.fast.data(), {b.size, b.channels, b.frames, b.height, b.width}));
  // A CUDA copy leaves the host buffer at once; on the CPU the tensors would alias the batch's
  // buffers, which the loader reuses after recycle().
  for (auto& v : x) v = device.is_cpu() ? v.clone() : v.to(device);
  return toDevice(std::move(x), device, channelsLast);
}

MicroBatch toMicroBatch(data::Batch& b, const torch::Device& device, bool channelsLast) {
  MicroBatch mb;
  mb.inputs = batchTensors(b, device, channelsLast);
  mb.labels = torch::tensor(b.labels, torch::kLong).to(device);
  if (!b.targets.empty())  // multi-label: the multi-hot rows are the targets
    mb.targets = torch::tensor(b.targets).view({b.size, b.num_classes}).to(device);
  if (b.num_boxes > 0 || !b.box_targets.empty() || !b.boxes.empty()) {
    mb.boxes = batchBoxes(b, device);
    mb.targets = torch::tensor(b.box_targets).view({b.num_boxes, b.num_classes}).to(device);
  }
  return mb;
}

torch::Tensor batchBoxes(const data::Batch& b, const torch::Device& device) {
  if (b.boxes.empty()) return {};
  return torch::tensor(b.boxes).view({b.num_boxes, 5}).to(device);
}

}  // namespace amp::train
