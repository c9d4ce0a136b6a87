// ampstudio-cli predict: the multi-view test protocol on videos given by path, with class names.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <regex>

#include "CliConfig.h"
#include "Commands.h"
#include "PredictBoxes.h"
#include "config/Config.h"
#include "train/Tester.h"

namespace amp::cli {
namespace {

int runPredict(PredictBoxesArgs a, const std::vector<std::string>& args) {
  const std::string& cfgPath = a.cfgPath;
  const std::string& checkpoint = a.checkpoint;
  const std::string& labels = a.labels;
  const bool json = a.json;
  const int threads = a.threads;
  // Positional arguments are videos, except KEY VALUE pairs (a KEY looks like
  // TEST.NUM_SPATIAL_CROPS).
  static const std::regex key("^[A-Z][A-Z0-9_]*(\\.[A-Z0-9_]+)*$");
  std::vector<std::string> videos, overrides;
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::regex_match(args[i], key) && i + 1 < args.size()) {
      overrides.push_back(args[i]);
      overrides.push_back(args[++i]);
    } else if (args[i].rfind("-", 0) == 0 && !std::filesystem::exists(args[i])) {
      std::cerr << "predict: unknown option " << args[i] << " (see ampstudio-cli predict --help)\n";
      return 2;
    } else {
      videos.push_back(args[i]);
    }
  }
  auto cfg = loadConfigForCommand(cfgPath, overrides);
  if (!cfg) return 2;
  const bool detection = cfg->getBool("DETECTION.ENABLE");
  if (videos.empty() && detection && !cfg->getString("DEMO.INPUT_VIDEO").empty())
    videos.push_back(cfg->getString("DEMO.INPUT_VIDEO"));
  if (videos.empty()) {
    std::cerr << "predict: give at least one video file"
              << (detection ? " or folder of frames (or DEMO.INPUT_VIDEO)" : "") << "\n";
    return 2;
  }
  if (detection) return runPredictBoxes(*cfg, a, videos);
  for (const char* key : {"DEMO.INPUT_VIDEO", "DEMO.OUTPUT_FILE", "DEMO.PREDS_BOXES"})
    if (!cfg->getString(key).empty())
      std::cerr << cfgPath << ": warning: " << key
                << " is read by ampstudio-cli demo (the classification demo video); predict "
                   "ignores it here\n";
  if (!a.boxes.empty() || !a.gtBoxes.empty() || !a.detections.empty() || !a.output.empty()) {
    std::cerr << cfgPath
              << ": --boxes, --gt-boxes, --detections and --output are for detection (AVA) "
                 "configs (DETECTION.ENABLE True); this config classifies whole clips (its "
                 "video with the classes drawn: ampstudio-cli demo --output)\n";
    return 2;
  }
  const auto loaded = classNamesForCommand(*cfg, labels, cfgPath);
  if (!loaded) return 2;
  const std::map<int, std::string>& names = *loaded;
  std::string error;
  std::vector<train::Prediction> out;
  if (!train::predictVideos(*cfg, checkpoint, videos, out, &error, threads)) {
    std::cerr << cfgPath << ": " << error << "\n";
    return 1;
  }
  int failed = 0;
  if (json) {  // for the studio's Predict tab and scripts
    nlohmann::json j = {
        {"config", cfgPath}, {"checkpoint", checkpoint}, {"videos", nlohmann::json::array()}};
    for (const auto& p : out) {
      nlohmann::json v = {{"video", p.video},
                          {"views", p.views},
                          {"seconds", p.seconds},
                          {"top", nlohmann::json::array()}};
      if (!p.error.empty()) {
        ++failed;
        v["error"] = p.error;
      }
      for (const auto& [cls, prob] : p.top) {
        const auto name = names.find(cls);
        v["top"].push_back({{"class", cls},
                            {"probability", prob},
                            {"name", name != names.end() ? name->second : std::string()}});
      }
      j["videos"].push_back(v);
    }
    std::cout << j.dump(2) << "\n";
    return failed ? 1 : 0;
  }
  for (const auto& p : out) {
    std::cout << p.video << "\n";
    if (!p.error.empty()) {
      ++failed;
      std::cout << "  cannot predict: " << p.error << "\n";
      continue;
    }
    for (size_t k = 0; k < p.top.size(); ++k) {
      const auto [cls, prob] = p.top[k];
      const auto name = names.find(cls);
      std::cout << "  " << k + 1 << ". " << std::fixed << std::setprecision(1) << std::setw(5)
                << 100.0 * prob << " %  class " << cls
                << (name != names.end() ? "  " + name->second : std::string()) << "\n";
    }
    std::cout << "  " << p.views << " views, " << std::setprecision(2) << p.seconds << " s\n";
  }
  return failed ? 1 : 0;
}

}  // namespace

void addPredictCommand(CLI::App& app, int& exitCode) {
  auto a = std::make_shared<PredictBoxesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Classify videos with a checkpoint: the multi-view test on each (TEST.NUM_ENSEMBLE_VIEWS x "
      "TEST.NUM_SPATIAL_CROPS views, DATA.ENSEMBLE_METHOD), the top-5 classes with probabilities "
      "and the time per video. With a detection (AVA) config: the actions of every person box of "
      "--boxes (DEMO.PREDS_BOXES) on its keyframe's clip, as PySlowFast's AVA demo with "
      "precomputed boxes");
  cmd->add_option("--cfg", a->cfgPath, "PySlowFast YAML config of the model")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--checkpoint", a->checkpoint,
                  "Weights (default: TEST.CHECKPOINT_FILE_PATH, else the newest in OUTPUT_DIR, "
                  "else TRAIN.CHECKPOINT_FILE_PATH); "
                  "TEST.CHECKPOINT_TYPE caffe2 reads a Caffe2 .pkl")
      ->check(CLI::ExistingFile);
  cmd->add_option("--labels", a->labels,
                  "Class names: PySlowFast's demo JSON ({\"name\": index}) or one name per line "
                  "(default: DEMO.LABEL_FILE_PATH; detection: else AVA.LABEL_MAP_FILE)")
      ->check(CLI::ExistingFile);
  // Videos and KEY VALUE overrides come as extras: a positional option would let CLI11 split a
  // list value such as "[84, 84]" into several arguments.
  cmd->allow_extras();
  cmd->footer(
      "Arguments: video files (detection: or folders of frames; default DEMO.INPUT_VIDEO), then "
      "optional KEY VALUE overrides, e.g. TEST.NUM_SPATIAL_CROPS 1 DATA.TRAIN_JITTER_SCALES "
      "\"[256, 320]\"");
  cmd->add_flag("--json", a->json,
                "Print the predictions as JSON (video, views, seconds, error, top: class, name, "
                "probability; detection: keyframes, boxes, top actions)");
  cmd->add_option("--threads", a->threads, "CPU threads (default: as training)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--boxes", a->boxes,
                  "Detection: person boxes of the input's keyframes, an AVA CSV "
                  "(video,second,x1,y1,x2,y2,action,score; default DEMO.PREDS_BOXES)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--gt-boxes", a->gtBoxes,
                  "Detection: ground-truth boxes to draw beside the predictions (AVA CSV; "
                  "default DEMO.GT_BOXES)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--detections", a->detections,
                  "Detection: write every box's scores as AVA detections (CSV for eval ava)");
  cmd->add_option("--output", a->output,
                  "Detection: write the input again with the boxes and their actions drawn "
                  "(default DEMO.OUTPUT_FILE; DEMO.VIS_MODE picks the actions shown)");
  cmd->add_option("--top", a->top, "Detection: actions listed per box (default 5)")
      ->check(CLI::PositiveNumber);
  cmd->callback([=, &exitCode] { exitCode = runPredict(*a, cmd->remaining()); });
}

}  // namespace amp::cli
