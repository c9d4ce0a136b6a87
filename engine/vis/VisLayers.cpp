#include "vis/VisLayers.h"

#include <stdexcept>

#include "models/ActivationTap.h"

namespace amp::vis {
namespace {

std::string withSlashes(std::string name) {
  for (auto& c : name)
    if (c == '.') c = '/';
  return name;
}

std::string commaList(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<std::string> slashedModuleNames(const torch::nn::Module& net) {
  std::vector<std::string> out;
  for (const auto& item : net.named_modules("", /*include_self=*/false))
    out.push_back(withSlashes(item.key()));
  return out;
}

VisLayers findVisLayers(const torch::nn::Module& net, const std::vector<LayerSpec>& specs,
                        bool activations) {
  VisLayers out;
  const auto modules = net.named_modules("", /*include_self=*/false);
  const auto names = slashedModuleNames(net);
  const auto watchable = models::tapLayerNames(net);
  for (const auto& spec : specs) {
    const std::string wanted = withSlashes(spec.name);
    VisLayer layer;
    layer.spec = spec;
    for (const auto& item : modules)
      if (withSlashes(item.key()) == wanted) layer.module = item.value().get();
    if (!layer.module)
      throw std::invalid_argument(
          std::string(kModelVisLayersKey) + ": the model has no layer '" + spec.name +
          "'; the nearest are " + commaList(nearestNames(wanted, names, 6)) +
          " (ampstudio-cli model summary --keys lists the weights: a weight's name less its last "
          "part, \".\" read as \"/\", is a layer)");
    layer.watchable = dynamic_cast<const models::TapPoint*>(layer.module) != nullptr;
    if (activations && !layer.watchable)
      out.notes.push_back("TENSORBOARD.MODEL_VIS.ACTIVATIONS: " + spec.name +
                          "'s output cannot be watched here (LibTorch modules have no forward "
                          "hooks; only blocks and stems are watched): no activations of it; the "
                          "nearest watched layers are " +
                          commaList(nearestNames(wanted, watchable, 4)));
    for (const auto& p : layer.module->named_parameters(/*recurse=*/false))
      if (p.key() == "weight") layer.weight = p.value();
    if (!layer.weight.defined())
      out.weightNotes.push_back(
          "layer " + spec.name +
          " has no weight of its own: no Layer Weights picture (PySlowFast logs "
          "the same and skips it)");
    out.layers.push_back(std::move(layer));
  }
  return out;
}

}  // namespace amp::vis
