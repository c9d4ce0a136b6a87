#pragma once
// PySlowFast's construct_optimizer and the gradient utilities of the training step. Internal to
// the engine (LibTorch types).
#include <torch/torch.h>

#include <memory>

namespace amp::config {
class Config;
}

namespace amp::train {

/// SGD, Adam or AdamW (SOLVER.OPTIMIZING_METHOD) over three groups as PySlowFast: batch-norm
/// parameters with BN.WEIGHT_DECAY, 1-D parameters and biases with no decay when
/// SOLVER.ZERO_WD_1D_PARAM or named by the model's noWeightDecayNames(), the rest with
/// SOLVER.WEIGHT_DECAY.
std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const config::Config& c, torch::nn::Module& net);
void setLearningRate(torch::optim::Optimizer& optimizer, double lr);
/// Global L2 norm of all gradients (after unscaling, before clipping).
double globalGradNorm(torch::nn::Module& net);
void clipGradientsByValue(torch::nn::Module& net, double value);
void clipGradientsByNorm(torch::nn::Module& net, double maxNorm);

}  // namespace amp::train
