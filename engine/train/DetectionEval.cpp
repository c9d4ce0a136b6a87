#include "train/DetectionEval.h"

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "config/Config.h"
#include "metrics/AvaCsv.h"
#include "metrics/AvaLabelMap.h"
#include "train/DataParallel.h"

namespace amp::train {

void BoxScores::add(const torch::Tensor& batchScores, const data::Batch& b) {
  const auto s = batchScores.detach().to(torch::kCPU, torch::kFloat).contiguous();
  if (s.dim() != 2 || s.size(0) != b.num_boxes || s.size(1) != classes)
    throw std::runtime_error("detection scores of shape " + std::to_string(s.size(0)) + " x " +
                             std::to_string(s.dim() == 2 ? s.size(1) : 0) + " for " +
                             std::to_string(b.num_boxes) + " boxes of " + std::to_string(classes) +
                             " classes");
  scores.insert(scores.end(), s.data_ptr<float>(), s.data_ptr<float>() + s.numel());
  ori_boxes.insert(ori_boxes.end(), b.ori_boxes.begin(), b.ori_boxes.end());
  keyframe.insert(keyframe.end(), b.box_meta.begin(), b.box_meta.end());
}

BoxScores gatherBoxScores(const BoxScores& mine, DataParallel& ddp) {
  if (!ddp.active() || ddp.worldSize() == 1) return mine;
  // Rows of the same width from every rank: each rank fills its own block of a zero tensor as
  // long as the largest share, and a sum over the ranks puts every block on every rank.
  const int world = ddp.worldSize(), rank = ddp.rank();
  auto counts = torch::zeros({world}, torch::kDouble);
  counts[rank] = static_cast<double>(mine.boxes());
  ddp.sumInPlace(counts, "boxes scored per process");
  const auto most = static_cast<std::int64_t>(counts.max().item<double>());
  const std::int64_t width = mine.classes + 6;
  auto rows = torch::zeros({world, most, width}, torch::kDouble);
  auto r = rows.accessor<double, 3>();
  for (std::int64_t i = 0; i < mine.boxes(); ++i) {
    for (std::int64_t k = 0; k < mine.classes; ++k)
      r[rank][i][k] = mine.scores[static_cast<size_t>(i * mine.classes + k)];
    for (int j = 0; j < 4; ++j)
      r[rank][i][mine.classes + j] = mine.ori_boxes[static_cast<size_t>(i * 4 + j)];
    for (int j = 0; j < 2; ++j)
      r[rank][i][mine.classes + 4 + j] =
          static_cast<double>(mine.keyframe[static_cast<size_t>(i * 2 + j)]);
  }
  ddp.sumInPlace(rows, "detection scores, boxes and keyframes");
  BoxScores all(mine.classes);
  for (int p = 0; p < world; ++p)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(counts[p].item<double>()); ++i) {
      for (std::int64_t k = 0; k < mine.classes; ++k)
        all.scores.push_back(static_cast<float>(r[p][i][k]));
      for (int j = 0; j < 4; ++j) all.ori_boxes.push_back(r[p][i][mine.classes + j]);
      for (int j = 0; j < 2; ++j)
        all.keyframe.push_back(
            static_cast<std::int64_t>(std::llround(r[p][i][mine.classes + 4 + j])));
    }
  return all;
}

namespace {

std::string annotationFile(const config::Config& c, const char* key) {
  return (std::filesystem::path(c.getString("AVA.ANNOTATION_DIR")) / c.getString(key)).string();
}

template <typename T>
T orThrow(std::optional<T> value, const char* key, const std::string& error) {
  if (!value) throw std::runtime_error(std::string(key) + ": " + error);
  return std::move(*value);
}

// The second of an image key "video,0902".
std::int64_t keySecond(const std::string& key) {
  const auto comma = key.rfind(',');
  try {
    return comma == std::string::npos ? -1 : std::stoll(key.substr(comma + 1));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

DetectionEvalResult evaluateBoxScores(const config::Config& c, const BoxScores& s,
                                      const data::AvaDataset& ava, bool fullGroundTruth,
                                      const std::string& detectionsCsv) {
  std::string error;
  const auto labelMap =
      orThrow(metrics::readAvaLabelMap(annotationFile(c, "AVA.LABEL_MAP_FILE"), &error),
              "AVA.LABEL_MAP_FILE", error);
  std::set<int> classes;
  for (const auto& k : labelMap) classes.insert(k.id);
  const auto truth = orThrow(
      metrics::readAvaGroundTruth(annotationFile(c, "AVA.GROUNDTRUTH_FILE"), classes, &error),
      "AVA.GROUNDTRUTH_FILE", error);
  const auto excluded =
      orThrow(metrics::readAvaExclusions(annotationFile(c, "AVA.EXCLUSION_FILE"), &error),
              "AVA.EXCLUSION_FILE", error);

  metrics::AvaEvaluation eval(labelMap);
  eval.setExcludedKeys(excluded);
  for (const auto& image : truth)
    if (fullGroundTruth || keySecond(image.key) % 4 == 0)
      eval.addGroundTruthImage(image.key, image.boxes);

  // get_ava_eval_data: per box, one detection for each label-map class (ascending), keyframes in
  // the order their first box comes (the matching takes detections in that order).
  std::vector<metrics::AvaImage> detections;
  std::map<std::string, std::size_t> where;
  for (std::int64_t i = 0; i < s.boxes(); ++i) {
    const auto video = s.keyframe[static_cast<size_t>(2 * i)];
    if (video < 0 || video >= static_cast<std::int64_t>(ava.videos.size()))
      throw std::runtime_error("detection of a box of video " + std::to_string(video) +
                               ", which the AVA list does not hold");
    const std::string key = metrics::avaImageKey(ava.videos[static_cast<size_t>(video)].name,
                                                 s.keyframe[static_cast<size_t>(2 * i + 1)]);
    auto [it, added] = where.emplace(key, detections.size());
    if (added) detections.push_back({key, {}});
    auto& boxes = detections[it->second].boxes;
    const double* b = &s.ori_boxes[static_cast<size_t>(4 * i)];
    for (const int id : classes) {
      if (id < 1 || id > s.classes) continue;  // a label-map class the head does not score
      boxes.push_back({b[0], b[1], b[2], b[3], id,
                       static_cast<double>(s.scores[static_cast<size_t>(i * s.classes + id - 1)])});
    }
  }
  for (const auto& image : detections) eval.addDetectedImage(image.key, image.boxes);

  DetectionEvalResult out;
  out.ava = eval.evaluate();
  out.boxes = s.boxes();
  out.keyframes = static_cast<std::int64_t>(detections.size());
  if (!detectionsCsv.empty()) {
    if (!metrics::writeAvaCsv(detectionsCsv, detections, &error)) throw std::runtime_error(error);
    out.detections_csv = detectionsCsv;
  }
  return out;
}

}  // namespace amp::train
