#pragma once
// AVA's person boxes and their actions, read from its annotation CSVs as PySlowFast's
// ava_helper.parse_bboxes_file reads them. A row is
//
//   video_id,second,x1,y1,x2,y2,action_id[,score]
//   -5KQ66BBWC4,0902,0.077,0.151,0.283,0.811,80,1
//
// with the box normalised to [0, 1]. Rows of one person at one second (the same four coordinate
// fields, as written) become one box with the union of their actions; a row with no action_id
// (predicted boxes of people doing nothing listed) adds -1. Predicted-box files carry a
// detection score in column 8, and rows scoring under the threshold are dropped.
//
//   AvaBoxTable table;
//   if (!readAvaBoxes({{dir + "/ava_train_v2.2.csv", true}}, {0.8, 1, 80}, table, &error))
//     return fail(error);
//   for (const AvaVideoBoxes& v : table.videos) use(v.name, v.seconds);
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace amp::data {

/// The seconds of a 15-minute AVA clip that have keyframes: 902 .. 1798 (AVA_VALID_FRAMES).
inline constexpr int kAvaFirstSecond = 902;
inline constexpr int kAvaLastSecond = 1798;

/// One person's box at one second and its actions.
struct AvaBox {
  std::array<double, 4> box{};  ///< x1, y1, x2, y2 as written (normalised to [0, 1])
  std::string key;              ///< the four coordinate fields joined with ',' (the identity)
  std::vector<int> labels;      ///< AVA action ids (1-based) in file order; -1: no action
};

/// One annotation file and whether its rows are ground truth (no score column read) or
/// predicted boxes (column 8 is the detection score).
struct AvaBoxFile {
  std::string path;
  bool ground_truth = true;
};

struct AvaVideoBoxes {
  std::string name;
  /// Boxes per second (902 .. 1798 only), each second's boxes in order of first appearance.
  std::map<int, std::vector<AvaBox>> seconds;
};

struct AvaBoxOptions {
  double detection_score_thresh = 0.9;  ///< AVA.DETECTION_SCORE_THRESH (predicted files only)
  /// Keep the seconds divisible by this (4 for validation without AVA.FULL_TEST_ON_VAL).
  int seconds_sample_rate = 1;
  /// MODEL.NUM_CLASSES: action ids above it are refused (0: no upper bound).
  int num_classes = 0;
};

struct AvaBoxTable {
  std::vector<AvaVideoBoxes> videos;  ///< in the order of their first row
  std::int64_t annotations = 0;       ///< labels other than -1 (PySlowFast's "annotations")
  std::int64_t unique_boxes = 0;      ///< distinct (video, second, box) triples
  /// Rows kept by score and sampling whose second is outside 902 .. 1798: dropped, counted.
  std::int64_t outside_valid_seconds = 0;
  /// Rows of predicted-box files scoring under the detection threshold: dropped, counted (what
  /// `data check` reports; PySlowFast drops them silently).
  std::int64_t below_score_thresh = 0;
  /// The video named `name`; nullptr when no row names it.
  const AvaVideoBoxes* find(const std::string& name) const;
};

/// Reads `files` in order into `out`. A video appears once a row of it passes the score and
/// sampling filters (even when its second is outside the valid range, as in PySlowFast). False
/// with `error` as "file:line: what is wrong" for the first malformed row (and how many more
/// there are): too few fields, a second that is not an integer, a coordinate or score that is
/// not a number (or a coordinate that is not finite), an action id other than -1 or 1 ..
/// num_classes; or "file: why" when a file cannot be read.
[[nodiscard]] bool readAvaBoxes(const std::vector<AvaBoxFile>& files, const AvaBoxOptions& options,
                                AvaBoxTable& out, std::string* error);

}  // namespace amp::data
