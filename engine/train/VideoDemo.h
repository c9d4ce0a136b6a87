#pragma once
// PySlowFast's classification demo (tools/demo_net.py with DEMO.INPUT_VIDEO and DEMO.OUTPUT_FILE):
// a trained model slides over one video (data/DemoWindows: windows of NUM_FRAMES x SAMPLING_RATE
// frames overlapping by DEMO.BUFFER_SIZE), classifies each window as predictor.py does (frames
// to RGB unless DEMO.INPUT_FORMAT is RGB, the short side scaled to DATA.TEST_CROP_SIZE without a
// crop, NUM_FRAMES taken evenly, normalised by DATA.MEAN / DATA.STD, in FP32), and writes the
// video again with each window's classes drawn on the frames around its middle (data/DemoVideo;
// DEMO.VIS_MODE, DEMO.CLIP_VIS_SIZE, DEMO.OUTPUT_FPS). Torch-free header (the CLI and studio).
//
//   train::VideoDemoOptions o;
//   o.input = "clip.mp4";            // else DEMO.INPUT_VIDEO
//   o.output = "clip_labelled.mp4";  // else DEMO.OUTPUT_FILE; "" writes nothing
//   train::VideoDemoResult r;
//   if (!train::runVideoDemo(cfg, o, r, &error)) return fail(error);
//   for (const auto& w : r.windows) show(w.window.middle / r.fps, w.scores);
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "data/DemoWindows.h"

namespace amp::config {
class Config;
}

namespace amp::train {

struct VideoDemoOptions {
  std::string checkpoint;  ///< "" picks as the test does (TEST.CHECKPOINT_FILE_PATH, OUTPUT_DIR...)
  std::string input;       ///< a video file or a folder of frames; "" reads DEMO.INPUT_VIDEO
  std::string output;      ///< "" reads DEMO.OUTPUT_FILE; both empty: predictions only
  std::map<int, std::string> names;  ///< class names for the drawing (index -> name)
  int threads = 0;                   ///< > 0 caps LibTorch's CPU threads
  /// Called as work goes: stage "predict" (windows) or "write" (frames), done of total; false
  /// stops the demo (a partial video is removed).
  std::function<bool(const std::string& stage, std::int64_t done, std::int64_t total)> progress;
};

struct DemoWindowScores {
  data::DemoWindow window;
  std::vector<float> scores;  ///< the model's probabilities; empty when the window was skipped
};

struct VideoDemoResult {
  std::string input, output, checkpoint;
  double fps = 0;
  std::int64_t frames = 0;
  int width = 0, height = 0;
  int model_width = 0, model_height = 0;  ///< what the model saw of each frame
  std::vector<DemoWindowScores> windows;
  double predict_seconds = 0, write_seconds = 0;
};

/// Runs the demo. False with `error` naming the key, file or input (a detection config is sent to
/// the box demo: DEMO.PREDS_BOXES; a video shorter than one window says how long it must be).
[[nodiscard]] bool runVideoDemo(const config::Config& cfg, const VideoDemoOptions& options,
                                VideoDemoResult& out, std::string* error);

}  // namespace amp::train
