#pragma once
// Multiscale Vision Transformers v1 and v2 as PySlowFast builds them (MODEL.MODEL_NAME MViT):
// patch embedding, pooling attention with per-block query / key-value strides, head and width
// multipliers, absolute (joint or space/time separated) or decomposed relative positional
// embeddings, residual pooling, class token. Module names follow slowfast/models/attention.py
// and video_model_builder.py so state dicts map one to one. Internal to the engine.
#include <memory>

#include "models/Net.h"

namespace amp::config {
class Config;
}

namespace amp::models {

/// Builds MViT from the MVIT.* keys, DATA.NUM_FRAMES, DATA.TRAIN_CROP_SIZE and the MODEL.* head
/// keys, initialised as PySlowFast (truncated normal 0.02, biases 0.02, layer norms 1 / 0.02).
/// Throws std::invalid_argument naming the key for configs it cannot build.
std::shared_ptr<VideoNetImpl> buildMViT(const config::Config& cfg);

/// torch.nn.init.trunc_normal_: normal(mean, std) truncated to [a, b] (absolute bounds).
void truncNormal(torch::Tensor& t, double std, double mean = 0.0, double a = -2.0, double b = 2.0);

}  // namespace amp::models
