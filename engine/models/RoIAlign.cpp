#include "models/RoIAlign.h"

#include <c10/core/impl/LocalDispatchKeySet.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace amp::models {
namespace {

// Bilinear sampling is separable: a sample at (y, x) reads rows y_low, y_high and columns x_low,
// x_high with weights (hy or ly) * (hx or lx), and it reads 0 when y or x is out of range. So a
// bin's average is A_y * F * A_x^T / count, where A_y (out_h x H) holds, for each output row, the
// row weights summed over the bin's samples, and A_x likewise for the columns. Two small matrix
// products per RoI then replace a gather of 4 x samples x C values per output element (which for
// AVA's 2304 channels would take gigabytes), and autograd differentiates them.
//
// One axis of that: K x out x size, from each RoI's start, bin size and samples per bin (`grid`).
// The adaptive grid differs between RoIs; every RoI gets `maxGrid` samples and those at or past
// its own grid weigh 0 (one pass instead of a pass per grid size; the grids are small).
torch::Tensor axisWeights(const torch::Tensor& start, const torch::Tensor& bin,
                          const torch::Tensor& grid, int64_t maxGrid, int64_t out, int64_t size) {
  const auto opts = start.options();
  const auto pos = torch::arange(out, opts);
  const auto sample = torch::arange(maxGrid, opts);
  // torchvision's order of operations: start + p * bin + (i + 0.5) * bin / grid.
  const auto binStart = start.unsqueeze(1) + pos.unsqueeze(0) * bin.unsqueeze(1);
  const auto offset = (sample.unsqueeze(0) + 0.5) * bin.unsqueeze(1) / grid.to(opts).unsqueeze(1);
  const auto c = binStart.unsqueeze(2) + offset.unsqueeze(1);  // K x out x maxGrid
  const auto used = sample.unsqueeze(0) < grid.to(opts).unsqueeze(1);
  // Written as "in range" so that NaN coordinates (every comparison false) read nothing, as the
  // kernel's !(in range) test does.
  const auto valid =
      (c >= -1.0).logical_and(c <= static_cast<double>(size)).logical_and(used.unsqueeze(1));
  auto clamped = torch::where(valid, c.clamp_min(0.0), torch::zeros_like(c));
  auto low = clamped.floor().to(torch::kLong);
  const auto top = low >= size - 1;
  // At the last pixel (or past it, within the range) the sample is that pixel alone.
  low = torch::where(top, torch::full_like(low, size - 1), low);
  const auto high = torch::where(top, low, low + 1);
  clamped = torch::where(top, low.to(opts), clamped);
  const auto l = clamped - low.to(opts);
  const auto zero = torch::zeros_like(l);
  const auto wHigh = torch::where(valid, l, zero);
  const auto wLow = torch::where(valid, 1.0 - l, zero);
  const int64_t k = start.size(0);
  auto w = torch::zeros({k, out, size}, opts);
  w.scatter_add_(2, low.view({k, out, maxGrid}), wLow);
  w.scatter_add_(2, high.view({k, out, maxGrid}), wHigh);
  return w;
}

// The widest float the pooling runs in: float32 for float16 / bfloat16 (torchvision's autocast
// kernel; and LibTorch's CPU matrix product has no float16), double for double.
torch::ScalarType computeType(torch::ScalarType t) {
  return t == torch::kDouble ? torch::kDouble : torch::kFloat;
}

}  // namespace

torch::Tensor roiAlign(const torch::Tensor& input, const torch::Tensor& rois,
                       std::array<int64_t, 2> outputSize, double spatialScale,
                       int64_t samplingRatio, bool aligned) {
  if (input.dim() != 4)
    throw std::invalid_argument("roiAlign: input must be N x C x H x W, got " +
                                std::to_string(input.dim()) + " dimensions");
  if (rois.dim() != 2 || rois.size(1) != 5)
    throw std::invalid_argument("roiAlign: rois must be K x 5 (batch index, x1, y1, x2, y2)");
  if (outputSize[0] < 1 || outputSize[1] < 1)
    throw std::invalid_argument("roiAlign: output size must be at least 1 x 1");
  if (!input.is_floating_point())
    throw std::invalid_argument("roiAlign: input must be a floating-point tensor");
  // torchvision's autocast kernel runs without autocast below it; the matrix products here would
  // otherwise be cast down to the autocast type again.
  c10::impl::ExcludeDispatchKeyGuard noAutocast(c10::autocast_dispatch_keyset);
  const auto type = computeType(input.scalar_type());
  const auto x = input.to(type);
  const auto r = rois.detach().to(x.device(), type);
  const int64_t k = r.size(0), height = x.size(2), width = x.size(3);
  const int64_t outH = outputSize[0], outW = outputSize[1];

  const double shift = aligned ? 0.5 : 0.0;
  // The kernel truncates the index towards zero (a C++ conversion to int).
  const auto batch = r.select(1, 0).to(torch::kLong);
  const auto startW = r.select(1, 1) * spatialScale - shift;
  const auto startH = r.select(1, 2) * spatialScale - shift;
  auto roiW = r.select(1, 3) * spatialScale - shift - startW;
  auto roiH = r.select(1, 4) * spatialScale - shift - startH;
  if (!aligned) {  // legacy boxes are at least one pixel wide and high
    roiW = roiW.clamp_min(1.0);
    roiH = roiH.clamp_min(1.0);
  }
  const auto binH = roiH / static_cast<double>(outH);
  const auto binW = roiW / static_cast<double>(outW);
  torch::Tensor gridH, gridW;
  int64_t maxH = samplingRatio, maxW = samplingRatio;
  if (samplingRatio > 0) {
    gridH = torch::full({k}, samplingRatio, r.options().dtype(torch::kLong));
    gridW = gridH;
  } else {
    // ceil(roi / out) as the kernel computes it; a negative size (an aligned box with x2 < x1)
    // gives no samples, and so does a box with a NaN or infinite size (whose conversion to int
    // is undefined in the kernel). The largest grid is read on the host: one synchronisation per
    // call, only with adaptive sampling.
    auto grid = [](const torch::Tensor& bin) {
      return bin.ceil().nan_to_num(0.0, 0.0, 0.0).clamp_min(0.0).to(torch::kLong);
    };
    gridH = grid(binH);
    gridW = grid(binW);
    maxH = k > 0 ? std::max<int64_t>(gridH.max().item<int64_t>(), 1) : 1;
    maxW = k > 0 ? std::max<int64_t>(gridW.max().item<int64_t>(), 1) : 1;
  }
  const auto count = (gridH * gridW).clamp_min(1).to(type).view({k, 1, 1, 1});
  const auto rowW = axisWeights(startH, binH, gridH, maxH, outH, height);  // K x outH x H
  const auto colW = axisWeights(startW, binW, gridW, maxW, outW, width);   // K x outW x W
  const auto features = x.index_select(0, batch);                          // K x C x H x W
  const auto pooled =
      torch::matmul(rowW.unsqueeze(1), torch::matmul(features, colW.transpose(1, 2).unsqueeze(1)));
  return (pooled / count).to(input.scalar_type());
}

RoIAlignImpl::RoIAlignImpl(std::array<int64_t, 2> outputSize, double spatialScale,
                           int64_t samplingRatio, bool aligned)
    : outputSize_(outputSize),
      spatialScale_(spatialScale),
      samplingRatio_(samplingRatio),
      aligned_(aligned) {}

torch::Tensor RoIAlignImpl::forward(const torch::Tensor& input, const torch::Tensor& rois) {
  return roiAlign(input, rois.to(input.scalar_type()), outputSize_, spatialScale_, samplingRatio_,
                  aligned_);
}

void RoIAlignImpl::pretty_print(std::ostream& stream) const {
  stream << "ROIAlign(output_size=(" << outputSize_[0] << ", " << outputSize_[1]
         << "), spatial_scale=" << spatialScale_ << ", sampling_ratio=" << samplingRatio_
         << ", aligned=" << (aligned_ ? "True" : "False") << ")";
}

}  // namespace amp::models
