#include "data/FrameSampling.h"

#include <cmath>

#include <algorithm>

namespace amp::data {

std::int64_t randintFromDraw(std::int64_t lo, std::int64_t hi, double u) {
  if (hi <= lo) return lo;
  const auto span = static_cast<double>(hi - lo + 1);
  return lo + std::min(hi - lo, static_cast<std::int64_t>(std::floor(u * span)));
}

std::vector<std::int64_t> ssv2FrameIndices(std::int64_t length, int numFrames, bool random,
                                           const std::function<double()>& draw) {
  std::vector<std::int64_t> seq;
  if (numFrames <= 0 || length <= 0) return seq;
  seq.reserve(static_cast<std::size_t>(numFrames));
  // float(video_length - 1) / num_frames in double, edges by np.round (half to even, as
  // nearbyint in the default rounding mode).
  const double segment = static_cast<double>(length - 1) / numFrames;
  for (int i = 0; i < numFrames; ++i) {
    const auto start = static_cast<std::int64_t>(std::nearbyint(segment * i));
    const auto end = static_cast<std::int64_t>(std::nearbyint(segment * (i + 1)));
    if (random)
      seq.push_back(randintFromDraw(start, end, draw ? draw() : 0.5));
    else
      seq.push_back((start + end) / 2);  // both >= 0: C++ division is Python's floor here
  }
  return seq;
}

std::vector<std::int64_t> charadesFrameIndices(std::int64_t length, int numFrames, int rate,
                                               int view, int views, double u) {
  std::vector<std::int64_t> seq;
  if (numFrames <= 0 || length <= 0) return seq;
  const std::int64_t clip = static_cast<std::int64_t>(numFrames - 1) * rate + 1;
  std::int64_t start = 0;
  if (view < 0) {
    start =
        clip > length ? randintFromDraw(length - clip, 0, u) : randintFromDraw(0, length - clip, u);
  } else if (views > 1) {
    const double gap = static_cast<double>(std::max<std::int64_t>(length - clip, 0)) / (views - 1);
    start = static_cast<std::int64_t>(std::nearbyint(gap * view));  // Python's round: half to even
  }
  seq.reserve(static_cast<std::size_t>(numFrames));
  for (int i = 0; i < numFrames; ++i)
    seq.push_back(
        std::clamp<std::int64_t>(start + static_cast<std::int64_t>(i) * rate, 0, length - 1));
  return seq;
}

std::vector<std::int64_t> avaFrameIndices(std::int64_t center, std::int64_t halfLen, int rate,
                                          std::int64_t numFrames) {
  std::vector<std::int64_t> seq;
  if (rate <= 0) return seq;
  for (std::int64_t i = center - halfLen; i < center + halfLen; i += rate)
    seq.push_back(std::clamp<std::int64_t>(i, 0, std::max<std::int64_t>(numFrames - 1, 0)));
  return seq;
}

}  // namespace amp::data
