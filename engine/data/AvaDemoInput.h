#pragma once
// The input of PySlowFast's AVA demo with precomputed boxes (ava_demo_precomputed_boxes.py): a
// video file or a folder of its frames (DEMO.INPUT_VIDEO; a folder's rate is DEMO.FPS), and the
// person boxes of that video's keyframes read from an AVA box CSV (DEMO.PREDS_BOXES, rows under
// AVA.DETECTION_SCORE_THRESH dropped; DEMO.GT_BOXES, ground truth with its actions). A box file's
// second s is frame round((s - DEMO.STARTING_SECOND) x fps) of the input, as load_boxes_labels
// maps it (PySlowFast multiplies without rounding, which only works for whole rates).
//
//   AvaDemoInput input;
//   if (!input.open("clip.mp4", /*folderFps=*/30, &error)) return fail(error);
//   DemoKeyframes boxes;
//   if (!readDemoKeyframes({"boxes.csv", false}, input, {0.8, 1, 80}, 900, boxes, &error))
//     return fail(error);
//   DecodedClip clip;  // B, G, R as OpenCV reads them
//   if (!input.read({0, 8, 16}, clip, &error)) return fail(error);
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/AvaBoxes.h"
#include "data/VideoDecoder.h"

namespace amp::data {

class AvaDemoInput {
 public:
  AvaDemoInput();
  ~AvaDemoInput();
  AvaDemoInput(const AvaDemoInput&) = delete;
  AvaDemoInput& operator=(const AvaDemoInput&) = delete;

  /// Opens a video file, or a folder of JPEG frames (its *.jpg files in name order) played at
  /// `folderFps`. False with `error` naming the path.
  [[nodiscard]] bool open(const std::string& path, double folderFps, std::string* error);
  /// The video's name in box files: a file's name up to its first '.', or the folder's name.
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  bool isFolder() const { return !frames_.empty(); }
  double fps() const { return fps_; }
  std::int64_t frameCount() const { return count_; }
  int width() const { return width_; }
  int height() const { return height_; }

  /// The frames at `indices` (each in 0 .. frameCount() - 1) at their own size, B, G, R. False
  /// with `error` naming the input (or the frame file).
  [[nodiscard]] bool read(const std::vector<std::int64_t>& indices, DecodedClip& out,
                          std::string* error);

 private:
  std::string path_, name_;
  std::vector<std::string> frames_;
  std::unique_ptr<VideoDecoder> decoder_;
  double fps_ = 0;
  std::int64_t count_ = 0;
  int width_ = 0, height_ = 0;
};

/// One keyframe of the input and its boxes (AvaBox: normalised box, action ids; -1 none).
struct DemoKeyframe {
  int second = 0;
  std::int64_t frame = 0;
  std::vector<AvaBox> boxes;
};

struct DemoKeyframes {
  std::vector<DemoKeyframe> keyframes;  ///< in time order
  std::int64_t boxes = 0;
  /// Keyframes the file names whose frame lies outside the input (dropped, counted).
  std::int64_t outside_input = 0;
  std::int64_t below_score_thresh = 0;  ///< predicted rows under the threshold (dropped)
};

/// The keyframes of `input` in `file` (a video the file does not name is an error that lists the
/// names it has, so a renamed input is found). False with `error` "file: why" or
/// "file:line: why" (readAvaBoxes).
[[nodiscard]] bool readDemoKeyframes(const AvaBoxFile& file, const AvaDemoInput& input,
                                     const AvaBoxOptions& options, int startingSecond,
                                     DemoKeyframes& out, std::string* error);

}  // namespace amp::data
