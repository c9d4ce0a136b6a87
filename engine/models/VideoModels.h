#pragma once
// PySlowFast's video models (slowfast/models/video_model_builder.py), built from a config:
// ResNet (C2D, I3D, Slow), SlowFast and X3D. Internal to the engine (includes LibTorch).
#include <memory>

#include "models/ResNetHelper.h"

namespace amp::config {
class Config;
}

namespace amp::models {

/// Builds the model the config names (MODEL.MODEL_NAME), initialised as PySlowFast does.
/// Throws std::invalid_argument naming the key when the config asks for something not built.
std::shared_ptr<VideoNetImpl> buildVideoNet(const config::Config& cfg);

}  // namespace amp::models
