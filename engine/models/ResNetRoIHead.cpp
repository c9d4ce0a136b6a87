#include "models/ResNetRoIHead.h"

#include <numeric>
#include <stdexcept>

namespace amp::models {

ResNetRoIHeadImpl::ResNetRoIHeadImpl(const RoIHeadArgs& a)
    : act_(a.act), detach_(a.detach_final_fc) {
  const size_t paths = a.pool_size.size();
  if (a.dim_in.size() != paths || a.resolution.size() != paths || a.scale_factor.size() != paths)
    throw std::invalid_argument(
        "ResNetRoIHead: dim_in, pool_size, resolution and scale_factor "
        "need one entry per pathway");
  if (act_ != "softmax" && act_ != "sigmoid")
    throw std::invalid_argument("MODEL.HEAD_ACT: '" + act_ +
                                "' is not an activation of the detection head; use softmax or "
                                "sigmoid");
  for (size_t p = 0; p < paths; ++p) {
    const std::string s = "s" + std::to_string(p);
    tpool_.push_back(register_module(
        s + "_tpool",
        torch::nn::AvgPool3d(torch::nn::AvgPool3dOptions({a.pool_size[p].at(0), 1, 1}).stride(1))));
    // Adaptive sampling (0), as PySlowFast builds it.
    roi_.push_back(register_module(
        s + "_roi", RoIAlign(a.resolution[p], 1.0 / a.scale_factor[p], 0, a.aligned)));
    spool_.push_back(register_module(
        s + "_spool",
        torch::nn::MaxPool2d(
            torch::nn::MaxPool2dOptions({a.resolution[p][0], a.resolution[p][1]}).stride(1))));
  }
  if (a.dropout_rate > 0.0)
    dropout_ = register_module("dropout", torch::nn::Dropout(a.dropout_rate));
  const int64_t dimIn = std::accumulate(a.dim_in.begin(), a.dim_in.end(), int64_t{0});
  projection_ = register_module("projection", torch::nn::Linear(dimIn, a.num_classes));
}

torch::Tensor ResNetRoIHeadImpl::forward(std::vector<torch::Tensor> x, const torch::Tensor& boxes) {
  if (x.size() != tpool_.size())
    throw std::invalid_argument("ResNetRoIHead: " + std::to_string(tpool_.size()) +
                                " pathway(s) expected, got " + std::to_string(x.size()));
  std::vector<torch::Tensor> pooled;
  for (size_t p = 0; p < x.size(); ++p) {
    auto y = tpool_[p](x[p]);
    // The pool must leave one frame (PySlowFast asserts it): a wrong DATA.NUM_FRAMES for the
    // model would otherwise mix frames into the box features silently.
    if (y.size(2) != 1)
      throw std::invalid_argument("ResNetRoIHead: pathway " + std::to_string(p) + " has " +
                                  std::to_string(y.size(2)) +
                                  " frames after the temporal pool, not 1 (DATA.NUM_FRAMES?)");
    y = roi_[p](y.squeeze(2), boxes);
    pooled.push_back(spool_[p](y));
  }
  auto y = torch::cat(pooled, 1);  // K x C x 1 x 1
  if (dropout_) y = dropout_(y);
  y = y.flatten(1);  // K x C, also for K = 0
  if (detach_) y = y.detach();
  y = run(projection_, y);
  return act_ == "softmax" ? torch::softmax(y, 1) : torch::sigmoid(y);
}

}  // namespace amp::models
