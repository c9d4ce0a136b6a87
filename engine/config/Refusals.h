#pragma once
// What train and test refuse in a config that is otherwise valid PySlowFast YAML: tasks other
// than video classification (TASK ssl; the ssl_eval tasks are classification), dataset formats
// other than Kinetics-style lists, losses of such tasks and MViT variants that are not built. One
// list, read by the validator (warnings, so `config check` says what train will refuse), the
// pre-flight checks (errors before Start) and the trainer and tester (which refuse to run).
#include <string>
#include <vector>

namespace amp::config {

class Config;

struct Refusal {
  std::string key;      ///< the key to change, e.g. "DETECTION.ENABLE"
  std::string message;  ///< what it asks for and what to set instead, without the key
};

/// Every refused setting of `c`, in a fixed order. `training`: the run trains (TRAIN.ENABLE), so
/// TRAIN.DATASET and MODEL.LOSS_FUNC count too.
std::vector<Refusal> refusedSettings(const Config& c, bool training);

}  // namespace amp::config
