#pragma once
// AVA's frame-mAP at IoU 0.5, as PySlowFast computes it (utils/ava_eval_helper.py run_evaluation
// with ActivityNet's PascalDetectionEvaluator, "PascalBoxes_Precision/mAP@0.5IOU"):
//
// - Per keyframe and class, detections are matched in their order in the file (not by score) to
//   the groundtruth box of that class they overlap most (the first on a tie); IoU >= 0.5 on a box
//   not yet taken is a true positive, anything else a false positive (a second detection of a
//   box included). Detection boxes with y1 >= y2 or x1 >= x2 are dropped; a keyframe without
//   groundtruth makes all its detections false positives. Difficult and group-of flags are all
//   false in AVA, so they play no part.
// - Per class, the VOC area under the interpolated precision-recall curve
//   (pascalAveragePrecision) over all keyframes; NaN for a class with no groundtruth box, which
//   the mean then skips (np.nanmean; ActivityNet only logs those classes, at INFO).
// - Excluded keyframes are dropped from groundtruth and detections alike.
//
//   AvaEvaluation eval(*readAvaLabelMap(labelMapPath, &error));
//   eval.setExcludedKeys(*readAvaExclusions(exclusionsPath, &error));
//   for (AvaImage& image : groundTruth) eval.addGroundTruthImage(image.key, image.boxes);
//   for (AvaImage& image : detections) eval.addDetectedImage(image.key, image.boxes);
//   const AvaResult r = eval.evaluate();  // r.map, r.classes[i].ap
//
// or all of it from files: AvaEvaluation::evaluateFiles(files, &error).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "metrics/AvaCsv.h"
#include "metrics/AvaLabelMap.h"

namespace amp::metrics {

struct AvaClassResult {
  int id = 0;
  std::string name;  ///< the label map's (the last one for a repeated id)
  double ap = 0;     ///< NaN when the class has no groundtruth box
  std::int64_t groundtruth_boxes = 0;
  std::int64_t detections = 0;  ///< scored detections (valid boxes, not excluded)
};

struct AvaResult {
  /// PascalBoxes_Precision/mAP@0.5IOU: the mean AP over the classes with groundtruth; NaN when
  /// no class has any (numpy's nanmean of all-NaN).
  double map = 0;
  std::vector<AvaClassResult> classes;  ///< one per label map id, ascending
  int classes_with_groundtruth = 0;
  std::int64_t groundtruth_images = 0, detection_images = 0;  ///< keyframes taken
  std::int64_t excluded_groundtruth_images = 0, excluded_detection_images = 0;
};

/// The files of evaluate_ava_from_files; `exclusions` may be "" (none).
struct AvaFiles {
  std::string labelMap, groundTruth, detections, exclusions;
};

class AvaEvaluation {
 public:
  static constexpr double kIouThreshold = 0.5;

  /// Throws std::invalid_argument for an empty label map or an id outside [1, kAvaMaxClassId]
  /// (readAvaLabelMap refuses both, so only a caller's own list can hold them).
  explicit AvaEvaluation(const std::vector<AvaClass>& labelMap);

  /// Keyframes whose groundtruth and detections are dropped (run_evaluation's excluded_keys).
  void setExcludedKeys(std::set<std::string> keys) { excluded_ = std::move(keys); }

  /// The groundtruth boxes of one keyframe ("video,%04d"). Boxes of a class outside the label
  /// map are ignored (read_csv's class filter). False, and nothing added, when the key is
  /// excluded or already has groundtruth (ActivityNet refuses an image added twice).
  bool addGroundTruthImage(const std::string& key, const std::vector<AvaBox>& boxes);
  /// The detections of one keyframe, in their order (the order of matching). False, and nothing
  /// added, when the key is excluded or already has detections (ActivityNet ignores the second).
  bool addDetectedImage(const std::string& key, const std::vector<AvaBox>& boxes);

  AvaResult evaluate() const;

  /// evaluate_ava_from_files: the label map, the exclusions, then groundtruth and detections
  /// filtered to the label map's classes, evaluated. nullopt with `error` naming the file and
  /// line of the first problem.
  [[nodiscard]] static std::optional<AvaResult> evaluateFiles(const AvaFiles& files,
                                                              std::string* error);

 private:
  struct Image {
    std::vector<AvaBox> boxes;  ///< groundtruth: stably sorted by class
  };
  int maxId_ = 0;
  std::vector<std::uint8_t> inLabelMap_;  ///< by id, [0, maxId_]
  std::vector<std::string> names_;        ///< by id
  std::set<std::string> excluded_;
  std::unordered_map<std::string, Image> groundTruth_;
  std::vector<std::pair<std::string, std::vector<AvaBox>>> detections_;  ///< in the order added
  std::unordered_map<std::string, std::size_t> detectionIndex_;
  std::int64_t excludedGroundTruth_ = 0, excludedDetections_ = 0;
};

}  // namespace amp::metrics
