#pragma once
// A clip as a TensorBoard video, as PySlowFast's visualisation run writes one: the frames (the
// normalisation undone, or Grad-CAM's overlay) with the model's top classes drawn in the top-left
// corner of every frame (VideoVisualizer.draw_clip in "top-k" mode: "[0.93] name" panels stacked
// down from 5 pixels below the top, each in the colour TENSORBOARD.MODEL_VIS.COLORMAP gives its
// class at class / NUM_CLASSES, at half opacity, white text), then an animated GIF at 4 frames a
// second in an image summary (SummaryWriter.add_video). The text is FreeType's (data/FrameCanvas);
// without a font the frames go without it and fontProblem() says why. Torch-free.
//
//   std::string error;
//   auto video = vis::ClipVideo::open("Pastel2", classes, names, &error);
//   if (!video) return fail(error);
//   runlog::TensorBoardImage summary;
//   if (!video->encode(frames, t, h, w, scores, 1, "Input 0/Pathway 1", summary, &error)) ...
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/FrameCanvas.h"
#include "runlog/TensorBoardWriter.h"
#include "vis/ColourMap.h"

namespace amp::vis {

/// SummaryWriter.add_video's default rate, which PySlowFast keeps.
inline constexpr int kVideoFps = 4;

/// One drawn class: its index, the text of its panel.
struct ClipLabel {
  int class_index = 0;
  std::string text;
};

/// The `k` best of `scores` (ties in class order), as "[0.93] name" (the class number when
/// `names` has none).
std::vector<ClipLabel> topLabels(const std::vector<float>& scores, int k,
                                 const std::map<int, std::string>& names);

class ClipVideo {
 public:
  /// `colormap`: TENSORBOARD.MODEL_VIS.COLORMAP; nullptr with `error` naming the key for a map
  /// that is not built here.
  static std::unique_ptr<ClipVideo> open(const std::string& colormap, int classes,
                                         std::map<int, std::string> names, std::string* error);
  /// `frames` (T x H x W x 3 RGB, drawn on in place) with `labels` drawn, as a GIF summary
  /// tagged `tag`. False with `error` from the GIF encoder (a build without FFmpeg says so).
  [[nodiscard]] bool encode(std::vector<std::uint8_t>& frames, int t, int h, int w,
                            const std::vector<ClipLabel>& labels, const std::string& tag,
                            runlog::TensorBoardImage& out, std::string* error);
  const std::map<int, std::string>& names() const { return names_; }
  /// Why no text is drawn ("" when it is).
  const std::string& fontProblem() const { return fontProblem_; }

 private:
  ClipVideo() = default;
  const ColourMap* colours_ = nullptr;
  int classes_ = 1;
  std::map<int, std::string> names_;
  std::unique_ptr<data::TextFont> font_;
  int fontPixels_ = 0;
  std::string fontProblem_;
};

}  // namespace amp::vis
