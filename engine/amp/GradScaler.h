#pragma once
// Dynamic loss scaling with PyTorch's GradScaler semantics (LibTorch has no C++ GradScaler):
// scale the loss, unscale the gradients once per optimizer step (before clipping), skip the
// step when any gradient is inf/NaN and back the scale off, grow it after `growth_interval`
// clean steps. Fused ATen kernels on CUDA, plain tensor operations elsewhere. Internal to the
// engine (LibTorch types).
#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>

namespace amp::precision {

struct GradScalerOptions {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  std::int64_t growth_interval = 2000;
  bool enabled = true;
};

/// What one update() did.
struct ScaleUpdate {
  double scale_before = 1.0;
  double scale_after = 1.0;
  bool skipped = false;  ///< the optimizer step was skipped (inf/NaN gradients)
  bool backed_off = false;
  bool grew = false;
};

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});

  bool enabled() const { return options_.enabled; }
  /// loss x scale (the loss itself when disabled).
  torch::Tensor scale(const torch::Tensor& loss);
  /// Divides the optimizer's gradients by the scale in place and records inf/NaN. Once per
  /// step: a second call before step() throws std::logic_error, as PyTorch does.
  void unscale(torch::optim::Optimizer& optimizer);
  /// Unscales if not done yet, then steps unless inf/NaN were found. True when it stepped.
  bool step(torch::optim::Optimizer& optimizer);
  /// Adjusts the scale after step(); call once per optimizer step.
  ScaleUpdate update();

  /// Data-parallel training: called on the inf/NaN flag after every unscale, to make it the
  /// maximum over all ranks, so every rank skips (and backs off) or steps together.
  void setFoundInfSync(std::function<void(torch::Tensor&)> sync) {
    foundInfSync_ = std::move(sync);
  }

  double currentScale() const;
  std::int64_t growthTracker() const;
  const GradScalerOptions& options() const { return options_; }

  /// PyTorch's GradScaler.state_dict(): scale, growth_factor, backoff_factor, growth_interval,
  /// _growth_tracker (so checkpoints load in Python too).
  std::map<std::string, double> stateDict() const;
  void loadStateDict(const std::map<std::string, double>& state);

 private:
  void lazyInit(const torch::Device& device);
  GradScalerOptions options_;
  torch::Tensor scale_;          ///< float32, on the gradients' device
  torch::Tensor growthTracker_;  ///< int32
  torch::Tensor foundInf_;       ///< float32, 1 when the last unscale saw inf/NaN
  enum class Stage { Ready, Unscaled, Stepped } stage_ = Stage::Ready;
  std::function<void(torch::Tensor&)> foundInfSync_;
  double pendingScale_;  ///< before the first use, or after loadStateDict
  std::int64_t pendingTracker_ = 0;
};

}  // namespace amp::precision
