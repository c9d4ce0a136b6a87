#pragma once
// Grad-CAM's arithmetic (Selvaraju et al., as PySlowFast's visualization/gradcam_utils.py does it):
// the score of the target class is differentiated with respect to a layer's output A; each
// channel c of each of the layer's frames t gets the weight w_ct = mean over height and width of
// dScore/dA_ct; the map is ReLU(sum_c w_ct A_ct), upsampled trilinearly to the pathway's input
// T x H x W and scaled to [0, 1] per clip ((m - min) / (max - min); PySlowFast adds 1e-6 to the
// divisor, which dims confident predictions' maps: see localizationMap). Internal to the engine
// (LibTorch types); vis/GradCam.h is the front ends' way in.
//
//   models::ActivationTap tap(layers);                      // one layer per pathway
//   auto maps = vis::gradCamMaps(*net, tap, inputs, {-1});  // -1: the predicted class
//   maps.maps[0]   // N x T x H x W in [0, 1], pathway 0's map
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "models/ActivationTap.h"
#include "models/Net.h"
#include "train/PrecisionPolicy.h"

namespace amp::vis {

/// One pathway's map from a layer's output and the score's gradient there (both N x C x T' x H' x
/// W'), in float32 whatever they were computed in: N x T x H x W, each clip scaled to [0, 1].
torch::Tensor localizationMap(const torch::Tensor& activation, const torch::Tensor& gradient,
                              std::int64_t frames, std::int64_t height, std::int64_t width);

/// A tapped output as N x C x T x H x W: MViT's tokens (N x (1 +) THW x C) put back on their
/// grid, the class token left out; other outputs as they are.
torch::Tensor onGrid(const models::ActivationTap::Output& out, const torch::Tensor& t);

struct CamMaps {
  std::vector<torch::Tensor> maps;    ///< per pathway: N x T x H x W in [0, 1], float32, CPU
  torch::Tensor scores;               ///< N x classes: the model's output (float32, CPU, detached)
  std::vector<std::int64_t> targets;  ///< per clip: the class whose score was differentiated
};

/// Runs `net` (the caller has it in eval mode, with `tap` watching one layer per pathway) on
/// `inputs` (one tensor per pathway) and differentiates the summed scores of `targets` (per clip;
/// -1: the clip's top-1 class, PySlowFast's default) with respect to the tapped outputs. The
/// forward runs under `policy`'s autocast (mixed precision: float16 or bfloat16 activations and
/// gradients), the maps in float32 outside it. Throws std::runtime_error when a layer did not run
/// or its output is not a pathway's feature map, std::invalid_argument for a class out of range.
CamMaps gradCamMaps(models::VideoNetImpl& net, const models::ActivationTap& tap,
                    const std::vector<torch::Tensor>& inputs, std::vector<std::int64_t> targets,
                    const train::PrecisionPolicy& policy = {});

}  // namespace amp::vis
