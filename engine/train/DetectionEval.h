#pragma once
// AVA's evaluation in the trainer and the tester, as PySlowFast's AVAMeter with evaluate_ava:
// every box's class scores with its original (normalised) box and its keyframe, gathered from all
// ranks, turned into detections (one per box and label-map class) and scored by frame-mAP@0.5 IoU
// against AVA.GROUNDTRUTH_FILE, AVA.EXCLUSION_FILE and AVA.LABEL_MAP_FILE in AVA.ANNOTATION_DIR.
//
//   train::BoxScores mine(classes);
//   while (auto b = loader.next()) mine.add(net->forward(inputs, batchBoxes(*b, device)), *b);
//   const auto all = train::gatherBoxScores(mine, ddp);
//   const auto r = train::evaluateBoxScores(cfg, all, *list.ava, /*fullGroundTruth=*/true, csv);
#include <cstdint>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "data/AvaDataset.h"
#include "data/VideoLoader.h"
#include "metrics/AvaEvaluation.h"

namespace amp::config {
class Config;
}

namespace amp::train {

class DataParallel;

/// The boxes one pass scored: per box its class scores, its box as the box list gives it (x1, y1,
/// x2, y2 in [0, 1]) and its keyframe (video index into the AVA list's videos, second).
struct BoxScores {
  explicit BoxScores(std::int64_t classes = 0) : classes(classes) {}
  std::int64_t classes = 0;
  std::vector<float> scores;           ///< boxes x classes
  std::vector<double> ori_boxes;       ///< boxes x 4
  std::vector<std::int64_t> keyframe;  ///< boxes x 2
  std::int64_t boxes() const { return static_cast<std::int64_t>(keyframe.size() / 2); }
  /// Appends a batch's boxes with their scores (`scores`: num_boxes x classes, any device).
  void add(const torch::Tensor& scores, const data::Batch& b);
};

/// Every rank's boxes, in rank order, on every rank (ranks hold different numbers of boxes);
/// `mine` itself with one process.
BoxScores gatherBoxScores(const BoxScores& mine, DataParallel& ddp);

struct DetectionEvalResult {
  metrics::AvaResult ava;  ///< mAP and per-class AP
  std::int64_t boxes = 0, keyframes = 0;
  std::string detections_csv;  ///< where the detections were written ("" when not asked)
};

/// PySlowFast's evaluate_ava on `s`: detections for the label map's classes, against the ground
/// truth of every second (`fullGroundTruth`: the test, or validation with AVA.FULL_TEST_ON_VAL)
/// or of the seconds divisible by 4 (validation otherwise, get_ava_mini_groundtruth), without the
/// excluded keyframes. With `detectionsCsv`, the detections are written there as the AVA CSV.
/// Throws std::runtime_error naming the file when an annotation file cannot be read.
DetectionEvalResult evaluateBoxScores(const config::Config& c, const BoxScores& s,
                                      const data::AvaDataset& ava, bool fullGroundTruth,
                                      const std::string& detectionsCsv = "");

}  // namespace amp::train
