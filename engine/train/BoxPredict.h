#pragma once
// PySlowFast's AVA demo with precomputed boxes (ava_demo_precomputed_boxes.py, get_predictions):
// for every keyframe of the input that DEMO.PREDS_BOXES gives boxes for, the clip centred on it
// (get_sequence of NUM_FRAMES x SAMPLING_RATE frames) goes through the AVA test transform with its
// boxes, and the detection model scores every box for every action. Torch-free header (the CLI
// and the studio's Predict tab use it).
//
//   train::BoxPredictOptions o;
//   o.boxes = "person_boxes.csv";                   // else DEMO.PREDS_BOXES
//   train::BoxPrediction p;
//   if (!train::predictBoxes(cfg, "clip.mp4", o, p, &error)) return fail(error);
//   for (const auto& k : p.keyframes) for (const auto& b : k.boxes) show(k.second, b.box,
//   b.scores);
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/AvaDemoInput.h"
#include "metrics/AvaCsv.h"

namespace amp::config {
class Config;
}

namespace amp::train {

struct BoxPredictOptions {
  std::string checkpoint;  ///< "" picks as the test does (TEST.CHECKPOINT_FILE_PATH, OUTPUT_DIR...)
  std::string boxes;       ///< person boxes (AVA CSV); "" reads DEMO.PREDS_BOXES
  std::string gt_boxes;    ///< ground truth to show beside them; "" reads DEMO.GT_BOXES (optional)
  int threads = 0;         ///< > 0 caps LibTorch's CPU threads
  std::function<void(int done, int total)> progress;  ///< keyframes scored, from this thread
};

/// One box of a keyframe: as the box file gives it (x1, y1, x2, y2 in [0, 1]) and the model's
/// probability of each action (index k is action id k + 1).
struct ScoredBox {
  std::array<double, 4> box{};
  std::vector<float> scores;
};

struct ScoredKeyframe {
  int second = 0;
  std::int64_t frame = 0;
  std::vector<ScoredBox> boxes;
};

struct BoxPrediction {
  std::string input, video;  ///< the path given and the video's name in the box files
  double fps = 0;
  std::int64_t frames = 0;
  int width = 0, height = 0;
  std::vector<ScoredKeyframe> keyframes;
  data::DemoKeyframes ground_truth;     ///< empty without ground truth
  std::int64_t outside_input = 0;       ///< keyframes of the box file outside the input
  std::int64_t below_score_thresh = 0;  ///< predicted boxes under AVA.DETECTION_SCORE_THRESH
  std::string checkpoint;
  double seconds = 0;
};

/// Scores the boxes of `input` (a video file or a folder of frames) with a detection config's
/// model (in FP32, as the test). False with `error` naming the key, file or input.
[[nodiscard]] bool predictBoxes(const config::Config& cfg, const std::string& input,
                                const BoxPredictOptions& options, BoxPrediction& out,
                                std::string* error);

/// `p` as AVA detections: one row per box and action id 1 .. classes with its score, keyframes in
/// time order (what write_results writes; `ampstudio-cli eval ava` scores it).
std::vector<metrics::AvaImage> boxDetections(const BoxPrediction& p);

}  // namespace amp::train
