#include "PreviewGradCam.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include "config/Config.h"
#include "data/ClassNames.h"
#include "data/ImageWriter.h"

namespace amp::cli {
namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

}  // namespace

void addPreviewGradCamOptions(CLI::App& preview, PreviewGradCamArgs& a) {
  auto* on = preview.add_flag(
      "--grad-cam", a.on,
      "Also write each clip's Grad-CAM heat map over its frames (<name>_gradcam.png): where the "
      "model looks for the predicted class (TENSORBOARD.MODEL_VIS.GRAD_CAM.*)");
  preview
      .add_option("--checkpoint", a.checkpoint,
                  "Grad-CAM's weights (default: TEST.CHECKPOINT_FILE_PATH, else the newest in "
                  "OUTPUT_DIR, else TRAIN.CHECKPOINT_FILE_PATH)")
      ->check(CLI::ExistingFile)
      ->needs(on);
  auto* target = preview
                     .add_option("--target-class", a.target_class,
                                 "Grad-CAM of this class (default: the predicted top-1 class)")
                     ->check(CLI::NonNegativeNumber)
                     ->needs(on);
  preview
      .add_flag("--true-label", a.true_label,
                "Grad-CAM of each clip's label (GRAD_CAM.USE_TRUE_LABEL) instead of the prediction")
      ->needs(on)
      ->excludes(target);
  preview
      .add_option("--layer", a.layers,
                  "Grad-CAM's layer, once per pathway in pathway order, PySlowFast's names "
                  "(e.g. s5/pathway0_res2; default GRAD_CAM.LAYER_LIST, else the last residual "
                  "block of each pathway)")
      ->allow_extra_args(false)  // one name per --layer: KEY VALUE overrides may follow
      ->needs(on);
  preview
      .add_option("--colormap", a.colormap,
                  "Colour map of the heat map: viridis, plasma, inferno, magma or jet (default "
                  "GRAD_CAM.COLORMAP)")
      ->needs(on);
  preview
      .add_option("--alpha", a.alpha,
                  "Weight of the heat map over the frame, 0 .. 1 (default 0.5, as PySlowFast)")
      ->check(CLI::Range(0.0, 1.0))
      ->needs(on);
}

std::unique_ptr<PreviewGradCam> PreviewGradCam::open(const config::Config& cfg,
                                                     const PreviewGradCamArgs& a,
                                                     std::string* error) {
  std::unique_ptr<PreviewGradCam> p(new PreviewGradCam);
  const std::string mapName =
      a.colormap.empty() ? cfg.getString("TENSORBOARD.MODEL_VIS.GRAD_CAM.COLORMAP") : a.colormap;
  std::string why;
  p->colours_ = vis::findColourMap(mapName, &why);
  if (!p->colours_) {
    if (error)
      *error =
          (a.colormap.empty() ? "TENSORBOARD.MODEL_VIS.GRAD_CAM.COLORMAP: " : "--colormap: ") + why;
    return nullptr;
  }
  p->alpha_ = a.alpha;
  vis::GradCamOptions o;
  o.checkpoint = a.checkpoint;
  o.layers = a.layers;
  o.layers_source = a.layers.empty() ? "" : "--layer";
  o.target_class = a.target_class;
  o.true_label = a.true_label;
  p->cam_ = vis::GradCam::open(cfg, o, error);
  if (!p->cam_) return nullptr;
  // Class names as predict shows them; a names file that is not there costs the names only.
  if (const std::string labels = cfg.getString("DEMO.LABEL_FILE_PATH"); !labels.empty()) {
    std::error_code ec;
    std::string ignored;
    if (std::filesystem::exists(labels, ec) && !data::readClassNames(labels, p->names_, ignored))
      p->names_.clear();
  }
  return p;
}

bool PreviewGradCam::write(const data::PreviewClip& clip, const std::string& png,
                           nlohmann::json& about, std::string* error) {
  vis::GradCamResult r;
  if (!cam_->run(clip, r, error)) return false;
  auto name = [&](int k) {
    const auto n = names_.find(k);
    return n == names_.end() ? std::string() : n->second;
  };
  const std::string how = r.target_is_prediction ? "predicted"
                          : r.target_is_label    ? "the clip's label"
                                                 : "chosen";
  std::vector<std::string> flat;
  for (const auto& m : r.maps)
    if (m.flat) flat.push_back(m.layer);
  const std::string caption = "Grad-CAM: class " + std::to_string(r.target_class) +
                              (name(r.target_class).empty() ? "" : " " + name(r.target_class)) +
                              " (" + how + ", " + fixed(r.target_score, 2) + ")  " +
                              joined(cam_->layers(), " + ") + "  " + colours_->name();
  auto sheet = vis::gradCamSheet(clip, r, *colours_, alpha_);
  std::string fontProblem;
  (void)vis::addLegend(sheet, *colours_, caption, &fontProblem);  // no font: the bar alone
  if (!data::writePng(png, sheet.rgb.data(), sheet.width, sheet.height, error)) return false;
  nlohmann::json top = nlohmann::json::array();
  for (const auto& [k, score] : r.top)
    top.push_back({{"class", k}, {"name", name(k)}, {"score", score}});
  about = {{"png", png},
           {"target_class", r.target_class},
           {"target_name", name(r.target_class)},
           {"target", r.target_is_prediction ? "prediction"
                      : r.target_is_label    ? "label"
                                             : "class"},
           {"score", r.target_score},
           {"top", top},
           {"layers", cam_->layers()},
           {"colormap", colours_->name()},
           {"alpha", alpha_},
           {"precision", r.precision},
           {"checkpoint", cam_->checkpoint()},
           {"flat_layers", flat}};
  if (!fontProblem.empty()) about["legend_text"] = fontProblem;
  return true;
}

std::string PreviewGradCam::describe(const nlohmann::json& a) {
  const std::string target = a["target"];
  std::string s =
      "  Grad-CAM " + a["png"].get<std::string>() + "\n    class " +
      std::to_string(a["target_class"].get<int>()) +
      (a["target_name"].get<std::string>().empty() ? ""
                                                   : " " + a["target_name"].get<std::string>()) +
      " (" +
      (target == "prediction" ? "predicted top-1"
       : target == "label"    ? "the clip's label"
                              : "--target-class") +
      ", score " + fixed(a["score"].get<double>(), 3) + "), layer " +
      joined(a["layers"].get<std::vector<std::string>>(), " + ") + ", " +
      a["colormap"].get<std::string>() + ", " + a["precision"].get<std::string>() + " forward\n";
  for (const auto& layer : a["flat_layers"])
    s += "    " + layer.get<std::string>() +
         ": no positive evidence for this class (the map is zero everywhere)\n";
  return s;
}

}  // namespace amp::cli
