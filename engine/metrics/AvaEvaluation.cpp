#include "metrics/AvaEvaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "metrics/PascalAveragePrecision.h"

namespace amp::metrics {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// np.minimum / np.maximum: a NaN on either side is the result (std::min and std::max would
// drop it depending on the side, and numpy's IoU of a NaN box is NaN).
double npMin(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : a < b ? a : b;
}
double npMax(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : a < b ? b : a;
}

// np_box_ops.iou of two boxes, with numpy's operations in numpy's order (y before x, the union
// as (area1 + area2) - intersection), so a value at the 0.5 threshold falls on the same side.
double iou(const AvaBox& d, const AvaBox& g) {
  const double h = npMax(0.0, npMin(d.y2, g.y2) - npMax(d.y1, g.y1));
  const double w = npMax(0.0, npMin(d.x2, g.x2) - npMax(d.x1, g.x1));
  const double intersection = h * w;
  const double areaD = (d.y2 - d.y1) * (d.x2 - d.x1);
  const double areaG = (g.y2 - g.y1) * (g.x2 - g.x1);
  return intersection / (areaD + areaG - intersection);
}

bool byAction(const AvaBox& a, const AvaBox& b) {
  return a.action < b.action;
}

}  // namespace

AvaEvaluation::AvaEvaluation(const std::vector<AvaClass>& labelMap) {
  if (labelMap.empty()) throw std::invalid_argument("AvaEvaluation: the label map is empty");
  for (const AvaClass& c : labelMap) {
    if (c.id < 1 || c.id > kAvaMaxClassId)
      throw std::invalid_argument("AvaEvaluation: class id " + std::to_string(c.id) +
                                  " outside [1, " + std::to_string(kAvaMaxClassId) + "]");
    maxId_ = std::max(maxId_, c.id);
  }
  inLabelMap_.assign(static_cast<std::size_t>(maxId_) + 1, 0);
  names_.assign(static_cast<std::size_t>(maxId_) + 1, "");
  for (const AvaClass& c : labelMap) {
    inLabelMap_[static_cast<std::size_t>(c.id)] = 1;
    names_[static_cast<std::size_t>(c.id)] = c.name;  // the last of a repeated id
  }
}

bool AvaEvaluation::addGroundTruthImage(const std::string& key, const std::vector<AvaBox>& boxes) {
  if (excluded_.count(key)) {
    ++excludedGroundTruth_;
    return false;
  }
  if (groundTruth_.count(key)) return false;
  Image& image = groundTruth_[key];
  for (const AvaBox& b : boxes)
    if (b.action >= 1 && b.action <= maxId_ && inLabelMap_[static_cast<std::size_t>(b.action)])
      image.boxes.push_back(b);
  // Grouped by class for the matching; a class keeps its file order (argmax takes the first).
  std::stable_sort(image.boxes.begin(), image.boxes.end(), byAction);
  return true;
}

bool AvaEvaluation::addDetectedImage(const std::string& key, const std::vector<AvaBox>& boxes) {
  if (excluded_.count(key)) {
    ++excludedDetections_;
    return false;
  }
  if (!detectionIndex_.emplace(key, detections_.size()).second) return false;
  std::vector<AvaBox> kept;
  for (const AvaBox& b : boxes)
    if (b.action >= 1 && b.action <= maxId_ && inLabelMap_[static_cast<std::size_t>(b.action)])
      kept.push_back(b);
  detections_.emplace_back(key, std::move(kept));
  return true;
}

AvaResult AvaEvaluation::evaluate() const {
  const std::size_t ids = static_cast<std::size_t>(maxId_) + 1;
  std::vector<std::int64_t> groundTruthBoxes(ids, 0);
  for (const auto& [key, image] : groundTruth_)
    for (const AvaBox& b : image.boxes) ++groundTruthBoxes[static_cast<std::size_t>(b.action)];

  // Per class, each scored detection's score and whether it is a true positive, keyframes in the
  // order they were added (the ranking's ties depend on it).
  std::vector<std::vector<double>> scores(ids);
  std::vector<std::vector<std::uint8_t>> truePositive(ids);
  static const std::vector<AvaBox> kNone;
  std::vector<AvaBox> valid;
  std::vector<std::uint8_t> taken;
  for (const auto& [key, boxes] : detections_) {
    const auto gt = groundTruth_.find(key);
    const std::vector<AvaBox>& truth = gt == groundTruth_.end() ? kNone : gt->second.boxes;
    valid.clear();
    for (const AvaBox& b : boxes)
      if (b.y1 < b.y2 && b.x1 < b.x2) valid.push_back(b);  // _remove_invalid_boxes
    std::stable_sort(valid.begin(), valid.end(), byAction);
    for (auto from = valid.begin(); from != valid.end();) {
      const int action = from->action;
      const auto to = std::upper_bound(from, valid.end(), *from, byAction);
      const auto [gtFrom, gtTo] = std::equal_range(truth.begin(), truth.end(), *from, byAction);
      taken.assign(static_cast<std::size_t>(gtTo - gtFrom), 0);
      auto& classScores = scores[static_cast<std::size_t>(action)];
      auto& classTp = truePositive[static_cast<std::size_t>(action)];
      for (auto d = from; d != to; ++d) {
        bool tp = false;
        if (!taken.empty()) {
          // np.argmax over the row: the first NaN if there is one, else the first maximum.
          std::size_t best = 0;
          double bestIou = iou(*d, *gtFrom);
          for (std::size_t j = 1; j < taken.size() && !std::isnan(bestIou); ++j) {
            const double v = iou(*d, *(gtFrom + static_cast<std::ptrdiff_t>(j)));
            if (std::isnan(v) || v > bestIou) best = j, bestIou = v;
          }
          if (bestIou >= kIouThreshold && !taken[best]) tp = true, taken[best] = 1;
        }
        classScores.push_back(d->score);
        classTp.push_back(tp ? 1 : 0);
      }
      from = to;
    }
  }

  AvaResult r;
  std::vector<double> ap(static_cast<std::size_t>(maxId_), kNaN);  // class id - 1, as ActivityNet
  for (std::size_t id = 1; id < ids; ++id) {
    if (groundTruthBoxes[id] == 0) continue;
    ap[id - 1] = pascalAveragePrecision(scores[id], truePositive[id], groundTruthBoxes[id]);
    ++r.classes_with_groundtruth;
  }
  r.map = numpyNanMean(ap);
  for (std::size_t id = 1; id < ids; ++id) {
    if (!inLabelMap_[id]) continue;
    AvaClassResult c;
    c.id = static_cast<int>(id);
    c.name = names_[id];
    c.ap = ap[id - 1];
    c.groundtruth_boxes = groundTruthBoxes[id];
    c.detections = static_cast<std::int64_t>(scores[id].size());
    r.classes.push_back(std::move(c));
  }
  r.groundtruth_images = static_cast<std::int64_t>(groundTruth_.size());
  r.detection_images = static_cast<std::int64_t>(detections_.size());
  r.excluded_groundtruth_images = excludedGroundTruth_;
  r.excluded_detection_images = excludedDetections_;
  return r;
}

std::optional<AvaResult> AvaEvaluation::evaluateFiles(const AvaFiles& files, std::string* error) {
  const auto labelMap = readAvaLabelMap(files.labelMap, error);
  if (!labelMap) return std::nullopt;
  std::set<std::string> excluded;
  if (!files.exclusions.empty()) {
    auto read = readAvaExclusions(files.exclusions, error);
    if (!read) return std::nullopt;
    excluded = std::move(*read);
  }
  std::set<int> classes;
  for (const AvaClass& c : *labelMap) classes.insert(c.id);
  const auto groundTruth = readAvaGroundTruth(files.groundTruth, classes, error);
  if (!groundTruth) return std::nullopt;
  const auto detections = readAvaDetections(files.detections, classes, error);
  if (!detections) return std::nullopt;

  AvaEvaluation eval(*labelMap);
  eval.setExcludedKeys(std::move(excluded));
  // The readers group rows by key, so no key comes twice; excluded ones are counted.
  for (const AvaImage& image : *groundTruth) eval.addGroundTruthImage(image.key, image.boxes);
  for (const AvaImage& image : *detections) eval.addDetectedImage(image.key, image.boxes);
  return eval.evaluate();
}

}  // namespace amp::metrics
