#include "data/AvaColor.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace amp::data {
namespace {

std::size_t planeSize(const FloatClip& clip) {
  return static_cast<std::size_t>(clip.height) * clip.width;
}

// blend(image1, image2, alpha) = image1 x alpha + image2 x (1 - alpha) in float32, the scalars
// rounded to float first as numpy does with a Python float and a float32 array.
float blend(float a, float b, float alpha, float beta) {
  return a * alpha + b * beta;
}

// grayscale(): 0.299 R + 0.587 G + 0.114 B of one pixel (channel 2 is R), in float32.
float gray(const FloatClip& clip, int t, std::size_t i) {
  return 0.299f * clip.plane(2, t)[i] + 0.587f * clip.plane(1, t)[i] + 0.114f * clip.plane(0, t)[i];
}

void brightness(const FloatClip& clip, double alpha) {
  const float a = static_cast<float>(alpha), b = static_cast<float>(1.0 - alpha);
  const std::size_t n = planeSize(clip) * 3 * static_cast<std::size_t>(clip.frames);
  for (std::size_t i = 0; i < n; ++i) clip.data[i] = blend(clip.data[i], 0.0f, a, b);
}

void contrast(const FloatClip& clip, double alpha) {
  const float a = static_cast<float>(alpha), b = static_cast<float>(1.0 - alpha);
  const std::size_t n = planeSize(clip);
  for (int t = 0; t < clip.frames; ++t) {
    // The mean of the frame's gray image (numpy's float32 mean sums pairwise; a double sum is
    // as close as float32 can hold).
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += gray(clip, t, i);
    const float mean = n ? static_cast<float>(sum / static_cast<double>(n)) : 0.0f;
    for (int c = 0; c < 3; ++c) {
      float* p = clip.plane(c, t);
      for (std::size_t i = 0; i < n; ++i) p[i] = blend(p[i], mean, a, b);
    }
  }
}

void saturation(const FloatClip& clip, double alpha) {
  const float a = static_cast<float>(alpha), b = static_cast<float>(1.0 - alpha);
  const std::size_t n = planeSize(clip);
  for (int t = 0; t < clip.frames; ++t)
    for (std::size_t i = 0; i < n; ++i) {
      const float g = gray(clip, t, i);  // from the pixel before any channel changes
      for (int c = 0; c < 3; ++c) clip.plane(c, t)[i] = blend(clip.plane(c, t)[i], g, a, b);
    }
}

}  // namespace

void avaColorJitter(const FloatClip& clip, double brightnessRatio, double contrastRatio,
                    double saturationRatio, DrawSource& draws) {
  enum Op { Brightness, Contrast, Saturation };
  std::vector<std::pair<Op, double>> ops;
  if (brightnessRatio != 0) ops.push_back({Brightness, brightnessRatio});
  if (contrastRatio != 0) ops.push_back({Contrast, contrastRatio});
  if (saturationRatio != 0) ops.push_back({Saturation, saturationRatio});
  for (int i = static_cast<int>(ops.size()) - 1; i > 0; --i)
    std::swap(ops[static_cast<std::size_t>(i)],
              ops[static_cast<std::size_t>(randInt(draws, 0, i))]);
  for (const auto& [op, ratio] : ops) {
    const double alpha = 1.0 + uniformIn(draws, -ratio, ratio);
    if (op == Brightness) brightness(clip, alpha);
    if (op == Contrast) contrast(clip, alpha);
    if (op == Saturation) saturation(clip, alpha);
  }
}

void avaLighting(const FloatClip& clip, double alphastd, const std::array<float, 3>& eigval,
                 const std::array<std::array<float, 3>, 3>& eigvec, DrawSource& draws) {
  if (alphastd == 0) return;
  double alpha[3];
  for (double& a : alpha) a = alphastd * normalDraw(draws);
  double rgb[3];
  for (int i = 0; i < 3; ++i) {
    rgb[i] = 0;
    for (int j = 0; j < 3; ++j)
      rgb[i] +=
          static_cast<double>(eigvec[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]) *
          alpha[j] * static_cast<double>(eigval[static_cast<std::size_t>(j)]);
  }
  const std::size_t n = planeSize(clip);
  for (int c = 0; c < 3; ++c) {
    // NumPy 1.x adds a float64 scalar to a float32 array in float32.
    const float offset = static_cast<float>(rgb[2 - c]);
    for (int t = 0; t < clip.frames; ++t) {
      float* p = clip.plane(c, t);
      for (std::size_t i = 0; i < n; ++i) p[i] += offset;
    }
  }
}

}  // namespace amp::data
