#pragma once
// The AVA action-detection dataset as PySlowFast's Ava dataset loads it (ava_helper.py and
// Ava._load_data): the frames of each video from the frame lists, the person boxes of each
// second from the annotation CSVs (AvaBoxes.h), and the keyframes: every second from 902 to 1798
// with at least one box, its centre frame (second - 900) x 30 in the video's frame list. One
// training or test sample is one keyframe: the clip around its centre frame
// (avaFrameIndices in FrameSampling.h), its boxes and a multi-hot row of actions per box.
//
//   AvaDataset ava;
//   if (!readAvaDataset(AvaSettings::fromConfig(cfg), Split::Train, ava, &error)) fail(error);
//   for (const AvaKeyframe& k : ava.keyframes) use(ava.videos[k.video].frames, k.boxes);
#include <cstdint>
#include <string>
#include <vector>

#include "data/AvaBoxes.h"
#include "data/Dataset.h"

namespace amp::config {
class Config;
}

namespace amp::data {

/// Frames per second of AVA's frame lists (ava_helper.FPS).
inline constexpr int kAvaFps = 30;

/// The AVA.* and MODEL.NUM_CLASSES settings the dataset reads.
struct AvaSettings {
  std::string frame_dir;       ///< AVA.FRAME_DIR: prefix of the frame paths
  std::string frame_list_dir;  ///< AVA.FRAME_LIST_DIR
  std::string annotation_dir;  ///< AVA.ANNOTATION_DIR
  std::vector<std::string> train_lists{"train.csv"}, test_lists{"val.csv"};
  std::vector<std::string> train_gt_box_lists{"ava_train_v2.2.csv"}, train_predict_box_lists,
      test_predict_box_lists{"ava_val_predicted_boxes.csv"};
  double detection_score_thresh = 0.9;
  bool full_test_on_val = false;
  int num_classes = 80;

  static AvaSettings fromConfig(const config::Config& c);
  /// TRAIN_LISTS for training, TEST_LISTS for val and test, each joined to FRAME_LIST_DIR.
  std::vector<std::string> frameListFiles(Split split) const;
  /// Training: TRAIN_GT_BOX_LISTS (ground truth) then TRAIN_PREDICT_BOX_LISTS (scored); val and
  /// test: TEST_PREDICT_BOX_LISTS (scored); each joined to ANNOTATION_DIR.
  std::vector<AvaBoxFile> boxFiles(Split split) const;
  /// The threshold, the class count, and every 4th second for val unless FULL_TEST_ON_VAL.
  AvaBoxOptions boxOptions(Split split) const;
};

struct AvaVideo {
  std::string name;                 ///< original_vido_id of the frame lists
  std::vector<std::string> frames;  ///< paths with AVA.FRAME_DIR joined, in list order
};

/// One sample: a second of a video that has boxes.
struct AvaKeyframe {
  int video = 0;                  ///< index into AvaDataset::videos
  int sec_index = 0;              ///< its place among its video's keyframes
  int second = 0;                 ///< 902 .. 1798 (the eval metadata's timestamp)
  std::int64_t center_frame = 0;  ///< avaSecondToFrame(second)
  std::vector<AvaBox> boxes;      ///< at least one
};

struct AvaDataset {
  std::vector<AvaVideo> videos;  ///< frame-list order: a keyframe's `video` indexes this
  std::vector<AvaKeyframe> keyframes;
  std::int64_t boxes_used = 0;             ///< avaBoxesUsed(keyframes)
  std::int64_t annotations = 0;            ///< labels other than -1 read (the box table's count)
  std::int64_t unique_boxes = 0;           ///< distinct boxes read
  std::int64_t outside_valid_seconds = 0;  ///< rows dropped for a second outside 902 .. 1798
  std::int64_t below_score_thresh = 0;     ///< predicted rows dropped under the score threshold
};

/// PySlowFast's load_image_lists for AVA: each file (header line, then 'original_vido_id
/// video_id frame_id path labels' rows as readFrameList reads them) in order, frames grouped by
/// video in the order videos first appear across the files, paths joined to `frameDir`. False
/// with `error` naming the file and line.
[[nodiscard]] bool readAvaFrameLists(const std::vector<std::string>& files,
                                     const std::string& frameDir, std::vector<AvaVideo>& out,
                                     std::string* error);

/// The frame index of a second in a video's frame list: (second - 900) x 30.
inline std::int64_t avaSecondToFrame(int second) {
  return static_cast<std::int64_t>(second - 900) * kAvaFps;
}

/// get_keyframe_data: for each video in order (`boxes[v]` its boxes, nullptr for none), each
/// second of 902 .. 1798 in ascending order that has boxes.
std::vector<AvaKeyframe> avaKeyframes(const std::vector<const AvaVideoBoxes*>& boxes);

/// get_num_boxes_used: the boxes of all keyframes.
std::int64_t avaBoxesUsed(const std::vector<AvaKeyframe>& keyframes);

/// The whole of Ava._load_data for `split`: frame lists, box lists, keyframes. Every video of
/// the frame lists must have a row in the box lists and the other way round (PySlowFast asserts
/// it); false with `error` naming the video and the files otherwise.
[[nodiscard]] bool readAvaDataset(const AvaSettings& settings, Split split, AvaDataset& out,
                                  std::string* error);

/// The targets of one keyframe as Ava.__getitem__ builds them: boxes x numClasses, 1 at
/// (box, id - 1) for each of the box's action ids, -1 (no action) left out. Ids must be in
/// 1 .. numClasses (readAvaBoxes refuses others when given MODEL.NUM_CLASSES).
std::vector<float> avaTargets(const AvaKeyframe& keyframe, int numClasses);

}  // namespace amp::data
