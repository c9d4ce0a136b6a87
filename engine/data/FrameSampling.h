#pragma once
// Which frames of a frame folder one clip takes, as PySlowFast's frame datasets pick them
// (get_seq_frames of datasets/ssv2.py and datasets/charades.py, get_sequence of
// datasets/utils.py for AVA). Random choices arrive as draws
// in [0, 1), so tests can feed hand-chosen ones and a seed decides everything.
//
//   auto seq = data::ssv2FrameIndices(48, 8, /*random=*/false, nullptr);  // middle of 8 segments
#include <cstdint>
#include <functional>
#include <vector>

namespace amp::data {

/// random.randint(lo, hi) (both ends included) from a draw u in [0, 1).
std::int64_t randintFromDraw(std::int64_t lo, std::int64_t hi, double u);

/// Something-Something v2: the video's `length` frames cut into `numFrames` segments of
/// (length - 1) / numFrames frames, edges at round-half-even(segment x i); training takes a
/// random frame of each segment (edges included, one draw per segment from `draw`), validation
/// and test the middle one, (start + end) // 2.
std::vector<std::int64_t> ssv2FrameIndices(std::int64_t length, int numFrames, bool random,
                                           const std::function<double()>& draw);

/// Charades: numFrames frames `rate` apart from a start, clamped to the video. Training
/// (`view` < 0) draws the start from `u` over [0, length - clip] (or [length - clip, 0] when the
/// clip is longer than the video); test view v of `views` starts at round(v x gap / (views - 1))
/// with gap = max(length - clip, 0), clip = (numFrames - 1) x rate + 1. PySlowFast divides by
/// zero for one view; here one view starts at 0.
std::vector<std::int64_t> charadesFrameIndices(std::int64_t length, int numFrames, int rate,
                                               int view, int views, double u);

/// AVA: the frames range(center - halfLen, center + halfLen, rate), each clamped to
/// 0 .. numFrames - 1 (utils.get_sequence). Ava.__getitem__ passes halfLen = NUM_FRAMES x
/// SAMPLING_RATE // 2, which gives NUM_FRAMES frames when NUM_FRAMES x SAMPLING_RATE is even
/// (an odd product gives one frame fewer, as in PySlowFast). Empty when rate <= 0.
std::vector<std::int64_t> avaFrameIndices(std::int64_t center, std::int64_t halfLen, int rate,
                                          std::int64_t numFrames);

}  // namespace amp::data
