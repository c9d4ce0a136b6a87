#pragma once
// The demo's output video: the input written again with what the model said drawn on the frames.
// Two uses, as PySlowFast's VideoVisualizer: the AVA demo with precomputed boxes
// (ava_demo_precomputed_boxes.py, draw_video: every keyframe's boxes and their actions on the
// frames around it, seq_len / 10 frames either side; predicted boxes in green with their actions
// on top, ground truth in red with its actions below; frames under a drawing repeated DEMO.SLOWMO
// times), and the classification demo (demo_net.py: each window's classes stacked in the top-left
// corner of the frames around its middle, DEMO.CLIP_VIS_SIZE either side). Which classes show
// follows DEMO.VIS_MODE: "thres" (scores at or over DEMO.COMMON_CLASS_THRES for
// DEMO.COMMON_CLASS_NAMES, over DEMO.UNCOMMON_CLASS_THRES for the others) or "top-k"
// (TENSORBOARD.MODEL_VIS.TOPK_PREDS).
//
//   DemoVisParams vis = DemoVisParams::fromConfig(cfg, names);
//   std::vector<DemoDrawing> drawings = {{keyframe, {{box, vis.labels(scores, names), false}}}};
//   DemoVideoOptions o{"out.mp4", 0, cfg's seq_len / 10, 1, {}};
//   if (!writeDemoVideo(input, drawings, o, &error)) return fail(error);
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/AvaDemoInput.h"

namespace amp::config {
class Config;
}

namespace amp::data {

/// One action drawn on a box: its class index (0-based; it picks the panel's colour) and text.
struct DemoLabel {
  int class_index = 0;
  std::string text;
};

/// A box (x1, y1, x2, y2 normalised to [0, 1]) with its labels.
struct DemoBoxDrawing {
  std::array<double, 4> box{};
  std::vector<DemoLabel> labels;
  bool ground_truth = false;
  /// No outline: the labels of a whole clip, stacked from 5 pixels below the frame's top-left
  /// corner (the classification demo's place for them); `box` is not used.
  bool whole_frame = false;
};

/// What is drawn around one keyframe: on the frames `frame` +- the options' draw_radius, or on
/// first .. last when first >= 0.
struct DemoDrawing {
  std::int64_t frame = 0;
  std::vector<DemoBoxDrawing> boxes;
  std::int64_t first = -1, last = -1;
};

/// Which actions of a box are shown, and how they read.
struct DemoVisParams {
  std::string mode = "thres";  ///< "thres" or "top-k"
  int top_k = 1;
  double common_thres = 0.7, uncommon_thres = 0.3;
  std::set<int> common_classes;  ///< class indices held to common_thres; empty: all of them

  /// DEMO.VIS_MODE, TENSORBOARD.MODEL_VIS.TOPK_PREDS, DEMO.COMMON_CLASS_THRES,
  /// DEMO.UNCOMMON_CLASS_THRES, DEMO.COMMON_CLASS_NAMES looked up in `names` (class index ->
  /// name; without names every class is common, as PySlowFast without DEMO.LABEL_FILE_PATH).
  static DemoVisParams fromConfig(const config::Config& c, const std::map<int, std::string>& names);
  /// The classes a box with these probabilities shows, best first, as "name 0.93" (the class
  /// number when `names` has none).
  std::vector<DemoLabel> labels(const std::vector<float>& scores,
                                const std::map<int, std::string>& names) const;
};

/// Ground-truth action ids (1-based; -1: none) as labels "GT name".
std::vector<DemoLabel> groundTruthLabels(const std::vector<int>& actionIds,
                                         const std::map<int, std::string>& names);

struct DemoVideoOptions {
  std::string output;            ///< the file (its extension picks the container)
  double fps = 0;                ///< 0: the input's rate
  std::int64_t draw_radius = 0;  ///< frames either side of a keyframe that carry its drawing
  int slowmo = 1;                ///< frames with a drawing are written this many times
  /// Called after each frame read (done, total); false stops (the file is removed).
  std::function<bool(std::int64_t done, std::int64_t total)> progress;
};

/// Writes every frame of `input` with `drawings` to options.output (H.264 when FFmpeg has
/// libx264, else MPEG-4; an odd width or height loses its last column or row, as the encoders
/// need even sizes). False with `error` naming the file; a partial file is removed.
[[nodiscard]] bool writeDemoVideo(AvaDemoInput& input, const std::vector<DemoDrawing>& drawings,
                                  const DemoVideoOptions& options, std::string* error);

}  // namespace amp::data
