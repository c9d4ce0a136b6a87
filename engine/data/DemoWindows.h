#pragma once
// The windows PySlowFast's classification demo slides over its input (demo_loader.py's
// VideoManager / ThreadVideoManager, async_predictor.py's draw_predictions): clips of seq_len =
// DATA.NUM_FRAMES x DATA.SAMPLING_RATE consecutive frames, each starting DEMO.BUFFER_SIZE frames
// before the previous one ended (those frames are written once, by the earlier window). A window
// draws its classes on the frames it adds within DEMO.CLIP_VIS_SIZE of its middle frame; with
// DEMO.NUM_CLIPS_SKIP = n only every (n + 1)-th window is predicted, the others are written
// undrawn. Frames after the last whole window are written undrawn too (ThreadVideoManager's way;
// VideoManager drops them).
//
//   auto p = DemoWindowParams::fromConfig(cfg);           // throws naming the key
//   for (const DemoWindow& w : planDemoWindows(frames, p))
//     if (w.predicted) classify(w.first, w.first + p.seq_len), draw(w.draw_first, w.draw_last);
#include <cstdint>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::data {

struct DemoWindowParams {
  int seq_len = 0;        ///< frames one clip spans
  int num_frames = 0;     ///< frames the model sees of them (linspace over the span)
  int buffer = 0;         ///< frames shared with the previous window (<= seq_len / 2)
  int clip_vis_size = 0;  ///< frames either side of the middle that carry the classes
  int clips_skip = 0;     ///< windows left unpredicted after each predicted one

  /// DATA.NUM_FRAMES, DATA.SAMPLING_RATE, DEMO.BUFFER_SIZE, DEMO.CLIP_VIS_SIZE,
  /// DEMO.NUM_CLIPS_SKIP. Throws std::invalid_argument naming the key (a buffer over half the
  /// span, as PySlowFast's assertion; negative sizes).
  static DemoWindowParams fromConfig(const config::Config& c);
};

struct DemoWindow {
  std::int64_t first = 0;                      ///< first frame of the clip
  std::int64_t middle = 0;                     ///< first + seq_len / 2 (the keyframe)
  std::int64_t draw_first = 0, draw_last = 0;  ///< frames carrying its classes, inclusive
  bool predicted = true;
  /// The frames the model sees: linspace(first, first + seq_len - 1, num_frames), truncated.
  std::vector<std::int64_t> sampled;
};

/// The whole windows of a video of `frames` frames, in order.
std::vector<DemoWindow> planDemoWindows(std::int64_t frames, const DemoWindowParams& p);

}  // namespace amp::data
