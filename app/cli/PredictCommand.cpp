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
#include "config/Config.h"
#include "data/ClassNames.h"
#include "train/Tester.h"

namespace amp::cli {
namespace {

int runPredict(const std::string& cfgPath, const std::string& checkpoint, std::string labels,
               const std::vector<std::string>& args, bool json, int threads) {
  // Positional arguments are videos, except KEY VALUE pairs (a KEY looks like
  // TEST.NUM_SPATIAL_CROPS).
  static const std::regex key("^[A-Z][A-Z0-9_]*(\\.[A-Z0-9_]+)*$");
  std::vector<std::string> videos, overrides;
  for (size_t i = 0; i < args.size(); ++i) {
    if (std::regex_match(args[i], key) && i + 1 < args.size()) {
      overrides.push_back(args[i]);
      overrides.push_back(args[++i]);
    } else {
      videos.push_back(args[i]);
    }
  }
  if (videos.empty()) {
    std::cerr << "predict: give at least one video file\n";
    return 2;
  }
  auto cfg = loadConfigForCommand(cfgPath, overrides);
  if (!cfg) return 2;
  std::map<int, std::string> names;
  std::string error;
  if (labels.empty() && !cfg->getString("DEMO.LABEL_FILE_PATH").empty()) {
    // From the config: a names file that is not there (the dataset lives elsewhere) costs the
    // names, not the prediction.
    const std::string fromConfig = cfg->getString("DEMO.LABEL_FILE_PATH");
    if (std::filesystem::exists(fromConfig))
      labels = fromConfig;
    else
      std::cerr << cfgPath << ": DEMO.LABEL_FILE_PATH: " << fromConfig
                << " does not exist; classes are shown by number\n";
  }
  if (!labels.empty() && !data::readClassNames(labels, names, error)) {
    std::cerr << error << "\n";
    return 2;
  }
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
  auto cfg = std::make_shared<std::string>();
  auto checkpoint = std::make_shared<std::string>();
  auto labels = std::make_shared<std::string>();
  auto args = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto threads = std::make_shared<int>(0);
  CLI::App* cmd = app.add_subcommand(
      "predict",
      "Classify videos with a checkpoint: the multi-view test on each (TEST.NUM_ENSEMBLE_VIEWS x "
      "TEST.NUM_SPATIAL_CROPS views, "
      "DATA.ENSEMBLE_METHOD), the top-5 classes with probabilities and the time per video");
  cmd->add_option("--cfg", *cfg, "PySlowFast YAML config of the model")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--checkpoint", *checkpoint,
                  "Weights (default: TEST.CHECKPOINT_FILE_PATH, else the newest in OUTPUT_DIR, "
                  "else TRAIN.CHECKPOINT_FILE_PATH); "
                  "TEST.CHECKPOINT_TYPE caffe2 reads a Caffe2 .pkl")
      ->check(CLI::ExistingFile);
  cmd->add_option("--labels", *labels,
                  "Class names: PySlowFast's demo JSON ({\"name\": index}) or one name per line "
                  "(default: DEMO.LABEL_FILE_PATH)")
      ->check(CLI::ExistingFile);
  cmd->add_option("videos", *args,
                  "Video files, then optional KEY VALUE overrides (e.g. TEST.NUM_SPATIAL_CROPS 1)")
      ->required();
  cmd->add_flag("--json", *json,
                "Print the predictions as JSON (video, views, seconds, error, top: class, name, "
                "probability)");
  cmd->add_option("--threads", *threads, "CPU threads (default: as training)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([=, &exitCode] {
    exitCode = runPredict(*cfg, *checkpoint, *labels, *args, *json, *threads);
  });
}

}  // namespace amp::cli
