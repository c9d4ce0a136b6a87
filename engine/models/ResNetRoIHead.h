#pragma once
// PySlowFast's detection head (slowfast/models/head_helper.py, ResNetRoIHead), with its module
// names: per pathway s{p}_tpool, s{p}_roi and s{p}_spool (all parameter-free), then dropout and
// projection, so that the state dict is head.projection.weight and head.projection.bias as there.
// Internal to the engine (includes LibTorch).
#include <array>
#include <string>
#include <vector>

#include "models/Net.h"
#include "models/RoIAlign.h"

namespace amp::models {

/// What ResNetRoIHead is built from, per pathway where a list (PySlowFast's arguments).
struct RoIHeadArgs {
  std::vector<int64_t> dim_in;  ///< channels of each pathway's features
  int64_t num_classes = 0;
  std::vector<std::vector<int64_t>> pool_size;     ///< (T, 1, 1): T is the temporal average pool
  std::vector<std::array<int64_t, 2>> resolution;  ///< RoIAlign's output, also the max pool
  std::vector<double> scale_factor;                ///< feature stride: boxes are scaled by 1 / this
  double dropout_rate = 0.0;
  std::string act = "softmax";  ///< "softmax" or "sigmoid"
  bool aligned = true;
  bool detach_final_fc = false;
};

/// Scores each box: every pathway's features are averaged over time (to one frame), pooled in
/// the box by RoIAlign (adaptive sampling) and max-pooled over its resolution; the pathways'
/// vectors are concatenated, dropped out and projected. As PySlowFast's ResNetRoIHead (unlike its
/// ResNetBasicHead), the activation is applied in training too: its AVA configs train on the
/// sigmoid's probabilities with MODEL.LOSS_FUNC bce.
///
///   RoIHeadArgs a;
///   a.dim_in = {2048, 256}; a.num_classes = 80; a.pool_size = {{8, 1, 1}, {32, 1, 1}};
///   a.resolution = {{7, 7}, {7, 7}}; a.scale_factor = {16, 16}; a.act = "sigmoid";
///   ResNetRoIHead head(a);
///   torch::Tensor scores = head(features, boxes);  // boxes K x 5 -> K x 80
class ResNetRoIHeadImpl : public torch::nn::Module {
 public:
  explicit ResNetRoIHeadImpl(const RoIHeadArgs& a);
  /// `x`: one N x C x T x H x W tensor per pathway, whose T the temporal pool takes to 1.
  /// `boxes`: K x 5 (index of the clip in the batch, x1, y1, x2, y2 in input pixels).
  torch::Tensor forward(std::vector<torch::Tensor> x, const torch::Tensor& boxes);
  /// head.projection (MViT scales it by MVIT.HEAD_INIT_SCALE after its initialisation).
  torch::nn::Linear& projection() { return projection_; }

 private:
  std::vector<torch::nn::AvgPool3d> tpool_;
  std::vector<RoIAlign> roi_;
  std::vector<torch::nn::MaxPool2d> spool_;
  torch::nn::Dropout dropout_{nullptr};
  torch::nn::Linear projection_{nullptr};
  std::string act_;
  bool detach_;
};
TORCH_MODULE(ResNetRoIHead);

}  // namespace amp::models
