#include "models/ActivationTap.h"

#include <algorithm>
#include <stdexcept>

namespace amp::models {
namespace {

thread_local ActivationTap* active = nullptr;

// PySlowFast's layer names join module names with "/" (visualization/utils.get_layer); LibTorch's
// named_modules joins them with ".".
std::string slashed(std::string name) {
  std::replace(name.begin(), name.end(), '.', '/');
  return name;
}

}  // namespace

ActivationTap::ActivationTap(std::vector<const torch::nn::Module*> modules)
    : modules_(std::move(modules)), outputs_(modules_.size()) {
  if (active) throw std::logic_error("ActivationTap: this thread already has one");
  active = this;
}

ActivationTap::~ActivationTap() {
  active = nullptr;
}

torch::Tensor ActivationTap::pass(const torch::nn::Module& m, torch::Tensor y,
                                  std::vector<std::int64_t> grid, bool classToken) {
  if (!active) return y;
  const auto& watched = active->modules_;
  const auto at = std::find(watched.begin(), watched.end(), &m);
  if (at == watched.end()) return y;
  auto& out = active->outputs_[static_cast<std::size_t>(at - watched.begin())];
  out = {y, std::move(grid), classToken};
  return y.clone();
}

std::vector<std::string> tapLayerNames(const torch::nn::Module& net) {
  std::vector<std::string> names;
  for (const auto& item : net.named_modules("", /*include_self=*/false))
    if (dynamic_cast<const TapPoint*>(item.value().get())) names.push_back(slashed(item.key()));
  return names;
}

const torch::nn::Module* findTapLayer(const torch::nn::Module& net, const std::string& name,
                                      std::string* error) {
  const std::string wanted = slashed(name);
  for (const auto& item : net.named_modules("", /*include_self=*/false))
    if (slashed(item.key()) == wanted) {
      if (dynamic_cast<const TapPoint*>(item.value().get())) return item.value().get();
      break;  // a module, but not one whose output is watched (a convolution, a norm ...)
    }
  if (error) {
    std::string list;
    for (const auto& n : tapLayerNames(net)) list += (list.empty() ? "" : ", ") + n;
    *error = "'" + name + "' is not a layer Grad-CAM can use; the model's layers are: " + list;
  }
  return nullptr;
}

}  // namespace amp::models
