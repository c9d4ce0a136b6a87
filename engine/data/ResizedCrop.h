#pragma once
// The Inception-style spatial sampling of PySlowFast's MViT recipe (transform.py
// random_resized_crop and random_resized_crop_with_shift): a crop of random relative area and
// log-uniform aspect ratio, resized to the crop size with torch's bilinear interpolation
// (align_corners=False) on the normalised float frames.
#include <vector>

#include "data/Draws.h"

namespace amp::data {

/// A crop region: top row, left column, height, width.
struct CropRect {
  int y = 0, x = 0, height = 0, width = 0;
  bool operator==(const CropRect& o) const {
    return y == o.y && x == o.x && height == o.height && width == o.width;
  }
};

/// _get_param_spatial_crop (log_scale, no switch): up to 10 tries of area uniform in
/// [scaleMin, scaleMax] x H x W and aspect exp(uniform(log ratioMin, log ratioMax)), sides
/// int(round(sqrt(...))) (half to even); the first that fits is placed with randint offsets.
/// Otherwise the central crop of the whole frame clamped to the ratio range.
CropRect relativeCropRect(double scaleMin, double scaleMax, double ratioMin, double ratioMax,
                          int height, int width, DrawSource& draws);

/// random_resized_crop_with_shift's per-frame regions: each of y, x, height, width runs
/// linearly from `first` to `last` over `frames` frames (torch.linspace in float32), truncated.
std::vector<CropRect> motionShiftRects(const CropRect& first, const CropRect& last, int frames);

/// torch.nn.functional.interpolate(mode="bilinear", align_corners=False) of one float plane
/// (`srcHeight` x `srcWidth`, rows `srcStride` apart) to outHeight x outWidth, in float32 as
/// PyTorch's CPU kernel. Only the window of outWindow rows from outY and outWindowWidth columns
/// from outX is written, densely, into `out` (mirrored left-right when `flip`).
void resizeBilinear(const float* src, int srcStride, int srcHeight, int srcWidth, int outHeight,
                    int outWidth, int outY, int outX, int outWindow, int outWindowWidth, bool flip,
                    float* out);

}  // namespace amp::data
