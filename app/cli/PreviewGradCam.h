#pragma once
// `data preview --grad-cam`: Grad-CAM heat maps over the previewed clips (vis/GradCam.h), one
// more PNG per clip beside its contact sheet, with a legend (colour bar, target class, layer),
// and what the map was made of in words and in --json.
//
//   PreviewGradCamArgs args;                       // filled by addPreviewGradCamOptions
//   std::string error;
//   auto cam = PreviewGradCam::open(cfg, args, &error);
//   nlohmann::json about;
//   if (!cam || !cam->write(clip, "out/clip0_gradcam.png", about, &error)) fail(error);
//   std::cout << PreviewGradCam::describe(about);
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/ClipPreview.h"
#include "vis/ColourMap.h"
#include "vis/GradCam.h"
#include "vis/GradCamSheet.h"

namespace amp::config {
class Config;
}

namespace amp::cli {

struct PreviewGradCamArgs {
  bool on = false;
  std::string checkpoint;
  int target_class = -1;
  bool true_label = false;
  std::vector<std::string> layers;
  std::string colormap;  ///< "": TENSORBOARD.MODEL_VIS.GRAD_CAM.COLORMAP
  double alpha = vis::kDefaultAlpha;
};

/// --grad-cam, --checkpoint, --target-class, --true-label, --layer, --colormap, --alpha.
void addPreviewGradCamOptions(CLI::App& preview, PreviewGradCamArgs& args);

class PreviewGradCam {
 public:
  /// The model and its checkpoint loaded, the layers and colour map checked; nullptr with
  /// `error` naming the option, key or file.
  static std::unique_ptr<PreviewGradCam> open(const config::Config& cfg,
                                              const PreviewGradCamArgs& args, std::string* error);
  /// Writes `clip`'s heat-mapped sheet to `png` and describes it in `about` (png, target_class,
  /// target_name, target, score, top, layers, colormap, precision, flat_layers).
  [[nodiscard]] bool write(const data::PreviewClip& clip, const std::string& png,
                           nlohmann::json& about, std::string* error);
  /// `about` in words, two indented lines.
  static std::string describe(const nlohmann::json& about);

 private:
  PreviewGradCam() = default;
  std::unique_ptr<vis::GradCam> cam_;
  const vis::ColourMap* colours_ = nullptr;
  double alpha_ = 0.5;
  std::map<int, std::string> names_;
};

}  // namespace amp::cli
