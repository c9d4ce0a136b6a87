#include "config/Refusals.h"

#include <cctype>

#include "config/Config.h"

namespace amp::config {

std::vector<Refusal> refusedSettings(const Config& c, bool training) {
  std::vector<Refusal> out;
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  // Detection is AVA's: boxes come from its box lists, and only the ResNet / SlowFast and MViT
  // builders have PySlowFast's RoI head (its X3D has none, nor its reversible MViT).
  const bool detection = c.getBool("DETECTION.ENABLE");
  const std::string datasetKey = training ? "TRAIN.DATASET" : "TEST.DATASET";
  const bool ava = lower(c.getString(datasetKey)) == "ava";
  if (detection && !ava)
    out.push_back({"DETECTION.ENABLE",
                   "True asks for action detection, whose boxes only the ava dataset gives; set "
                   "it to False for classification, or " +
                       datasetKey + " to ava (with the AVA.* folders)"});
  if (ava && !detection)
    out.push_back({"DETECTION.ENABLE",
                   "False, but AVA is action detection (a prediction per person box); set it to "
                   "True, as PySlowFast's configs/AVA do"});
  if (detection && ava) {
    const std::string model = c.getString("MODEL.MODEL_NAME");
    if (model != "SlowFast" && model != "ResNet" && model != "MViT")
      out.push_back({"MODEL.MODEL_NAME",
                     "'" + model +
                         "' has no detection head (PySlowFast builds the RoI head for the ResNet "
                         "and SlowFast families and MViT); use SlowFast, ResNet or MViT with "
                         "DETECTION.ENABLE"});
    if (training && c.getBool("BN.USE_PRECISE_STATS"))
      out.push_back({"BN.USE_PRECISE_STATS",
                     "True recomputes the batch-norm statistics by running the model on training "
                     "clips without their boxes, which a detection model cannot do (PySlowFast's "
                     "precise BN fails there too; its AVA configs keep it False); set it to "
                     "False"});
    // MViT's Kinetics configs turn mixup on; PySlowFast's MixUp one-hot encodes class indices
    // and fails on AVA's per-box multi-hot targets, and mixing clips under their boxes is no
    // task of its AVA configs.
    if (training && c.getBool("MIXUP.ENABLE"))
      out.push_back({"MIXUP.ENABLE",
                     "True mixes clips and their class targets, but AVA's targets are per person "
                     "box (PySlowFast's MixUp fails on them; its AVA configs keep it off); set "
                     "it to False"});
  }
  // Multi-label targets come from Charades' frame lists only: PySlowFast's Kinetics and SSv2 give
  // class indices, which its multi-label meters cannot score, and Charades' multi-hot vectors
  // break its single-label top-k.
  const bool charades =
      lower(c.getString(training ? "TRAIN.DATASET" : "TEST.DATASET")) == "charades";
  if (c.getBool("DATA.MULTI_LABEL") && !charades)
    out.push_back({"DATA.MULTI_LABEL",
                   "True asks for multi-label targets, which only the charades dataset gives "
                   "(per-frame label lists); set it to False, or TRAIN.DATASET to charades"});
  if (charades && !c.getBool("DATA.MULTI_LABEL"))
    out.push_back({"DATA.MULTI_LABEL",
                   "False, but Charades' targets are multi-hot class sets scored by mAP; set it "
                   "to True (as PySlowFast's configs/Charades do)"});
  // PySlowFast trains every other TASK as classification: the name only prefixes the checkpoint
  // files, and an "ssl_eval" task starts from the "ssl" run's checkpoint (TrainerRun.cpp).
  if (const std::string task = c.getString("TASK"); task == "ssl")
    out.push_back({"TASK",
                   "'ssl' asks for self-supervised pre-training, which the studio does not train; "
                   "leave TASK empty for video classification, or name the evaluation of a "
                   "pre-trained model (e.g. ssl_eval_k400)"});
  else if (task.find('/') != std::string::npos)
    out.push_back({"TASK", "'" + task +
                               "' would put the checkpoints (<TASK>_checkpoint_epoch_N.pyth) "
                               "outside OUTPUT_DIR/checkpoints; leave TASK empty or use a name "
                               "without '/'"});
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
  for (const char* key : {"TRAIN.DATASET", "TEST.DATASET"}) {
    if (!training && std::string(key) == "TRAIN.DATASET") continue;
    if (const std::string d = lower(c.getString(key));
        d != "kinetics" && d != "ssv2" && d != "charades" && d != "ava")
      out.push_back({key, "'" + c.getString(key) +
                              "' is not read by the studio, which reads kinetics (train.csv / "
                              "val.csv / test.csv of 'path label' lines), ssv2, charades "
                              "(frame lists) and ava (frame lists and box lists); set one of "
                              "those"});
  }
  if (training) {
    const std::string loss = c.getString("MODEL.LOSS_FUNC");
    if (charades && loss != "bce_logit" && loss != "bce")
      out.push_back({"MODEL.LOSS_FUNC",
                     loss + " takes class indices, but Charades' targets are multi-hot; use "
                            "bce_logit (as PySlowFast's configs/Charades do)"});
    if (detection && ava && loss != "bce" && loss != "bce_logit")
      out.push_back({"MODEL.LOSS_FUNC",
                     loss + " takes class indices, but each AVA box has a set of actions; use bce "
                            "(as PySlowFast's configs/AVA, on the head's sigmoid) or bce_logit"});
    if (loss == "bce" && !detection && !ava)  // with ava, DETECTION.ENABLE is what to set
      out.push_back(
          {"MODEL.LOSS_FUNC",
           "bce takes probabilities, but PySlowFast's heads give logits while training (HEAD_ACT "
           "applies only in evaluation), so its BCELoss fails there, and it cannot run under "
           "autocast; use bce_logit, the same loss on logits"});
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
      out.push_back({"MVIT.REV.ENABLE",
                     detection ? "reversible MViT has no detection head (PySlowFast asserts not "
                                 "DETECTION.ENABLE there) and is not built; set it to False"
                               : "reversible MViT is not built; set it to False"});
    if (c.getBool("MVIT.USE_FIXED_SINCOS_POS"))
      out.push_back({"MVIT.USE_FIXED_SINCOS_POS",
                     "fixed sine-cosine embeddings are not built; set it to False"});
  }
  return out;
}

}  // namespace amp::config
