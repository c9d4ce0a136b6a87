#pragma once
// PySlowFast's construct_optimizer and the gradient utilities of the training step. Internal to
// the engine (LibTorch types).
#include <torch/torch.h>

#include <memory>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::train {

/// SGD, Adam or AdamW (SOLVER.OPTIMIZING_METHOD) over three groups as PySlowFast: batch-norm
/// parameters with BN.WEIGHT_DECAY, 1-D parameters and biases with no decay when
/// SOLVER.ZERO_WD_1D_PARAM or named by the model's noWeightDecayNames(), the rest with
/// SOLVER.WEIGHT_DECAY.
/// SOLVER.LAYER_DECAY below 1 builds PySlowFast's get_param_groups instead: one group per MViT
/// layer and kind (layer_<id>_non_bn, layer_<id>_zero, in the order their first parameter
/// comes), layer 0 the patch embedding, positional embeddings and class token, layer i + 1 block
/// i, layer DEPTH + 1 the rest (final norm, head), each with the multiplier
/// LAYER_DECAY^(DEPTH + 1 - id) written to `layerDecay` (one per group; all 1 otherwise). Like
/// PySlowFast it refuses models with batch norm (std::invalid_argument naming the key).
std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const config::Config& c,
                                                        torch::nn::Module& net,
                                                        std::vector<double>* layerDecay = nullptr);
/// Every group's learning rate: lr times the group's layer-decay multiplier (PySlowFast's set_lr);
/// `layerDecay` empty: lr for every group.
void setLearningRate(torch::optim::Optimizer& optimizer, double lr,
                     const std::vector<double>& layerDecay = {});
/// Global L2 norm of all gradients (after unscaling, before clipping).
double globalGradNorm(torch::nn::Module& net);
void clipGradientsByValue(torch::nn::Module& net, double value);
void clipGradientsByNorm(torch::nn::Module& net, double maxNorm);

}  // namespace amp::train
