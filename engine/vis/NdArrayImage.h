#pragma once
// PySlowFast's pictures of weights and activations (tensorboard_vis.plot_weights_and_activations
// and add_ndim_array): an array of any rank as one image. A clip's slice of an activation is
// taken with the layer's fancy indexing (vis/LayerSpec.h) first. Then a 1-D array of n values is
// laid out in rows of floor(sqrt(n)); a 2-D array is the image; a higher rank is cut into its
// 2-D slices (the last two dimensions), laid in a grid floor(sqrt(slices)) wide with a 1-pixel
// black border (torchvision's make_grid, padding 1; one slice alone has none). Activations are
// drawn through viridis (add_heatmap), weights as grey levels; either way a value v becomes
// min(max(v x 255, 0), 255) truncated, as SummaryWriter.add_image stores floats, so weights below
// 0 are black there as in PySlowFast's TensorBoard. Internal to the engine (LibTorch types).
//
//   auto clip = vis::selectForClip(activation, 0, spec.indexing);   // throws std::invalid_argument
//   vis::NdImage img = vis::ndArrayImage(clip, /*heatMap=*/true);
//   if (img.error.empty()) writer.addImages({{tag, img.width, img.height, png(img)}}, ...);
#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amp::vis {

/// `array[clip][indexing]` as numpy reads array[(clip, *indexing)] (the indices of each dimension
/// broadcast together); with no clip, the whole array. Throws std::invalid_argument saying which
/// index is out of range or which lists do not broadcast.
torch::Tensor selectForClip(const torch::Tensor& array, std::optional<std::int64_t> clip,
                            const std::vector<std::vector<std::int64_t>>& indexing);

struct NdImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  ///< width x height x 3
  /// Why there is no image ("" when there is): a 0-d array, a 1-D array of n values that rows of
  /// floor(sqrt(n)) do not divide (PySlowFast's view raises there), an image too large.
  std::string error;
};

/// `array` (any dtype and device) as add_ndim_array draws it.
NdImage ndArrayImage(const torch::Tensor& array, bool heatMap);

}  // namespace amp::vis
