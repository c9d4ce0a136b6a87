#include "amp/GradScaler.h"

#include <stdexcept>

namespace amp::precision {

GradScaler::GradScaler(GradScalerOptions options)
    : options_(options), pendingScale_(options.init_scale) {}

void GradScaler::lazyInit(const torch::Device& device) {
  if (scale_.defined() && scale_.device() == device) return;
  const double s = scale_.defined() ? scale_.item<double>() : pendingScale_;
  const std::int64_t t =
      growthTracker_.defined() ? growthTracker_.item<std::int64_t>() : pendingTracker_;
  scale_ = torch::full({1}, s, torch::TensorOptions().dtype(torch::kFloat).device(device));
  growthTracker_ = torch::full({1}, t, torch::TensorOptions().dtype(torch::kInt).device(device));
  foundInf_ = torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat).device(device));
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) {
  if (!options_.enabled) return loss;
  lazyInit(loss.device());
  return loss * scale_.to(loss.scalar_type());
}

void GradScaler::unscale(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled) return;
  if (stage_ == Stage::Unscaled)
    throw std::logic_error("unscale() was already called since the last update()");
  if (stage_ == Stage::Stepped)
    throw std::logic_error("unscale() after step(): call update() first");
  std::vector<torch::Tensor> grads;
  for (auto& group : optimizer.param_groups())
    for (auto& p : group.params())
      if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) {
    stage_ = Stage::Unscaled;
    return;
  }
  lazyInit(grads.front().device());
  foundInf_.zero_();
  // 1/scale computed in double, then float, as torch.cuda.amp does.
  const auto invScale = scale_.to(torch::kDouble).reciprocal().to(torch::kFloat);
#ifdef AMPSTUDIO_WITH_CUDA
  if (grads.front().is_cuda()) {
    at::_amp_foreach_non_finite_check_and_unscale_(grads, foundInf_, invScale);
    if (foundInfSync_) foundInfSync_(foundInf_);
    stage_ = Stage::Unscaled;
    return;
  }
#endif
  for (auto& g : grads) {
    g.mul_(invScale.to(g.scalar_type()));
    foundInf_.add_(torch::logical_not(torch::isfinite(g)).any().to(torch::kFloat));
  }
  foundInf_.clamp_max_(1.0f);
  if (foundInfSync_) foundInfSync_(foundInf_);
  stage_ = Stage::Unscaled;
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!options_.enabled) {
    optimizer.step();
    return true;
  }
  if (stage_ == Stage::Stepped)
    throw std::logic_error("step() was already called since the last update()");
  if (stage_ == Stage::Ready) unscale(optimizer);
  stage_ = Stage::Stepped;
  if (foundInf_.defined() && foundInf_.item<float>() > 0) return false;
  optimizer.step();
  return true;
}

ScaleUpdate GradScaler::update() {
  ScaleUpdate u;
  if (!options_.enabled) return u;
  if (!scale_.defined()) {  // nothing was scaled yet
    u.scale_before = u.scale_after = pendingScale_;
    return u;
  }
  u.scale_before = scale_.item<double>();
  const bool found = foundInf_.item<float>() > 0;
#ifdef AMPSTUDIO_WITH_CUDA
  if (scale_.is_cuda()) {
    at::_amp_update_scale_(scale_, growthTracker_, foundInf_, options_.growth_factor,
                           options_.backoff_factor, options_.growth_interval);
  } else
#endif
  {
    if (found) {
      scale_.mul_(options_.backoff_factor);
      growthTracker_.zero_();
    } else {
      const std::int64_t successful = growthTracker_.item<std::int64_t>() + 1;
      if (successful == options_.growth_interval) {
        const auto grown = scale_ * options_.growth_factor;
        if (torch::isfinite(grown).all().item<bool>()) scale_.copy_(grown);  // never grow to inf
        growthTracker_.zero_();
      } else {
        growthTracker_.fill_(successful);
      }
    }
  }
  u.scale_after = scale_.item<double>();
  u.skipped = found;
  u.backed_off = u.scale_after < u.scale_before;
  u.grew = u.scale_after > u.scale_before;
  foundInf_.zero_();
  stage_ = Stage::Ready;
  return u;
}

double GradScaler::currentScale() const {
  return scale_.defined() ? scale_.item<double>() : pendingScale_;
}

std::int64_t GradScaler::growthTracker() const {
  return growthTracker_.defined() ? growthTracker_.item<std::int64_t>() : pendingTracker_;
}

std::map<std::string, double> GradScaler::stateDict() const {
  if (!options_.enabled) return {};
  return {{"scale", currentScale()},
          {"growth_factor", options_.growth_factor},
          {"backoff_factor", options_.backoff_factor},
          {"growth_interval", static_cast<double>(options_.growth_interval)},
          {"_growth_tracker", static_cast<double>(growthTracker())}};
}

void GradScaler::loadStateDict(const std::map<std::string, double>& state) {
  if (state.empty())
    throw std::invalid_argument("the scaler state is empty (was it saved with the scaler off?)");
  auto get = [&](const char* key) {
    auto it = state.find(key);
    if (it == state.end())
      throw std::invalid_argument(std::string("the scaler state lacks '") + key + "'");
    return it->second;
  };
  pendingScale_ = get("scale");
  options_.growth_factor = get("growth_factor");
  options_.backoff_factor = get("backoff_factor");
  options_.growth_interval = static_cast<std::int64_t>(get("growth_interval"));
  pendingTracker_ = static_cast<std::int64_t>(get("_growth_tracker"));
  scale_ = torch::Tensor();
  growthTracker_ = torch::Tensor();
  foundInf_ = torch::Tensor();
  stage_ = Stage::Ready;
}

}  // namespace amp::precision
