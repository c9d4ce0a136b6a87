#include "config/Refusals.h"

#include <cctype>

#include "config/Config.h"

namespace amp::config {

std::vector<Refusal> refusedSettings(const Config& c, bool training) {
  std::vector<Refusal> out;
  if (c.getBool("DETECTION.ENABLE"))
    out.push_back(
        {"DETECTION.ENABLE",
         "True asks for action detection (AVA boxes), which the studio does not train or test; "
         "set it to False for classification"});
  if (c.getBool("DATA.MULTI_LABEL"))
    out.push_back({"DATA.MULTI_LABEL",
                   "True asks for multi-label training (Charades-style, mAP), which the studio "
                   "does not do; set it to False for "
                   "single-label classification"});
  if (const std::string task = c.getString("TASK"); !task.empty())
    out.push_back(
        {"TASK",
         "'" + task + "' asks for " +
             (task == "ssl" ? std::string("self-supervised pre-training") : "another task") +
             ", which the studio does not train; leave TASK empty for video classification"});
  if (c.getBool("MASK.ENABLE"))
    out.push_back({"MASK.ENABLE",
                   "True asks for masked-video pre-training (MaskFeat / MAE), which the studio "
                   "does not train; "
                   "set it to False for classification"});
  const std::string name = c.getString("MODEL.MODEL_NAME");
  if (name == "ContrastiveModel" || name == "MaskMViT")
    out.push_back({"MODEL.MODEL_NAME", "'" + name + "' is a " +
                                           (name == "ContrastiveModel" ? "contrastive" : "masked") +
                                           " pre-training model, which the studio does not train; "
                                           "use SlowFast, ResNet, X3D or MViT"});
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  for (const char* key : {"TRAIN.DATASET", "TEST.DATASET"}) {
    if (!training && std::string(key) == "TRAIN.DATASET") continue;
    if (const std::string d = c.getString(key); lower(d) != "kinetics")
      out.push_back(
          {key, "'" + d +
                    "' is not read by the studio, which reads Kinetics-style lists (train.csv / "
                    "val.csv / "
                    "test.csv of 'path label' lines); set it to kinetics for such lists"});
  }
  if (training) {
    const std::string loss = c.getString("MODEL.LOSS_FUNC");
    if (loss == "bce")
      out.push_back(
          {"MODEL.LOSS_FUNC",
           "bce takes probabilities and multi-hot labels (PySlowFast's multi-label tasks), which "
           "the studio does not train; use cross_entropy or bce_logit"});
    else if (loss == "contrastive_loss" || loss == "mse" || loss == "multi_mse")
      out.push_back(
          {"MODEL.LOSS_FUNC",
           loss + " belongs to a task the studio does not train (contrastive or regression); use "
                  "cross_entropy, soft_cross_entropy or bce_logit"});
  }
  if (name == "MViT") {
    if (c.getBool("MVIT.PATCH_2D"))
      out.push_back({"MVIT.PATCH_2D", "2D patches are not built; set it to False"});
    if (c.getBool("MVIT.REV.ENABLE"))
      out.push_back({"MVIT.REV.ENABLE", "reversible MViT is not built; set it to False"});
    if (c.getBool("MVIT.USE_FIXED_SINCOS_POS"))
      out.push_back({"MVIT.USE_FIXED_SINCOS_POS",
                     "fixed sine-cosine embeddings are not built; set it to False"});
  }
  return out;
}

}  // namespace amp::config
