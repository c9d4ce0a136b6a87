#include "vis/GradCamMaps.h"

#include <stdexcept>
#include <string>

#include "amp/AutocastGuard.h"

namespace amp::vis {

torch::Tensor localizationMap(const torch::Tensor& activation, const torch::Tensor& gradient,
                              std::int64_t frames, std::int64_t height, std::int64_t width) {
  const auto a = activation.to(torch::kFloat);
  const auto g = gradient.to(torch::kFloat);
  const std::int64_t n = g.size(0), c = g.size(1), t = g.size(2);
  // One weight per channel and per frame of the layer: PySlowFast averages the gradient over
  // height and width only, so a frame where the class's evidence lies counts more.
  const auto weights = g.reshape({n, c, t, -1}).mean(3).reshape({n, c, t, 1, 1});
  auto map = torch::relu((weights * a).sum(1, /*keepdim=*/true));
  namespace F = torch::nn::functional;
  map = F::interpolate(map, F::InterpolateFuncOptions()
                                .size(std::vector<std::int64_t>{frames, height, width})
                                .mode(torch::kTrilinear)
                                .align_corners(false));
  const auto flat = map.reshape({n, -1});
  const auto low = std::get<0>(flat.min(1, /*keepdim=*/true));
  const auto range = std::get<0>(flat.max(1, /*keepdim=*/true)) - low;
  // PySlowFast divides by range + 1e-6, a guard against a zero range that also dims the maps of
  // confident predictions: their softmax gradients are tiny, the range can be 1e-6 and the map's
  // top then reaches half the colour map. Here a zero range gives zeros and any other range
  // scales to exactly [0, 1].
  const auto scaled =
      torch::where(range > 0, (flat - low) / range.clamp_min(1e-30), torch::zeros_like(flat));
  return scaled.reshape({n, frames, height, width});
}

torch::Tensor onGrid(const models::ActivationTap::Output& out, const torch::Tensor& t) {
  if (out.grid.empty()) return t;
  auto tokens = out.class_token ? t.slice(1, 1) : t;
  const auto& g = out.grid;
  return tokens.reshape({t.size(0), g.at(0), g.at(1), g.at(2), t.size(2)}).permute({0, 4, 1, 2, 3});
}

CamMaps gradCamMaps(models::VideoNetImpl& net, const models::ActivationTap& tap,
                    const std::vector<torch::Tensor>& inputs, std::vector<std::int64_t> targets,
                    const train::PrecisionPolicy& policy) {
  if (tap.size() != inputs.size())
    throw std::invalid_argument(
        "Grad-CAM needs one layer per pathway: " + std::to_string(tap.size()) + " layer(s) for " +
        std::to_string(inputs.size()) + " pathway(s)");
  torch::Tensor preds;
  {
    precision::AutocastGuard guard(policy.mixed, policy.autocastDevice(), policy.autocastType());
    preds = net.forward(inputs);
  }
  const std::int64_t n = preds.size(0);
  if (targets.size() == 1 && n > 1) targets.assign(static_cast<std::size_t>(n), targets[0]);
  if (static_cast<std::int64_t>(targets.size()) != n)
    throw std::invalid_argument("Grad-CAM: one target class per clip");
  // The float scores' first maximum: the class GradCam reports first among equal outputs.
  const auto top1 = preds.detach().to(torch::kFloat).to(torch::kCPU).argmax(1);
  for (std::int64_t i = 0; i < n; ++i) {
    auto& target = targets[static_cast<std::size_t>(i)];
    if (target < 0) target = top1[i].item<std::int64_t>();
    if (target >= preds.size(1))
      throw std::invalid_argument("Grad-CAM: class " + std::to_string(target) +
                                  " is outside the model's " + std::to_string(preds.size(1)) +
                                  " classes");
  }
  const auto index = torch::tensor(targets, torch::kLong).to(preds.device()).unsqueeze(1);
  const auto score = preds.gather(1, index).sum();
  std::vector<torch::Tensor> outputs;
  for (std::size_t p = 0; p < tap.size(); ++p) {
    const auto& t = tap.output(p).tensor;
    if (!t.defined())
      throw std::runtime_error("Grad-CAM: layer " + std::to_string(p) +
                               " did not run in the forward pass");
    if (!t.requires_grad())
      throw std::runtime_error("Grad-CAM: layer " + std::to_string(p) +
                               "'s output is outside the gradient's graph");
    outputs.push_back(t);
  }
  const auto grads = torch::autograd::grad({score}, outputs, /*grad_outputs=*/{},
                                           /*retain_graph=*/false, /*create_graph=*/false,
                                           /*allow_unused=*/true);
  CamMaps out;
  for (std::size_t p = 0; p < outputs.size(); ++p) {
    if (!grads[p].defined())
      throw std::runtime_error("Grad-CAM: the score does not depend on layer " + std::to_string(p) +
                               "'s output");
    const auto a = onGrid(tap.output(p), outputs[p].detach());
    const auto g = onGrid(tap.output(p), grads[p]);
    if (a.dim() != 5 || a.size(0) != n)
      throw std::runtime_error("Grad-CAM: layer " + std::to_string(p) +
                               "'s output is not one feature map per clip (N x C x T x H x W)");
    const auto& in = inputs[p];
    out.maps.push_back(localizationMap(a, g, in.size(2), in.size(3), in.size(4)).to(torch::kCPU));
  }
  out.scores = preds.detach().to(torch::kFloat).to(torch::kCPU);
  out.targets = std::move(targets);
  return out;
}

}  // namespace amp::vis
