#include "data/Sampling.h"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <limits>

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
    out.push_back(i < halfway ? s + step * static_cast<float>(i)
                              : e - step * static_cast<float>(steps - i - 1));
  return out;
}

double clipSpanFrames(int samplingRate, int numFrames, double targetFps, double videoFps) {
  return std::max(1.0, static_cast<double>(samplingRate) * numFrames / targetFps * videoFps);
}

bool decodingBackendFromName(const std::string& name, DecodingBackend& out) {
  out = name == "pyav" ? DecodingBackend::PyAv : DecodingBackend::TorchVision;
  return name == "pyav" || name == "torchvision";
}

std::int64_t StreamTiming::pts(std::int64_t frame) const {
  if (timebase_den <= 0 || timebase_num <= 0 || slot_fps <= 0) return frame;
  return start_pts + std::llround(static_cast<double>(frame) * timebase_den /
                                  (static_cast<double>(timebase_num) * slot_fps));
}

TemporalPlan temporalPlan(DecodingBackend backend, const StreamTiming& s, int samplingRate,
                          int numFrames, double targetFps) {
  TemporalPlan plan;
  plan.sample_size = clipSpanFrames(samplingRate, numFrames, targetFps, s.fps);
  if (backend == DecodingBackend::TorchVision) {
    plan.trimmed = s.duration_s > 0 && s.timebase_den > 0 &&
                   s.fps * s.duration_s > static_cast<double>(numFrames) * samplingRate;
    plan.video_size = plan.trimmed ? s.fps * s.duration_s : static_cast<double>(s.frames);
    plan.clip_size = plan.sample_size;
  } else {
    plan.trimmed = s.duration_pts > 0 && s.header_frames > 0;
    plan.video_size = static_cast<double>(plan.trimmed ? s.header_frames : s.frames);
    plan.clip_size = plan.trimmed ? std::max(1.0, std::ceil(static_cast<double>(samplingRate) *
                                                            (numFrames - 1) / targetFps * s.fps))
                                  : plan.sample_size;
  }
  return plan;
}

std::vector<std::int64_t> torchvisionFrameIndices(const StreamTiming& s, const TemporalPlan& plan,
                                                  double start, int numFrames) {
  if (!plan.trimmed || s.frames <= 0)
    return clipFrameIndices(start, plan.clip_size, numFrames, s.frames);
  const double ppf = static_cast<double>(s.timebase_den) / s.fps;
  // Python's int() truncates toward zero.
  const auto lo = static_cast<std::int64_t>(std::trunc(start * ppf));
  const auto hi = static_cast<std::int64_t>(std::trunc((start + plan.clip_size - 1) * ppf));
  // pts(i) increases with i: the kept frames are one run [first, last].
  std::int64_t a = 0, b = s.frames;  // first frame with pts >= lo
  while (a < b) {
    const std::int64_t m = a + (b - a) / 2;
    if (s.pts(m) >= lo)
      b = m;
    else
      a = m + 1;
  }
  const std::int64_t first = a;
  b = s.frames;  // first frame with pts > hi
  while (a < b) {
    const std::int64_t m = a + (b - a) / 2;
    if (s.pts(m) > hi)
      b = m;
    else
      a = m + 1;
  }
  const std::int64_t kept = a - first;
  if (kept <= 0)
    return clipFrameIndices(start, plan.clip_size, numFrames, s.frames);  // PySlowFast decodes all
  auto out = clipFrameIndices(0, plan.sample_size, numFrames, kept);
  for (auto& i : out) i += first;
  return out;
}

PtsRange pyavPtsRange(const StreamTiming& s, const TemporalPlan& plan, double start) {
  // timebase = duration / frames_length, then int() of each end: Python truncates toward zero.
  const double ppf = static_cast<double>(s.duration_pts) / static_cast<double>(s.header_frames);
  return {static_cast<std::int64_t>(std::trunc(start * ppf)),
          static_cast<std::int64_t>(std::trunc((start + plan.clip_size - 1) * ppf))};
}

Size backendDecodeSize(DecodingBackend backend, Size in, int maxSpatialScale) {
  return backend == DecodingBackend::TorchVision ? decodeSizeAtMinDimension(in, maxSpatialScale)
                                                 : in;
}

double clipStart(double videoFrames, double clipSize, int clipIdx, int numClips, bool useOffset,
                 double u) {
  const double delta = std::max(videoFrames - clipSize, 0.0);
  if (clipIdx == -1) return delta * u;  // random.uniform(0, delta)
  if (useOffset) {
    if (numClips == 1) return std::floor(delta / 2);
    return clipIdx * std::floor(delta / (numClips - 1));
  }
  return delta * clipIdx / numClips;
}

std::vector<double> randomWindowStarts(double videoFrames, double clipSize, int windows,
                                       double deltaMin, double deltaMax,
                                       const std::function<double(int window)>& draw) {
  // The gaps of a set of windows in time order, and how far they miss [deltaMin, deltaMax]
  // (PySlowFast's "goodness": 0 when they fit, else the sum of the misses, negative).
  auto miss = [&](std::vector<double> starts) {
    std::sort(starts.begin(), starts.end());
    double m = 0;
    for (std::size_t i = 1; i < starts.size(); ++i) {
      const double gap = starts[i] - (starts[i - 1] + clipSize - 1);
      if (gap < deltaMin) m += gap;
      if (gap > deltaMax) m -= gap;
    }
    return m;
  };
  auto fits = [&](const std::vector<double>& starts) {
    std::vector<double> s = starts;
    std::sort(s.begin(), s.end());
    for (std::size_t i = 1; i < s.size(); ++i) {
      const double gap = s[i] - (s[i - 1] + clipSize - 1);
      if (gap < deltaMin || gap > deltaMax) return false;
    }
    return true;
  };
  constexpr int kRetries = 100;
  std::vector<double> best;
  double bestMiss = -std::numeric_limits<double>::infinity();
  for (int round = 0; round < kRetries; ++round) {
    std::vector<double> starts;
    for (int k = 0; k < windows; ++k) {
      for (int attempt = 0; attempt < kRetries; ++attempt) {
        starts.push_back(clipStart(videoFrames, clipSize, -1, 1, false, draw(k)));
        if (starts.size() == 1 || fits(starts) || attempt == kRetries - 1) break;
        starts.pop_back();
      }
    }
    if (fits(starts)) return starts;
    if (const double m = miss(starts); m > bestMiss) {
      bestMiss = m;
      best = starts;
    }
  }
  return best;
}

std::vector<std::int64_t> clipFrameIndices(double start, double clipSize, int numFrames,
                                           std::int64_t videoFrames) {
  std::vector<std::int64_t> out;
  const float last = static_cast<float>(std::max<std::int64_t>(videoFrames - 1, 0));
  for (float v : torchLinspace(start, start + clipSize - 1, numFrames))
    out.push_back(static_cast<std::int64_t>(
        std::clamp(v, 0.0f, last)));  // torch.clamp, then .long() truncates
  return out;
}

std::vector<std::int64_t> slowPathwayIndices(int fastFrames, int alpha) {
  std::vector<std::int64_t> out;
  for (float v : torchLinspace(0, fastFrames - 1, fastFrames / alpha))
    out.push_back(static_cast<std::int64_t>(v));
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
  return static_cast<int>(
      std::nearbyint(size));  // default rounding mode: half to even, like round()
}

Size scaleShortSide(Size in, int shortSide) {
  if ((in.width <= in.height && in.width == shortSide) ||
      (in.height <= in.width && in.height == shortSide))
    return in;
  if (in.width < in.height)
    return {static_cast<int>(std::floor(static_cast<double>(in.height) / in.width * shortSide)),
            shortSide};
  return {shortSide,
          static_cast<int>(std::floor(static_cast<double>(in.width) / in.height * shortSide))};
}

Size decodeSizeAtMinDimension(Size in, int minDimension) {
  if (minDimension <= 0 || in.height <= 0 || in.width <= 0) return in;
  if (in.width > in.height)
    return {minDimension,
            static_cast<int>(std::round(static_cast<double>(in.width) * minDimension / in.height))};
  return {static_cast<int>(std::round(static_cast<double>(in.height) * minDimension / in.width)),
          minDimension};
}

CropBox randomCrop(Size in, int size, double uy, double ux) {
  CropBox box{0, 0, size};
  if (in.height > size) box.y = static_cast<int>(std::floor(uy * (in.height - size)));
  if (in.width > size) box.x = static_cast<int>(std::floor(ux * (in.width - size)));
  return box;
}

CropBox uniformCrop(Size in, int size, int spatialIdx) {
  CropBox box{static_cast<int>(std::ceil((in.height - size) / 2.0)),
              static_cast<int>(std::ceil((in.width - size) / 2.0)), size};
  if (in.height > in.width) {
    if (spatialIdx == 0)
      box.y = 0;
    else if (spatialIdx == 2)
      box.y = in.height - size;
  } else {
    if (spatialIdx == 0)
      box.x = 0;
    else if (spatialIdx == 2)
      box.x = in.width - size;
  }
  return box;
}

}  // namespace amp::data
