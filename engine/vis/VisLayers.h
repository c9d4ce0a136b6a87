#pragma once
// The model's layers that TENSORBOARD.MODEL_VIS.LAYER_LIST names, found as PySlowFast's get_layer
// finds them (module names joined by "/"), for the visualisation run: each layer's weight
// (MODEL_WEIGHTS; a layer without one is skipped with a note, as PySlowFast logs and skips it)
// and whether its output can be watched (ACTIVATIONS: LibTorch's modules have no forward hooks,
// so only the blocks that hand their output to models::ActivationTap, the residual and
// non-local blocks, stems and MViT blocks, can be; PySlowFast can hook any module, here a
// convolution's activation is skipped with a note). A name that is not a layer is an error
// listing the nearest names. Internal to the engine (LibTorch).
//
//   auto specs = vis::parseLayerSpecs(cfg.getStringList(vis::kModelVisLayersKey), &error);
//   vis::VisLayers layers = vis::findVisLayers(*net, *specs, /*activations=*/true);  // throws
//   for (const auto& l : layers.layers) draw(l.spec.name, l.weight);
#include <torch/torch.h>

#include <string>
#include <vector>

#include "vis/LayerSpec.h"

namespace amp::vis {

struct VisLayer {
  LayerSpec spec;
  const torch::nn::Module* module = nullptr;
  torch::Tensor weight;    ///< undefined when the layer has none
  bool watchable = false;  ///< its output can be watched (ActivationTap)
};

struct VisLayers {
  std::vector<VisLayer> layers;
  std::vector<std::string> notes;        ///< activations skipped, and why
  std::vector<std::string> weightNotes;  ///< weights skipped (a layer without one), and why
};

/// Every module name of `net` as PySlowFast spells it ("s1/pathway0_stem/conv"), in module order.
std::vector<std::string> slashedModuleNames(const torch::nn::Module& net);

/// The layers of `specs` in `net`. Throws std::invalid_argument naming the key for a name that is
/// not a module of `net` (the nearest names listed). With `activations`, a layer whose output
/// cannot be watched gets a note naming the nearest watchable ones.
VisLayers findVisLayers(const torch::nn::Module& net, const std::vector<LayerSpec>& specs,
                        bool activations);

}  // namespace amp::vis
