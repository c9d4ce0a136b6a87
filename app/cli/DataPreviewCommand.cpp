// ampstudio-cli data preview: what the model sees at a position of an epoch, as PNG contact
// sheets (the first source frame with the clip's region, then its frames) and one line per clip.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "PreviewGradCam.h"
#include "data/ClipPreview.h"
#include "data/ImageWriter.h"
#include "metrics/AvaLabelNames.h"

namespace amp::cli {
namespace {

struct PreviewArgs {
  std::string cfg, out, split = "train";
  int epoch = 0, clip = 0, count = 1;
  bool json = false;
  std::vector<std::string> overrides;
  PreviewGradCamArgs gradCam;
};

int runPreview(const PreviewArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  const data::Split split = a.split == "train" ? data::Split::Train
                            : a.split == "val" ? data::Split::Val
                                               : data::Split::Test;
  std::vector<data::PreviewClip> clips;
  std::string error;
  // Grad-CAM's model first: a wrong layer or checkpoint is reported before any clip is decoded.
  std::unique_ptr<PreviewGradCam> gradCam;
  if (a.gradCam.on && !(gradCam = PreviewGradCam::open(*cfg, a.gradCam, &error))) {
    std::cerr << "data preview --grad-cam: " << error << "\n";
    return 2;
  }
  if (!data::previewClips(*cfg, split, a.epoch, a.clip, a.count, clips, &error)) {
    std::cerr << "data preview: " << error << "\n";
    return 1;
  }
  // AVA's action names from its label map; a map that cannot be read costs the names only.
  std::map<int, std::string> actionNames;
  if (!clips.empty() && clips.front().second >= 0) {
    if (auto names = metrics::avaLabelNames(*cfg, &error))
      actionNames = std::move(*names);
    else
      std::cerr << "data preview: warning: " << error << "; boxes show action ids only\n";
  }
  auto actions = [&](const std::vector<int>& ids) {
    std::string out;
    for (const int id : ids) {
      const auto name = actionNames.find(id);
      out += (out.empty() ? "" : ", ") +
             (id < 0 ? std::string("no action")
                     : std::to_string(id) + (name == actionNames.end() ? "" : " " + name->second));
    }
    return out;
  };
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) {
    std::cerr << "data preview: --out " << a.out << ": " << ec.message() << "\n";
    return 1;
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : clips) {
    const auto sheet = data::contactSheet(c);
    const std::string name =
        a.split + "_epoch" + std::to_string(a.epoch) + "_clip" + std::to_string(c.position) +
        (clips.size() > static_cast<std::size_t>(a.count) ? "_copy" + std::to_string(c.copy) : "") +
        ".png";
    const std::string path = (std::filesystem::path(a.out) / name).string();
    if (!data::writePng(path, sheet.rgb.data(), sheet.width, sheet.height, &error)) {
      std::cerr << "data preview: " << error << "\n";
      return 1;
    }
    nlohmann::json cam;
    if (gradCam &&
        !gradCam->write(c, path.substr(0, path.size() - 4) + "_gradcam.png", cam, &error)) {
      std::cerr << "data preview --grad-cam: " << c.path << ": " << error << "\n";
      return 1;
    }
    const auto& r = c.info.region;
    nlohmann::json ops = nlohmann::json::array(), boxes = nlohmann::json::array();
    for (const auto& op : c.info.augment_ops)
      ops.push_back(
          {{"op", data::augOpName(op.op)}, {"arg", op.arg}, {"text", data::describeAugOp(op)}});
    for (const auto& b : c.info.erased_boxes)
      boxes.push_back({{"y", b.top}, {"x", b.left}, {"height", b.height}, {"width", b.width}});
    nlohmann::json ava = nlohmann::json::array();
    for (std::size_t k = 0; k < c.boxes.size(); ++k) {
      nlohmann::json names = nlohmann::json::array();
      for (const int id : c.boxes[k].labels) {
        const auto name = actionNames.find(id);
        names.push_back(name == actionNames.end() ? "" : name->second);
      }
      const auto colour = data::avaBoxColour(k);
      ava.push_back({{"clip", c.boxes[k].clip},
                     {"frame", c.boxes[k].frame},
                     {"labels", c.boxes[k].labels},
                     {"label_names", names},
                     {"colour", colour}});
    }
    if (a.json) {
      list.push_back(
          {{"png", path},
           {"position", c.position},
           {"copy", c.copy},
           {"view", c.view},
           {"video", c.path},
           {"label", c.label},
           {"label_name", c.label_name},
           {"frame_indices", c.info.frame_indices},
           {"frame_size", {c.info.decoded.height, c.info.decoded.width}},
           {"region", {{"y", r.y}, {"x", r.x}, {"height", r.height}, {"width", r.width}}},
           {"flipped", c.info.flipped},
           {"augment_ops", ops},
           {"erased_boxes", boxes},
           {"frames", c.frames},
           {"slow_frames", c.slow_frames},
           {"crop", c.crop},
           {"clip_size", {c.height, c.width}},
           {"shape", c.shape}});
      if (c.second >= 0) list.back()["second"] = c.second, list.back()["boxes"] = ava;
      if (gradCam) list.back()["grad_cam"] = cam;
      continue;
    }
    // AVA's labels are per box (below); its clip's single label means nothing.
    std::cout << path << "\n  " << c.path
              << (c.second >= 0 ? std::string()
                                : "  label " + std::to_string(c.label) +
                                      (c.label_name.empty() ? "" : " " + c.label_name))
              << (split == data::Split::Test ? "  view " + std::to_string(c.view) : "")
              << "\n  frames";
    for (const auto f : c.info.frame_indices) std::cout << " " << f;
    std::cout << "\n  region " << r.width << "x" << r.height << " at (" << r.x << ", " << r.y
              << ") of " << c.info.decoded.width << "x" << c.info.decoded.height
              << (c.info.flipped ? ", flipped" : "") << " -> " << c.width << "x" << c.height;
    std::cout << "\n";
    if (c.second >= 0)
      std::cout << "  keyframe second " << c.second << " (the top frame), " << c.boxes.size()
                << " boxes:\n";
    for (std::size_t k = 0; k < c.boxes.size(); ++k) {
      const auto& b = c.boxes[k].clip;
      const auto colour = data::avaBoxColour(k);
      std::cout << "  box " << k + 1 << " (rgb " << int(colour[0]) << "," << int(colour[1]) << ","
                << int(colour[2]) << ") " << std::lround(b[0]) << "," << std::lround(b[1]) << " - "
                << std::lround(b[2]) << "," << std::lround(b[3])
                << " in the clip: " << actions(c.boxes[k].labels) << "\n";
    }
    if (!c.shape.empty()) std::cout << "  " << c.shape << "\n";
    if (gradCam) std::cout << PreviewGradCam::describe(cam);
    if (!c.info.augment_ops.empty()) {
      std::cout << "  RandAugment";
      for (const auto& op : c.info.augment_ops)
        std::cout << (&op == &c.info.augment_ops.front() ? " " : ", ") << data::describeAugOp(op);
      std::cout << "\n";
    }
    if (!c.info.erased_boxes.empty()) {
      std::cout << "  erased";
      for (const auto& b : c.info.erased_boxes)
        std::cout << (&b == &c.info.erased_boxes.front() ? " " : ", ") << b.width << "x" << b.height
                  << " at (" << b.left << ", " << b.top << ")";
      std::cout << "\n";
    }
  }
  if (a.json) std::cout << list.dump() << "\n";
  return 0;
}

}  // namespace

void addDataPreviewCommand(CLI::App& dataCmd, int& exitCode) {
  auto args = std::make_shared<PreviewArgs>();
  CLI::App* preview = dataCmd.add_subcommand("preview",
                                             "What the model sees: the clips the loader builds at "
                                             "a position of an epoch, as PNG contact sheets");
  preview->add_option("--cfg", args->cfg, "Config naming the dataset and the sampling")
      ->required()
      ->check(CLI::ExistingFile);
  preview->add_option("--out", args->out, "Folder for the PNG files (created if missing)")
      ->required();
  preview->add_option("--split", args->split, "train (default), val or test")
      ->check(CLI::IsMember({"train", "val", "test"}));
  preview->add_option("--epoch", args->epoch, "Epoch whose shuffle and draws to use (default 0)")
      ->check(CLI::NonNegativeNumber);
  preview->add_option("--clip", args->clip, "Position in the epoch (default 0)")
      ->check(CLI::NonNegativeNumber);
  preview->add_option("--count", args->count, "Clips from --clip on (default 1)")
      ->check(CLI::PositiveNumber);
  preview->add_flag("--json", args->json, "Print the clips' sampling as one JSON list");
  addPreviewGradCamOptions(*preview, args->gradCam);
  acceptOverrides(preview);
  preview->callback([args, preview, &exitCode] {
    args->overrides = overridesOf(preview);
    exitCode = runPreview(*args);
  });
}

}  // namespace amp::cli
