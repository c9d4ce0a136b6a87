// ampstudio-cli visualize: PySlowFast's tools/visualization.py on a config (engine/vis/
// Visualization.h): layer weights, activations, input videos with Grad-CAM, misclassified clips
// and saved predictions' figures, written into a new events file of the run's TensorBoard folder.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "CliConfig.h"
#include "Commands.h"
#include "config/Config.h"
#include "vis/Visualization.h"

namespace amp::cli {
namespace {

struct VisualizeArgs {
  std::string cfgPath;
  std::string checkpoint;
  bool json = false;
};

nlohmann::json reportJson(const vis::VisualizationReport& r) {
  return {{"checkpoint", r.checkpoint},
          {"device", r.device},
          {"log_dir", r.log_dir},
          {"events_file", r.events_file},
          {"clips", r.clips},
          {"images", r.images},
          {"histograms", r.histograms},
          {"videos", r.videos},
          {"tags", r.tags},
          {"wrong_clips", r.wrong_clips},
          {"wrong_classes", r.wrong_classes},
          {"wrong_class_names", r.wrong_class_names},
          {"predictions", r.predictions},
          {"notes", r.notes}};
}

void printReport(const vis::VisualizationReport& r, bool wrongPredictions) {
  std::cout << "visualize: " << r.images << " images, " << r.histograms << " histograms and "
            << r.videos << " videos from " << r.clips << " test clips\n"
            << "  events file  " << r.events_file << "\n"
            << "  checkpoint   " << r.checkpoint << " (" << r.device << ")\n";
  if (!r.predictions.empty()) std::cout << "  predictions  " << r.predictions << "\n";
  if (wrongPredictions) {
    // PySlowFast's closing line of its wrong-prediction pass.
    std::cout << "  Class indices with wrong predictions: [";
    for (std::size_t i = 0; i < r.wrong_classes.size(); ++i)
      std::cout << (i ? ", " : "") << r.wrong_classes[i];
    std::cout << "]";
    if (!r.wrong_classes.empty()) {
      std::cout << " (";
      for (std::size_t i = 0; i < r.wrong_class_names.size(); ++i)
        std::cout << (i ? ", " : "") << r.wrong_class_names[i];
      std::cout << ")";
    }
    std::cout << ", " << r.wrong_clips << " clips\n";
  }
  for (const auto& n : r.notes) std::cout << "  note: " << n << "\n";
  std::cout << "  see them: tensorboard --logdir " << r.log_dir
            << " (or --json here lists every tag written)\n";
}

int runVisualize(const VisualizeArgs& a, const std::vector<std::string>& overrides) {
  auto cfg = loadConfigForCommand(a.cfgPath, overrides);
  if (!cfg) return 2;
  if (const auto why = vis::visualizationDisabled(*cfg)) {
    std::cerr << a.cfgPath << ": " << *why << "\n";
    return 2;
  }
  vis::VisualizationOptions o;
  o.checkpoint = a.checkpoint;
  const bool tty = isatty(STDERR_FILENO) != 0;
  o.progress = [tty](int done, int total) {
    if (tty) std::cerr << "\rvisualize: " << done << " / " << total << " clips" << std::flush;
  };
  vis::VisualizationReport r;
  std::string error;
  const bool ok = vis::runVisualization(*cfg, o, r, &error);
  if (tty) std::cerr << "\n";
  if (!ok) {
    std::cerr << a.cfgPath << ": " << error << "\n";
    if (a.json) {
      auto j = reportJson(r);
      j["error"] = error;
      std::cout << j.dump(2) << "\n";
    }
    return 1;
  }
  if (a.json)
    std::cout << reportJson(r).dump(2) << "\n";
  else
    printReport(r, cfg->getBool("TENSORBOARD.WRONG_PRED_VIS.ENABLE"));
  return 0;
}

}  // namespace

void addVisualizeCommand(CLI::App& app, int& exitCode) {
  auto a = std::make_shared<VisualizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "visualize",
      "PySlowFast's visualisation run (tools/visualization.py) over the TEST split, into a new "
      "events file of the run's TensorBoard folder: layer weights and activations "
      "(TENSORBOARD.MODEL_VIS.*), input videos with Grad-CAM, misclassified clips "
      "(WRONG_PRED_VIS.*) and saved predictions' figures (PREDICTIONS_PATH); needs "
      "TENSORBOARD.ENABLE");
  cmd->add_option("--cfg", a->cfgPath, "PySlowFast YAML config of the run")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--checkpoint", a->checkpoint,
                  "Weights (default: TEST.CHECKPOINT_FILE_PATH, else the newest in OUTPUT_DIR, "
                  "else TRAIN.CHECKPOINT_FILE_PATH)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", a->json,
                "Print what was written as JSON (events_file, tags, counts, wrong_classes, notes)");
  acceptOverrides(cmd);
  cmd->callback([=, &exitCode] { exitCode = runVisualize(*a, overridesOf(cmd)); });
}

}  // namespace amp::cli
