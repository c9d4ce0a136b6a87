// ampstudio-cli eval ava: AVA's frame-mAP@0.5IOU of a detections file, as PySlowFast's
// ava_eval_helper.evaluate_ava_from_files computes it (engine/metrics/AvaEvaluation).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "Commands.h"
#include "metrics/AvaEvaluation.h"

namespace amp::cli {
namespace {

struct AvaArgs {
  metrics::AvaFiles files;
  bool json = false;
};

// "0.1234", or "-" for a class without groundtruth (NaN: not part of the mean).
std::string apText(double ap, int digits) {
  if (std::isnan(ap)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, ap);
  return buf;
}

nlohmann::json toJson(const metrics::AvaResult& r) {
  using nlohmann::json;
  // NaN has no JSON spelling: a class without groundtruth (and a mean over none) is null.
  auto number = [](double v) { return std::isnan(v) ? json(nullptr) : json(v); };
  json classes = json::array();
  for (const auto& c : r.classes)
    classes.push_back({{"id", c.id},
                       {"name", c.name},
                       {"ap", number(c.ap)},
                       {"groundtruth_boxes", c.groundtruth_boxes},
                       {"detections", c.detections}});
  return {{"metric", "PascalBoxes_Precision/mAP@0.5IOU"},
          {"map", number(r.map)},
          {"classes_with_groundtruth", r.classes_with_groundtruth},
          {"label_map_classes", r.classes.size()},
          {"groundtruth_images", r.groundtruth_images},
          {"detection_images", r.detection_images},
          {"excluded_groundtruth_images", r.excluded_groundtruth_images},
          {"excluded_detection_images", r.excluded_detection_images},
          {"classes", classes}};
}

void printTable(const metrics::AvaResult& r) {
  std::cout << "PascalBoxes_Precision/mAP@0.5IOU: "
            << (std::isnan(r.map) ? "nan" : apText(r.map, 6)) << " (mean over the "
            << r.classes_with_groundtruth << " of " << r.classes.size()
            << " label map classes with groundtruth)\n";
  std::cout << "keyframes: " << r.groundtruth_images << " with groundtruth ("
            << r.excluded_groundtruth_images << " excluded), " << r.detection_images
            << " with detections (" << r.excluded_detection_images << " excluded)\n\n";
  char line[96];
  std::snprintf(line, sizeof line, "%6s  %-8s  %9s  %10s  ", "id", "AP", "GT boxes", "detections");
  std::cout << line << "name\n";
  for (const auto& c : r.classes) {
    std::snprintf(line, sizeof line, "%6d  %-8s  %9lld  %10lld  ", c.id, apText(c.ap, 4).c_str(),
                  static_cast<long long>(c.groundtruth_boxes),
                  static_cast<long long>(c.detections));
    std::cout << line << c.name << "\n";
  }
  if (r.classes_with_groundtruth < static_cast<int>(r.classes.size()))
    std::cout << "\n'-': no groundtruth box, so no AP (NaN in PySlowFast); left out of the mean\n";
}

int runAva(const AvaArgs& a) {
  std::string error;
  const auto result = metrics::AvaEvaluation::evaluateFiles(a.files, &error);
  if (!result) {
    std::cerr << "eval ava: " << error << "\n";
    return 1;
  }
  if (std::isnan(result->map))
    std::cerr << "eval ava: warning: no class of the label map has a groundtruth box in "
              << a.files.groundTruth << ", so the mAP is NaN (as PySlowFast's)\n";
  if (a.json)
    std::cout << toJson(*result).dump(2) << "\n";
  else
    printTable(*result);
  return 0;
}

}  // namespace

void addEvalCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<AvaArgs>();
  CLI::App* eval = app.add_subcommand("eval", "Evaluate predictions written to files");
  eval->require_subcommand(1);
  CLI::App* ava = eval->add_subcommand(
      "ava",
      "AVA action detection: frame-mAP at IoU 0.5 and the AP of each class, as PySlowFast's "
      "ava_eval_helper (ActivityNet's PascalDetectionEvaluator) computes them");
  // No CLI11 ExistingFile checks: the readers name a missing or unreadable file themselves, and
  // every bad input ends the same way (exit 1 with the file and line).
  ava->add_option("--labelmap", args->files.labelMap,
                  "Label map (.pbtxt): item { name: \"...\" id: N } or label { ... label_id: N }")
      ->required();
  ava->add_option("--groundtruth", args->files.groundTruth,
                  "Groundtruth CSV: video,second,x1,y1,x2,y2,action[,person_id]")
      ->required();
  ava->add_option("--detections", args->files.detections,
                  "Detections CSV: video,second,x1,y1,x2,y2,action,score")
      ->required();
  ava->add_option("--exclusions", args->files.exclusions,
                  "Excluded keyframes CSV: video,second (dropped from both files)");
  ava->add_flag("--json", args->json, "Print the result as one JSON object (null for NaN)");
  ava->callback([args, &exitCode] { exitCode = runAva(*args); });
}

}  // namespace amp::cli
