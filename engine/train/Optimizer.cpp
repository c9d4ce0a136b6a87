#include "train/Optimizer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "config/Config.h"
#include "models/Net.h"

namespace amp::train {

namespace {

bool isBatchNorm(const torch::nn::Module& m) {
  return m.as<models::SyncableBatchNorm3dImpl>() || m.as<torch::nn::BatchNorm3d>() ||
         m.as<torch::nn::BatchNorm2d>() || m.as<torch::nn::BatchNorm1d>();
}

struct Group {
  std::vector<torch::Tensor> params;
  double weight_decay = 0;
  double layer_decay = 1.0;
};

// PySlowFast's get_param_groups (SOLVER.LAYER_DECAY in (0, 1)).
std::vector<Group> layerDecayGroups(const config::Config& c, torch::nn::Module& net,
                                    const std::vector<std::string>& skip) {
  for (const auto& m : net.named_modules("", /*include_self=*/true))
    if (isBatchNorm(*m.value()))
      throw std::invalid_argument(
          "SOLVER.LAYER_DECAY: " + std::to_string(c.getFloat("SOLVER.LAYER_DECAY")) +
          " is for MViT, whose layers it counts; this model has batch norm (" + m.key() +
          "), which PySlowFast refuses with layer decay too; set SOLVER.LAYER_DECAY 1.0");
  const int64_t depth = c.getInt("MVIT.DEPTH");
  const double decay = c.getFloat("SOLVER.LAYER_DECAY"), wd = c.getFloat("SOLVER.WEIGHT_DECAY");
  const bool zeroWd1d = c.getBool("SOLVER.ZERO_WD_1D_PARAM");
  auto layerOf = [&](const std::string& name) -> int64_t {
    auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
    if (name == "cls_token" || name == "mask_token" || starts("pos_embed") || starts("patch_embed"))
      return 0;
    if (starts("blocks.")) {
      const auto dot = name.find('.', 7);
      return std::stoll(name.substr(7, dot == std::string::npos ? std::string::npos : dot - 7)) + 1;
    }
    return depth + 1;
  };
  std::vector<Group> groups;
  std::vector<std::string> keys;
  for (const auto& p : net.named_parameters(/*recurse=*/true)) {
    if (!p.value().requires_grad()) continue;
    const std::string& name = p.key();
    const bool zero =
        std::find(skip.begin(), skip.end(), name) !=
            skip.end() ||  // exact names, as PySlowFast here
        (zeroWd1d && (p.value().dim() == 1 ||
                      (name.size() > 5 && name.compare(name.size() - 5, 5, ".bias") == 0)));
    const int64_t layer = layerOf(name);
    const std::string key = std::to_string(layer) + (zero ? "_zero" : "_non_bn");
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      groups.push_back(
          {{}, zero ? 0.0 : wd, std::pow(decay, static_cast<double>(depth + 1 - layer))});
      it = keys.end() - 1;
    }
    groups[static_cast<size_t>(it - keys.begin())].params.push_back(p.value());
  }
  return groups;
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const config::Config& c,
                                                        torch::nn::Module& net,
                                                        std::vector<double>* layerDecay) {
  std::vector<std::string> skip;
  if (const auto* video = dynamic_cast<const models::VideoNetImpl*>(&net))
    skip = video->noWeightDecayNames();
  std::vector<Group> built;
  if (const double decay = c.getFloat("SOLVER.LAYER_DECAY"); decay > 0.0 && decay < 1.0) {
    built = layerDecayGroups(c, net, skip);
  } else {
    // PySlowFast's construct_optimizer order (bn, non-bn, zero-wd; empty groups dropped), so the
    // optimizer_state of a checkpoint numbers the parameters as PySlowFast's does and each side
    // resumes the other's momentum buffers on the right parameters.
    Group bn{{}, c.getFloat("BN.WEIGHT_DECAY")}, regular{{}, c.getFloat("SOLVER.WEIGHT_DECAY")},
        zero{{}, 0.0};
    const bool zeroWd1d = c.getBool("SOLVER.ZERO_WD_1D_PARAM");
    for (const auto& m : net.named_modules("", /*include_self=*/true)) {
      const bool isBn = isBatchNorm(*m.value());
      for (const auto& p : m.value()->named_parameters(/*recurse=*/false)) {
        if (!p.value().requires_grad()) continue;
        const std::string name = m.key().empty() ? p.key() : m.key() + "." + p.key();
        const bool skipped = std::any_of(skip.begin(), skip.end(), [&](const std::string& k) {
          return name.find(k) != std::string::npos;
        });
        if (isBn)
          bn.params.push_back(p.value());
        else if (skipped)
          zero.params.push_back(p.value());
        else if (zeroWd1d && (p.value().dim() == 1 || p.key() == "bias"))
          zero.params.push_back(p.value());
        else
          regular.params.push_back(p.value());
      }
    }
    for (auto* g : {&bn, &regular, &zero})
      if (!g->params.empty()) built.push_back(std::move(*g));
  }
  const double lr = c.getFloat("SOLVER.BASE_LR");
  // PySlowFast's mt_adamw is torch.optim._multi_tensor.AdamW with adamw's arguments: the same
  // update, computed over lists of tensors at once.
  const std::string configured = c.getString("SOLVER.OPTIMIZING_METHOD");
  const std::string method = configured == "mt_adamw" ? "adamw" : configured;
  const auto betas = c.getFloatList("SOLVER.BETAS");
  auto options = [&](double decay) -> std::unique_ptr<torch::optim::OptimizerOptions> {
    if (method == "sgd")
      return std::make_unique<torch::optim::SGDOptions>(
          torch::optim::SGDOptions(lr)
              .momentum(c.getFloat("SOLVER.MOMENTUM"))
              .dampening(c.getFloat("SOLVER.DAMPENING"))
              .nesterov(c.getBool("SOLVER.NESTEROV"))
              .weight_decay(decay));
    if (method == "adam")
      return std::make_unique<torch::optim::AdamOptions>(
          torch::optim::AdamOptions(lr).betas({betas[0], betas[1]}).weight_decay(decay));
    if (method == "adamw")
      return std::make_unique<torch::optim::AdamWOptions>(
          torch::optim::AdamWOptions(lr).betas({betas[0], betas[1]}).weight_decay(decay));
    throw std::invalid_argument("SOLVER.OPTIMIZING_METHOD: '" + method +
                                "' is not built; use sgd, adam, adamw or mt_adamw");
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  if (layerDecay) layerDecay->clear();
  for (const auto& g : built) {
    groups.emplace_back(g.params, options(g.weight_decay));
    groups.back().options().set_lr(lr * g.layer_decay);
    if (layerDecay) layerDecay->push_back(g.layer_decay);
  }
  if (method == "sgd")
    return std::make_unique<torch::optim::SGD>(groups, torch::optim::SGDOptions(lr));
  if (method == "adam")
    return std::make_unique<torch::optim::Adam>(groups, torch::optim::AdamOptions(lr));
  if (method == "adamw")
    return std::make_unique<torch::optim::AdamW>(groups, torch::optim::AdamWOptions(lr));
  throw std::invalid_argument("SOLVER.OPTIMIZING_METHOD: '" + method +
                              "' is not built; use sgd, adam, adamw or mt_adamw");
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr,
                     const std::vector<double>& layerDecay) {
  auto& groups = optimizer.param_groups();
  if (!layerDecay.empty() && layerDecay.size() != groups.size())
    throw std::logic_error("setLearningRate: " + std::to_string(layerDecay.size()) +
                           " layer-decay multipliers for " + std::to_string(groups.size()) +
                           " parameter groups");
  for (size_t g = 0; g < groups.size(); ++g)
    groups[g].options().set_lr(layerDecay.empty() ? lr : lr * layerDecay[g]);
}

double globalGradNorm(torch::nn::Module& net) {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> norms;
  for (const auto& p : net.parameters())
    if (p.grad().defined()) norms.push_back(p.grad().detach().to(torch::kFloat).norm(2));
  if (norms.empty()) return 0.0;
  return torch::stack(norms).norm(2).item<double>();
}

void clipGradientsByValue(torch::nn::Module& net, double value) {
  torch::nn::utils::clip_grad_value_(net.parameters(), value);
}

void clipGradientsByNorm(torch::nn::Module& net, double maxNorm) {
  torch::nn::utils::clip_grad_norm_(net.parameters(), maxNorm);
}

}  // namespace amp::train
