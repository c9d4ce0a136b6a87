#include "data/Sampling.h"

#include <algorithm>
#include <cfenv>
#include <cmath>

namespace amp::data {

// PyTorch's symmetric evaluation: the first half counts up from `start`, the second half down
// from `end`. Truncating these floats to integers must give exactly PySlowFast's indices, so the
// arithmetic has to be the same.
std::vector<float> torchLinspace(double start, double end, int steps) {
  std::vector<float> out;
  if (steps <= 0) return out;
  const float s = static_cast<float>(start), e = static_cast<float>(end);
  if (steps == 1) return {s};
  const float step = (e - s) / static_cast<float>(steps - 1);
  const int halfway = steps / 2;
  for (int i = 0; i < steps; ++i)
    out.push_back(i < halfway ? s + step * static_cast<float>(i) : e - step * static_cast<float>(steps - i - 1));
  return out;
}

double clipSpanFrames(int samplingRate, int numFrames, double targetFps, double videoFps) {
  return static_cast<double>(samplingRate) * numFrames / targetFps * videoFps;
}

double clipStart(double videoFrames, double clipSize, int clipIdx, int numClips, bool useOffset, double u) {
  const double delta = std::max(videoFrames - clipSize, 0.0);
  if (clipIdx == -1) return delta * u;  // random.uniform(0, delta)
  if (useOffset) {
    if (numClips == 1) return std::floor(delta / 2);
    return clipIdx * std::floor(delta / (numClips - 1));
  }
  return delta * clipIdx / numClips;
}

std::vector<std::int64_t> clipFrameIndices(double start, double clipSize, int numFrames, std::int64_t videoFrames) {
  std::vector<std::int64_t> out;
  const float last = static_cast<float>(std::max<std::int64_t>(videoFrames - 1, 0));
  for (float v : torchLinspace(start, start + clipSize - 1, numFrames))
    out.push_back(static_cast<std::int64_t>(std::clamp(v, 0.0f, last)));  // torch.clamp, then .long() truncates
  return out;
}

std::vector<std::int64_t> slowPathwayIndices(int fastFrames, int alpha) {
  std::vector<std::int64_t> out;
  for (float v : torchLinspace(0, fastFrames - 1, fastFrames / alpha)) out.push_back(static_cast<std::int64_t>(v));
  return out;
}

int jitterShortSide(int minSize, int maxSize, double u, bool inverseUniform) {
  double size;
  if (inverseUniform) {
    const double lo = 1.0 / maxSize, hi = 1.0 / minSize;
    size = 1.0 / (lo + (hi - lo) * u);
  } else {
    size = minSize + (maxSize - minSize) * u;
  }
  return static_cast<int>(std::nearbyint(size));  // default rounding mode: half to even, like round()
}

Size scaleShortSide(Size in, int shortSide) {
  if ((in.width <= in.height && in.width == shortSide) || (in.height <= in.width && in.height == shortSide)) return in;
  if (in.width < in.height)
    return {static_cast<int>(std::floor(static_cast<double>(in.height) / in.width * shortSide)), shortSide};
  return {shortSide, static_cast<int>(std::floor(static_cast<double>(in.width) / in.height * shortSide))};
}

Size decodeSizeAtMinDimension(Size in, int minDimension) {
  if (minDimension <= 0 || in.height <= 0 || in.width <= 0) return in;
  if (in.width > in.height)
    return {minDimension, static_cast<int>(std::round(static_cast<double>(in.width) * minDimension / in.height))};
  return {static_cast<int>(std::round(static_cast<double>(in.height) * minDimension / in.width)), minDimension};
}

CropBox randomCrop(Size in, int size, double uy, double ux) {
  CropBox box{0, 0, size};
  if (in.height > size) box.y = static_cast<int>(std::floor(uy * (in.height - size)));
  if (in.width > size) box.x = static_cast<int>(std::floor(ux * (in.width - size)));
  return box;
}

CropBox uniformCrop(Size in, int size, int spatialIdx) {
  CropBox box{static_cast<int>(std::ceil((in.height - size) / 2.0)), static_cast<int>(std::ceil((in.width - size) / 2.0)),
              size};
  if (in.height > in.width) {
    if (spatialIdx == 0) box.y = 0;
    else if (spatialIdx == 2) box.y = in.height - size;
  } else {
    if (spatialIdx == 0) box.x = 0;
    else if (spatialIdx == 2) box.x = in.width - size;
  }
  return box;
}

}  // namespace amp::data
