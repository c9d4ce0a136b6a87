#include "data/ResizedCrop.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "data/Sampling.h"

namespace amp::data {
namespace {

int pyRound(double v) {
  return static_cast<int>(std::nearbyint(v));
}  // round(): half to even

struct Tap {
  int i0 = 0, i1 = 0;
  float w0 = 1, w1 = 0;
};

// PyTorch's source index and weights for one output position (area_pixel_compute_source_index,
// then the truncated index, the next one clamped at the edge, lambda clamped to [0, 1]).
Tap tap(int dst, int in, int out) {
  Tap t;
  if (in == out) {
    t.i0 = t.i1 = dst;
    return t;
  }
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  float src = scale * (static_cast<float>(dst) + 0.5f) - 0.5f;
  if (src < 0) src = 0;
  t.i0 = std::min(static_cast<int>(src), in - 1);
  t.i1 = t.i0 + (t.i0 < in - 1 ? 1 : 0);
  t.w1 = std::min(std::max(src - static_cast<float>(t.i0), 0.0f), 1.0f);
  t.w0 = 1.0f - t.w1;
  return t;
}

}  // namespace

CropRect relativeCropRect(double scaleMin, double scaleMax, double ratioMin, double ratioMax,
                          int height, int width, DrawSource& draws) {
  const double area = static_cast<double>(height) * width;
  const double logLo = std::log(ratioMin), logHi = std::log(ratioMax);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = uniformIn(draws, scaleMin, scaleMax) * area;
    const double aspect = std::exp(uniformIn(draws, logLo, logHi));
    const int w = pyRound(std::sqrt(target * aspect));
    const int h = pyRound(std::sqrt(target / aspect));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const int y = randInt(draws, 0, height - h);
      const int x = randInt(draws, 0, width - w);
      return {y, x, h, w};
    }
  }
  // Central crop: the whole frame, narrowed to the nearest allowed ratio.
  const double inRatio = static_cast<double>(width) / height;
  const double lo = std::min(ratioMin, ratioMax), hi = std::max(ratioMin, ratioMax);
  int w = width, h = height;
  if (inRatio < lo)
    h = pyRound(w / lo);
  else if (inRatio > hi)
    w = pyRound(h * hi);
  return {(height - h) / 2, (width - w) / 2, h, w};
}

std::vector<CropRect> motionShiftRects(const CropRect& a, const CropRect& b, int frames) {
  const auto ys = torchLinspace(a.y, b.y, frames), xs = torchLinspace(a.x, b.x, frames);
  const auto hs = torchLinspace(a.height, b.height, frames),
             ws = torchLinspace(a.width, b.width, frames);
  std::vector<CropRect> out;
  for (int t = 0; t < frames; ++t) {
    const auto k = static_cast<std::size_t>(t);
    out.push_back({static_cast<int>(ys[k]), static_cast<int>(xs[k]), static_cast<int>(hs[k]),
                   static_cast<int>(ws[k])});
  }
  return out;
}

void resizeBilinear(const float* src, int srcStride, int srcHeight, int srcWidth, int outHeight,
                    int outWidth, int outY, int outX, int outWindow, int outWindowWidth, bool flip,
                    float* out) {
  thread_local std::vector<Tap> columns;
  columns.resize(static_cast<std::size_t>(outWindowWidth));
  for (int x = 0; x < outWindowWidth; ++x)
    columns[static_cast<std::size_t>(x)] = tap(outX + x, srcWidth, outWidth);
  for (int y = 0; y < outWindow; ++y) {
    const Tap r = tap(outY + y, srcHeight, outHeight);
    const float* row0 = src + static_cast<std::ptrdiff_t>(r.i0) * srcStride;
    const float* row1 = src + static_cast<std::ptrdiff_t>(r.i1) * srcStride;
    float* dst = out + static_cast<std::ptrdiff_t>(y) * outWindowWidth;
    for (int x = 0; x < outWindowWidth; ++x) {
      const Tap& c = columns[static_cast<std::size_t>(x)];
      const float top = row0[c.i0] * c.w0 + row0[c.i1] * c.w1;
      const float bottom = row1[c.i0] * c.w0 + row1[c.i1] * c.w1;
      dst[flip ? outWindowWidth - 1 - x : x] = top * r.w0 + bottom * r.w1;
    }
  }
}

}  // namespace amp::data
