#include "PredictBoxes.h"

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>

#include "data/ClassNames.h"
#include "data/DemoVideo.h"
#include "metrics/AvaCsv.h"
#include "metrics/AvaLabelNames.h"
#include "train/BoxPredict.h"

namespace amp::cli {
namespace {

// Names by class index (0-based): DEMO.LABEL_FILE_PATH / --labels as PySlowFast's demo reads it,
// else the AVA label map (action id k is index k - 1). Missing names cost the names only.
std::map<int, std::string> classNames(const config::Config& c, std::string labels) {
  std::map<int, std::string> names;
  std::string error;
  if (labels.empty()) labels = c.getString("DEMO.LABEL_FILE_PATH");
  if (!labels.empty()) {
    if (data::readClassNames(labels, names, error)) return names;
    std::cerr << "predict: " << error << "; actions are named from the AVA label map\n";
    names.clear();
  }
  if (const auto map = metrics::avaLabelNames(c, &error)) {
    for (const auto& [id, name] : *map) names[id - 1] = name;
  } else {
    std::cerr << "predict: " << error << "; actions are shown by number\n";
  }
  return names;
}

std::string nameOf(const std::map<int, std::string>& names, int k) {
  const auto it = names.find(k);
  return it != names.end() ? it->second : std::string();
}

nlohmann::json predictionJson(const train::BoxPrediction& p,
                              const std::map<int, std::string>& names, int top) {
  nlohmann::json v = {{"video", p.input},
                      {"name", p.video},
                      {"fps", p.fps},
                      {"frames", p.frames},
                      {"width", p.width},
                      {"height", p.height},
                      {"seconds", p.seconds},
                      {"outside_input", p.outside_input},
                      {"keyframes", nlohmann::json::array()}};
  for (const auto& k : p.keyframes) {
    nlohmann::json kj = {
        {"second", k.second}, {"frame", k.frame}, {"boxes", nlohmann::json::array()}};
    for (const auto& b : k.boxes) {
      nlohmann::json bj = {{"box", b.box}, {"top", nlohmann::json::array()}};
      for (const auto& [cls, prob] : topScores(b.scores, top))
        bj["top"].push_back({{"class", cls},
                             {"action", cls + 1},
                             {"name", nameOf(names, cls)},
                             {"probability", prob}});
      kj["boxes"].push_back(bj);
    }
    v["keyframes"].push_back(kj);
  }
  if (!p.ground_truth.keyframes.empty()) {
    v["ground_truth"] = nlohmann::json::array();
    for (const auto& k : p.ground_truth.keyframes)
      for (const auto& b : k.boxes)
        v["ground_truth"].push_back({{"second", k.second}, {"box", b.box}, {"actions", b.labels}});
  }
  return v;
}

void printPrediction(const train::BoxPrediction& p, const std::map<int, std::string>& names,
                     int top) {
  std::int64_t boxes = 0;
  std::cout << p.input << " (video '" << p.video << "', " << std::setprecision(4) << p.fps
            << " fps, " << p.frames << " frames, " << p.width << "x" << p.height << ")\n";
  for (const auto& k : p.keyframes) {
    std::cout << "  second " << k.second << " (frame " << k.frame << "): " << k.boxes.size()
              << (k.boxes.size() == 1 ? " box\n" : " boxes\n");
    for (std::size_t i = 0; i < k.boxes.size(); ++i, ++boxes) {
      const auto& b = k.boxes[i];
      std::cout << "    box " << i + 1 << " [" << std::fixed << std::setprecision(3) << b.box[0]
                << " " << b.box[1] << " " << b.box[2] << " " << b.box[3] << "]:";
      const char* sep = " ";
      for (const auto& [cls, prob] : topScores(b.scores, top)) {
        const std::string name = nameOf(names, cls);
        std::cout << sep << (name.empty() ? "action " + std::to_string(cls + 1) : name) << " "
                  << std::setprecision(2) << prob;
        sep = ", ";
      }
      std::cout << "\n" << std::defaultfloat;
    }
  }
  std::cout << "  " << p.keyframes.size() << " keyframes, " << boxes << " boxes, "
            << std::setprecision(2) << std::fixed << p.seconds << " s" << std::defaultfloat;
  if (p.outside_input)
    std::cout << "; " << p.outside_input
              << " keyframes of the boxes file lie outside the input (DEMO.STARTING_SECOND?)";
  if (p.below_score_thresh)
    std::cout << "; the boxes file has " << p.below_score_thresh
              << " boxes under AVA.DETECTION_SCORE_THRESH (left out)";
  std::cout << "\n";
}

// The video with boxes and actions, PySlowFast's draw_video (the input is opened again: the
// prediction released its decoder).
bool writeVideo(const config::Config& c, const train::BoxPrediction& p,
                const std::map<int, std::string>& names, const std::string& output,
                std::string* error) {
  data::AvaDemoInput input;
  if (!input.open(p.input, c.getInt("DEMO.FPS"), error)) return false;
  const auto vis = data::DemoVisParams::fromConfig(c, names);
  std::map<std::int64_t, data::DemoDrawing> byFrame;
  for (const auto& k : p.keyframes) {
    auto& d = byFrame[k.frame];
    d.frame = k.frame;
    for (const auto& b : k.boxes) d.boxes.push_back({b.box, vis.labels(b.scores, names), false});
  }
  for (const auto& k : p.ground_truth.keyframes) {
    auto& d = byFrame[k.frame];
    d.frame = k.frame;
    for (const auto& b : k.boxes)
      d.boxes.push_back({b.box, data::groundTruthLabels(b.labels, names), true});
  }
  std::vector<data::DemoDrawing> drawings;
  for (auto& [frame, d] : byFrame) drawings.push_back(std::move(d));
  data::DemoVideoOptions o;
  o.output = output;
  o.fps = c.getInt("DEMO.OUTPUT_FPS") > 0 ? static_cast<double>(c.getInt("DEMO.OUTPUT_FPS")) : 0;
  o.draw_radius = c.getInt("DATA.NUM_FRAMES") * c.getInt("DATA.SAMPLING_RATE") / 10;
  o.slowmo = static_cast<int>(c.getInt("DEMO.SLOWMO"));
  const bool tty = isatty(STDERR_FILENO);
  int shown = -1;
  o.progress = [&](std::int64_t done, std::int64_t total) {
    const int percent = static_cast<int>(100 * done / std::max<std::int64_t>(1, total));
    if (tty && percent != shown) {
      std::cerr << "\rwriting " << output << ": " << percent << " %" << std::flush;
      shown = percent;
    }
    return true;
  };
  const bool ok = data::writeDemoVideo(input, drawings, o, error);
  if (tty) std::cerr << "\n";
  return ok;
}

}  // namespace

std::vector<std::pair<int, float>> topScores(const std::vector<float>& scores, int top) {
  std::vector<std::pair<int, float>> r;
  for (std::size_t k = 0; k < scores.size(); ++k) r.emplace_back(static_cast<int>(k), scores[k]);
  const std::size_t n = std::min(r.size(), static_cast<std::size_t>(std::max(1, top)));
  std::partial_sort(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(n), r.end(),
                    [](const auto& a, const auto& b) { return a.second > b.second; });
  r.resize(n);
  return r;
}

int runPredictBoxes(const config::Config& c, const PredictBoxesArgs& a,
                    const std::vector<std::string>& inputs) {
  const std::string output = a.output.empty() ? c.getString("DEMO.OUTPUT_FILE") : a.output;
  if (!output.empty() && inputs.size() != 1) {
    std::cerr << "predict: --output (DEMO.OUTPUT_FILE) writes one video: give one input, not "
              << inputs.size() << "\n";
    return 2;
  }
  const auto names = classNames(c, a.labels);
  train::BoxPredictOptions o;
  o.checkpoint = a.checkpoint;
  o.boxes = a.boxes;
  o.gt_boxes = a.gtBoxes;
  o.threads = a.threads;
  int failed = 0;
  nlohmann::json j = {
      {"config", a.cfgPath}, {"detection", true}, {"videos", nlohmann::json::array()}};
  std::vector<metrics::AvaImage> detections;
  for (const std::string& in : inputs) {
    train::BoxPrediction p;
    std::string error;
    if (!train::predictBoxes(c, in, o, p, &error)) {
      ++failed;
      if (a.json)
        j["videos"].push_back({{"video", in}, {"error", error}});
      else
        std::cerr << a.cfgPath << ": " << in << ": " << error << "\n";
      continue;
    }
    j["checkpoint"] = p.checkpoint;
    nlohmann::json v = predictionJson(p, names, a.top);
    if (!a.json) printPrediction(p, names, a.top);
    if (!output.empty()) {
      if (writeVideo(c, p, names, output, &error)) {
        v["output"] = output;
        if (!a.json) std::cout << "  wrote " << output << "\n";
      } else {
        ++failed;
        v["error"] = error;
        std::cerr << output << ": " << error << "\n";
      }
    }
    const auto mine = train::boxDetections(p);
    detections.insert(detections.end(), mine.begin(), mine.end());
    j["videos"].push_back(v);
  }
  if (!a.detections.empty()) {
    std::string error;
    if (!metrics::writeAvaCsv(a.detections, detections, &error)) {
      std::cerr << error << "\n";
      ++failed;
    } else {
      j["detections"] = a.detections;
      if (!a.json)
        std::cout << "detections: " << a.detections
                  << " (score them: ampstudio-cli eval ava --detections " << a.detections
                  << " --groundtruth ... --labelmap ...)\n";
    }
  }
  if (a.json) std::cout << j.dump(2) << "\n";
  return failed ? 1 : 0;
}

}  // namespace amp::cli
