#pragma once
// What front ends (CLI, GUI) may know about a model, without LibTorch types.
#include <cstdint>
#include <string>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::models {

struct StateEntry {
  std::string name;                 ///< e.g. "s2.pathway0_res0.branch2.a.weight"
  std::vector<std::int64_t> shape;  ///< empty for a scalar (num_batches_tracked)
  bool parameter = true;            ///< false for buffers (running stats)
};

struct ModelSummary {
  std::string name;  ///< MODEL.MODEL_NAME / MODEL.ARCH
  std::int64_t parameters = 0;
  std::vector<StateEntry> state;           ///< in state-dict order
  std::vector<std::int64_t> output_shape;  ///< for one clip (and one box), evaluation mode
  std::int64_t macs = 0;  ///< multiply-adds of that forward pass (PySlowFast's "FLOPs")
  std::vector<std::vector<std::int64_t>> input_shapes;  ///< per pathway: 1 x C x T x H x W
};

/// Builds the config's model and describes it. `runForward` also runs one clip at the config's
/// input size (DATA.NUM_FRAMES, DATA.TRAIN_CROP_SIZE) to get the output shape.
/// Throws std::invalid_argument naming the config key when the model cannot be built.
ModelSummary summarizeModel(const config::Config& cfg, bool runForward);

/// "AxBxC", or "scalar" for a 0-dimensional entry, as PySlowFast's reference key files.
std::string shapeText(const std::vector<std::int64_t>& shape);

}  // namespace amp::models
