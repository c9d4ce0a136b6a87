#pragma once
// Grad-CAM on the clips the loader builds (data::PreviewClip): a model loaded once from a
// checkpoint, then per clip the map of each pathway's layer for the predicted or a chosen class,
// as PySlowFast's TENSORBOARD.MODEL_VIS.GRAD_CAM does. Torch-free header: `ampstudio-cli data
// preview --grad-cam` and the studio's Clips tab (on its worker thread) use it; the arithmetic is
// vis/GradCamMaps.h.
//
//   vis::GradCamOptions o;
//   o.checkpoint = "run/checkpoints/checkpoint_epoch_00010.pyth";
//   std::string error;
//   auto cam = vis::GradCam::open(cfg, o, &error);
//   vis::GradCamResult r;
//   if (!cam || !cam->run(clip, r, &error)) return fail(error);
//   r.maps[0].values   // T x H x W in [0, 1], pathway 0 (SlowFast: slow; else the only one)
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/ClipPreview.h"
#include "vis/GradCamResult.h"

namespace amp::config {
class Config;
}

namespace amp::vis {

/// The config key of Grad-CAM's layers, named in messages about them.
inline constexpr const char* kLayerListKey = "TENSORBOARD.MODEL_VIS.GRAD_CAM.LAYER_LIST";

struct GradCamOptions {
  /// The weights; "": the test's checkpoint (TEST.CHECKPOINT_FILE_PATH, else the newest of
  /// OUTPUT_DIR, else TRAIN.CHECKPOINT_FILE_PATH).
  std::string checkpoint;
  /// What the front end calls the checkpoint's choice, for messages ("--checkpoint").
  std::string checkpoint_source = "--checkpoint";
  /// One layer per pathway ("s5/pathway0_res2"); empty: TENSORBOARD.MODEL_VIS.GRAD_CAM.LAYER_LIST,
  /// and when that is empty too the last residual block of each pathway (MViT: its last block).
  std::vector<std::string> layers;
  /// Where `layers` came from, for messages ("--layer"); "" : the config key.
  std::string layers_source;
  /// >= 0: this class's score. Else the clip's label when `true_label` (or, neither given,
  /// GRAD_CAM.USE_TRUE_LABEL), else the predicted top-1 class.
  int target_class = -1;
  bool true_label = false;
};

class GradCam {
 public:
  /// Builds the config's model and loads the checkpoint (every weight must fit) and checks the
  /// layers. nullptr with `error` naming the key, option or file: no checkpoint, one of another
  /// model, a layer that is not there (the valid ones listed), the wrong number of layers,
  /// a detection (AVA) config (PySlowFast's Grad-CAM refuses those too).
  static std::unique_ptr<GradCam> open(const config::Config& cfg, const GradCamOptions& options,
                                       std::string* error);
  ~GradCam();
  GradCam(const GradCam&) = delete;
  GradCam& operator=(const GradCam&) = delete;

  const std::string& checkpoint() const;
  /// The layers used, one per pathway.
  const std::vector<std::string>& layers() const;
  /// Every layer the model offers, in module order.
  const std::vector<std::string>& availableLayers() const;
  int classes() const;

  /// The maps of `clip` (built by data::previewClips from the same config). False with `error`
  /// for a target class out of range or a clip of another shape.
  [[nodiscard]] bool run(const data::PreviewClip& clip, GradCamResult& out, std::string* error);

 private:
  struct Impl;
  explicit GradCam(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The last residual block of each pathway of `layers` (every layer of a model):
/// "s5/pathway0_res2", ... , or MViT's last block: where Grad-CAM is usually aimed (the features
/// the head pools), for configs that name no layer.
std::vector<std::string> defaultGradCamLayers(const std::vector<std::string>& layers, int pathways);

/// The layers of `layers` (every layer of a model) grouped for a menu: one entry per block,
/// holding that block's layer of every pathway ("s5/pathway0_res2" with "s5/pathway1_res2"),
/// for blocks that every pathway has; `pathways` is 1 for one-pathway models.
std::vector<std::vector<std::string>> layerChoices(const std::vector<std::string>& layers,
                                                   int pathways);

}  // namespace amp::vis
