// ampstudio-cli demo: PySlowFast's demo_net.py on a video file. A classification config slides
// over the input and writes it again with each window's classes drawn (train/VideoDemo); a
// detection (AVA) config with person boxes runs the AVA demo with precomputed boxes, as predict
// --boxes does.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "CliConfig.h"
#include "Commands.h"
#include "PredictBoxes.h"
#include "config/Config.h"
#include "train/VideoDemo.h"

namespace amp::cli {
namespace {

struct DemoArgs {
  PredictBoxesArgs box;  // cfgPath, checkpoint, labels, boxes, json, threads, output, top
  std::string input;
};

std::string clock(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

// One line redrawn in place on a terminal: "predict [#####.....] 12/40 windows  0:08 left".
class ProgressLine {
 public:
  explicit ProgressLine(bool tty) : tty_(tty) {}
  ~ProgressLine() { finish(); }
  void show(const std::string& stage, std::int64_t done, std::int64_t total) {
    if (!tty_ || total <= 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (stage != stage_) {
      finish();
      stage_ = stage;
      started_ = now;
    } else if (done < total && now - shown_ < std::chrono::milliseconds(200)) {
      return;
    }
    shown_ = now;
    const double elapsed = std::chrono::duration<double>(now - started_).count();
    const double left = done > 0 ? elapsed * static_cast<double>(total - done) / done : 0;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done / total);
    std::ostringstream line;
    line << "\r" << std::left << std::setw(8) << stage << "[" << std::string(filled, '#')
         << std::string(kWidth - filled, '.') << "] " << done << "/" << total
         << (stage == "predict" ? " windows  " : " frames  ")
         << (done > 0 ? clock(left) + " left " : std::string("        "));
    std::cerr << line.str() << std::flush;
    open_ = true;
  }
  void finish() {
    if (open_) std::cerr << "\n";
    open_ = false;
  }

 private:
  bool tty_, open_ = false;
  std::string stage_;
  std::chrono::steady_clock::time_point started_, shown_;
};

std::string nameOf(int k, const std::map<int, std::string>& names) {
  const auto it = names.find(k);
  return it != names.end() ? it->second : std::string();
}

nlohmann::json resultJson(const train::VideoDemoResult& r, const std::map<int, std::string>& names,
                          int k) {
  nlohmann::json j = {{"input", r.input},
                      {"checkpoint", r.checkpoint},
                      {"fps", r.fps},
                      {"frames", r.frames},
                      {"width", r.width},
                      {"height", r.height},
                      {"model_input", {r.model_width, r.model_height}},
                      {"predict_seconds", r.predict_seconds},
                      {"windows", nlohmann::json::array()}};
  if (!r.output.empty()) {
    j["output"] = r.output;
    j["write_seconds"] = r.write_seconds;
  }
  for (const auto& w : r.windows) {
    nlohmann::json v = {
        {"first", w.window.first},
        {"last", w.window.sampled.empty() ? w.window.first : w.window.sampled.back()},
        {"middle", w.window.middle},
        {"draw", {w.window.draw_first, w.window.draw_last}},
        {"second", static_cast<double>(w.window.middle) / r.fps},
        {"predicted", w.window.predicted},
        {"top", nlohmann::json::array()}};
    for (const auto& [cls, p] : topScores(w.scores, k))
      v["top"].push_back({{"class", cls}, {"probability", p}, {"name", nameOf(cls, names)}});
    j["windows"].push_back(v);
  }
  return j;
}

void printResult(const train::VideoDemoResult& r, const std::map<int, std::string>& names) {
  std::cout << r.input << ": " << r.frames << " frames at " << r.fps << " fps, " << r.width << "x"
            << r.height << " (the model sees " << r.model_width << "x" << r.model_height << ")\n";
  for (const auto& w : r.windows) {
    std::cout << "  " << std::fixed << std::setprecision(2) << std::setw(7)
              << static_cast<double>(w.window.first) / r.fps << " s  ";
    if (w.scores.empty()) {
      std::cout << "(skipped: DEMO.NUM_CLIPS_SKIP)\n";
      continue;
    }
    const auto best = topScores(w.scores, 3);
    for (std::size_t i = 0; i < best.size(); ++i) {
      const std::string name = nameOf(best[i].first, names);
      std::cout << (i ? ", " : "")
                << (name.empty() ? "class " + std::to_string(best[i].first) : name) << " "
                << std::setprecision(2) << best[i].second;
    }
    std::cout << "\n";
  }
  std::cout << "  " << r.windows.size() << " windows in " << std::setprecision(1)
            << r.predict_seconds << " s";
  if (!r.output.empty()) std::cout << "; wrote " << r.output << " in " << r.write_seconds << " s";
  std::cout << "\n";
}

int runDemo(const DemoArgs& a, const std::vector<std::string>& overrides) {
  auto cfg = loadConfigForCommand(a.box.cfgPath, overrides);
  if (!cfg) return 2;
  if (cfg->getBool("DETECTION.ENABLE")) {
    const std::string in = a.input.empty() ? cfg->getString("DEMO.INPUT_VIDEO") : a.input;
    if (in.empty()) {
      std::cerr << "demo: give --input (or DEMO.INPUT_VIDEO): a video file or folder of frames\n";
      return 2;
    }
    return runPredictBoxes(*cfg, a.box, {in});
  }
  if (!a.box.boxes.empty() || !a.box.gtBoxes.empty() || !a.box.detections.empty()) {
    std::cerr << a.box.cfgPath
              << ": --boxes, --gt-boxes and --detections are for detection (AVA) configs\n";
    return 2;
  }
  const auto names = classNamesForCommand(*cfg, a.box.labels, a.box.cfgPath);
  if (!names) return 2;
  train::VideoDemoOptions o;
  o.checkpoint = a.box.checkpoint;
  o.input = a.input;
  o.output = a.box.output;
  o.names = *names;
  o.threads = a.box.threads;
  ProgressLine line(isatty(STDERR_FILENO));
  o.progress = [&](const std::string& stage, std::int64_t done, std::int64_t total) {
    line.show(stage, done, total);
    return true;
  };
  train::VideoDemoResult r;
  std::string error;
  const bool ok = train::runVideoDemo(*cfg, o, r, &error);
  line.finish();
  if (!ok) {
    std::cerr << a.box.cfgPath << ": " << error << "\n";
    if (a.box.json)
      std::cout << nlohmann::json{{"input", r.input}, {"error", error}}.dump(2) << "\n";
    return 1;
  }
  if (a.box.json)
    std::cout << resultJson(r, *names, a.box.top).dump(2) << "\n";
  else
    printResult(r, *names);
  return 0;
}

}  // namespace

void addDemoCommand(CLI::App& app, int& exitCode) {
  auto a = std::make_shared<DemoArgs>();
  CLI::App* cmd = app.add_subcommand(
      "demo",
      "PySlowFast's demo on one video: classify windows of NUM_FRAMES x SAMPLING_RATE frames "
      "sliding over it (DEMO.BUFFER_SIZE overlap, DEMO.NUM_CLIPS_SKIP) and write it again with "
      "each window's classes drawn (DEMO.VIS_MODE, DEMO.CLIP_VIS_SIZE); a detection (AVA) config "
      "draws the actions of the person boxes of --boxes (DEMO.PREDS_BOXES)");
  cmd->add_option("--cfg", a->box.cfgPath, "PySlowFast YAML config of the model")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--checkpoint", a->box.checkpoint,
                  "Weights (default: TEST.CHECKPOINT_FILE_PATH, else the newest in OUTPUT_DIR, "
                  "else TRAIN.CHECKPOINT_FILE_PATH)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--input", a->input,
                  "Video file or folder of frames (default DEMO.INPUT_VIDEO; a folder plays at "
                  "DEMO.FPS)")
      ->check(CLI::ExistingPath);
  cmd->add_option("--output", a->box.output,
                  "The video to write with the predictions drawn (default DEMO.OUTPUT_FILE; "
                  "neither: predictions only)");
  cmd->add_option("--labels", a->box.labels,
                  "Class names: PySlowFast's demo JSON ({\"name\": index}) or one name per line "
                  "(default DEMO.LABEL_FILE_PATH)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--top", a->box.top, "Classes listed per window with --json (default 5)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", a->box.json,
                "Print the result as JSON (input, output, fps, windows: first, last, middle, "
                "draw range, second, top classes)");
  cmd->add_option("--threads", a->box.threads, "CPU threads (default: as training)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--boxes", a->box.boxes,
                  "Detection: person boxes of the input's keyframes (AVA CSV; default "
                  "DEMO.PREDS_BOXES)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--gt-boxes", a->box.gtBoxes,
                  "Detection: ground-truth boxes drawn beside (default DEMO.GT_BOXES)")
      ->check(CLI::ExistingFile);
  acceptOverrides(cmd);
  cmd->callback([=, &exitCode] { exitCode = runDemo(*a, overridesOf(cmd)); });
}

}  // namespace amp::cli
