#pragma once
// TENSORBOARD.MODEL_VIS.LAYER_LIST's entries as PySlowFast's process_layer_index_data reads them:
// a layer name ("s2/pathway0_res0", module names joined by "/"), then optionally, after white
// space, numpy-like fancy indexing of the layer's activation: indices of one dimension separated
// by ",", dimensions separated by ";" ("s2/pathway0_res0 1,2;0" takes channels 1 and 2 of frame
// 0, as activation[clip, [1, 2], [0]]). Torch-free; vis/NdArrayImage applies the indexing.
//
//   std::string error;
//   auto specs = vis::parseLayerSpecs(cfg.getStringList("TENSORBOARD.MODEL_VIS.LAYER_LIST"),
//                                     &error);
//   if (!specs) return fail(error);
//   (*specs)[0].name      // "s2/pathway0_res0"
//   (*specs)[0].indexing  // {{1, 2}, {0}}
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amp::vis {

inline constexpr const char* kModelVisLayersKey = "TENSORBOARD.MODEL_VIS.LAYER_LIST";

struct LayerSpec {
  std::string name;
  /// Per dimension after the clip's, the indices taken (negative ones count from the end, as in
  /// numpy); empty: the whole activation of the clip.
  std::vector<std::vector<std::int64_t>> indexing;
  std::string text;  ///< the entry as written, for messages
};

/// Each entry parsed. nullopt with `error` naming the key, the entry and what is wrong (an empty
/// entry, more than a name and an indexing, an index that is not an integer).
std::optional<std::vector<LayerSpec>> parseLayerSpecs(const std::vector<std::string>& entries,
                                                      std::string* error);

/// The `count` names of `names` nearest to `name` (edit distance, ties in `names`' order): what
/// an error about a layer that is not there suggests.
std::vector<std::string> nearestNames(const std::string& name,
                                      const std::vector<std::string>& names, std::size_t count);

}  // namespace amp::vis
