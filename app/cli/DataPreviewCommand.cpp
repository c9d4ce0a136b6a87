// ampstudio-cli data preview: what the model sees at a position of an epoch, as PNG contact
// sheets (the first source frame with the clip's region, then its frames) and one line per clip.
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "data/ClipPreview.h"
#include "data/ImageWriter.h"

namespace amp::cli {
namespace {

struct PreviewArgs {
  std::string cfg, out, split = "train";
  int epoch = 0, clip = 0, count = 1;
  bool json = false;
  std::vector<std::string> overrides;
};

int runPreview(const PreviewArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  const data::Split split = a.split == "train" ? data::Split::Train
                            : a.split == "val" ? data::Split::Val
                                               : data::Split::Test;
  std::vector<data::PreviewClip> clips;
  std::string error;
  if (!data::previewClips(*cfg, split, a.epoch, a.clip, a.count, clips, &error)) {
    std::cerr << "data preview: " << error << "\n";
    return 1;
  }
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
    const auto& r = c.info.region;
    nlohmann::json ops = nlohmann::json::array(), boxes = nlohmann::json::array();
    for (const auto& op : c.info.augment_ops)
      ops.push_back(
          {{"op", data::augOpName(op.op)}, {"arg", op.arg}, {"text", data::describeAugOp(op)}});
    for (const auto& b : c.info.erased_boxes)
      boxes.push_back({{"y", b.top}, {"x", b.left}, {"height", b.height}, {"width", b.width}});
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
           {"shape", c.shape}});
      continue;
    }
    std::cout << path << "\n  " << c.path << "  label " << c.label
              << (c.label_name.empty() ? "" : " " + c.label_name)
              << (split == data::Split::Test ? "  view " + std::to_string(c.view) : "")
              << "\n  frames";
    for (const auto f : c.info.frame_indices) std::cout << " " << f;
    std::cout << "\n  region " << r.width << "x" << r.height << " at (" << r.x << ", " << r.y
              << ") of " << c.info.decoded.width << "x" << c.info.decoded.height
              << (c.info.flipped ? ", flipped" : "") << " -> " << c.crop << "x" << c.crop;
    std::cout << "\n";
    if (!c.shape.empty()) std::cout << "  " << c.shape << "\n";
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
  acceptOverrides(preview);
  preview->callback([args, preview, &exitCode] {
    args->overrides = overridesOf(preview);
    exitCode = runPreview(*args);
  });
}

}  // namespace amp::cli
