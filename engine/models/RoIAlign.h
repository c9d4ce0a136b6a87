#pragma once
// RoIAlign as PySlowFast's detection head uses it: detectron2's ROIAlign module, which calls
// torchvision.ops.roi_align. Written with LibTorch tensor operations (no torchvision), so autograd
// gives the backward pass and it runs wherever the input lives. Internal to the engine.
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <ostream>

namespace amp::models {

/// torchvision.ops.roi_align: `input` N x C x H x W, `rois` K x 5 (index of the input in the
/// batch, then x1, y1, x2, y2 in the coordinates `spatialScale` maps onto the input's pixels);
/// returns K x C x outputSize[0] x outputSize[1], each bin the average of a grid of bilinear
/// samples. samplingRatio > 0: that many samples per bin along each axis; 0 (or less): adaptive,
/// ceil(roi size / output size) per RoI and axis. aligned: the box is shifted by -0.5 pixel
/// (detectron2's pixel model); not aligned: the legacy box, at least 1 x 1 pixel. Samples outside
/// [-1, H] x [-1, W] read 0, samples within one pixel of the border read the border pixel, as
/// torchvision's kernels do.
///
/// Under autocast on the input's device (any input but double) the RoIs are pooled in float32 and
/// the result is cast back to the input's dtype, as torchvision's autocast kernel does.
/// The RoIs get no gradient (torchvision's backward gives none); the input does.
torch::Tensor roiAlign(const torch::Tensor& input, const torch::Tensor& rois,
                       std::array<int64_t, 2> outputSize, double spatialScale,
                       int64_t samplingRatio, bool aligned);

/// detectron2.layers.ROIAlign: the RoIs are first cast to the input's dtype (so float16 features
/// round the box corners as PySlowFast's mixed precision does), then roiAlign. Parameter-free:
/// it adds nothing to a state dict.
///
///   RoIAlign roi({7, 7}, /*spatialScale=*/1.0 / 16, /*samplingRatio=*/0, /*aligned=*/true);
///   torch::Tensor boxFeatures = roi(features, boxes);  // boxes K x 5 -> K x C x 7 x 7
class RoIAlignImpl : public torch::nn::Module {
 public:
  RoIAlignImpl(std::array<int64_t, 2> outputSize, double spatialScale, int64_t samplingRatio,
               bool aligned = true);
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& rois);
  void pretty_print(std::ostream& stream) const override;

 private:
  std::array<int64_t, 2> outputSize_;
  double spatialScale_;
  int64_t samplingRatio_;
  bool aligned_;
};
TORCH_MODULE(RoIAlign);

}  // namespace amp::models
