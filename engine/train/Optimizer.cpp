#include "train/Optimizer.h"

#include <algorithm>
#include <stdexcept>

#include "config/Config.h"
#include "models/Net.h"

namespace amp::train {

std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const config::Config& c, torch::nn::Module& net) {
  std::vector<torch::Tensor> regular, bn, zero;
  const bool zeroWd1d = c.getBool("SOLVER.ZERO_WD_1D_PARAM");
  std::vector<std::string> skip;
  if (const auto* video = dynamic_cast<const models::VideoNetImpl*>(&net)) skip = video->noWeightDecayNames();
  for (const auto& m : net.named_modules("", /*include_self=*/true)) {
    const auto& mod = m.value();
    const bool isBn = mod->as<models::SyncableBatchNorm3dImpl>() || mod->as<torch::nn::BatchNorm3d>() || mod->as<torch::nn::BatchNorm2d>() || mod->as<torch::nn::BatchNorm1d>();
    for (const auto& p : mod->named_parameters(/*recurse=*/false)) {
      if (!p.value().requires_grad()) continue;
      const std::string name = m.key().empty() ? p.key() : m.key() + "." + p.key();
      const bool skipped = std::any_of(skip.begin(), skip.end(), [&](const std::string& k) { return name.find(k) != std::string::npos; });
      if (isBn) bn.push_back(p.value());
      else if (skipped) zero.push_back(p.value());
      else if (zeroWd1d && (p.value().dim() == 1 || p.key() == "bias")) zero.push_back(p.value());
      else regular.push_back(p.value());
    }
  }
  const double lr = c.getFloat("SOLVER.BASE_LR"), wd = c.getFloat("SOLVER.WEIGHT_DECAY"), bnWd = c.getFloat("BN.WEIGHT_DECAY");
  const std::string method = c.getString("SOLVER.OPTIMIZING_METHOD");
  const auto betas = c.getFloatList("SOLVER.BETAS");
  auto options = [&](double decay) -> std::unique_ptr<torch::optim::OptimizerOptions> {
    if (method == "sgd")
      return std::make_unique<torch::optim::SGDOptions>(torch::optim::SGDOptions(lr)
                                                            .momentum(c.getFloat("SOLVER.MOMENTUM"))
                                                            .dampening(c.getFloat("SOLVER.DAMPENING"))
                                                            .nesterov(c.getBool("SOLVER.NESTEROV"))
                                                            .weight_decay(decay));
    if (method == "adam")
      return std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions(lr).betas({betas[0], betas[1]}).weight_decay(decay));
    if (method == "adamw")
      return std::make_unique<torch::optim::AdamWOptions>(torch::optim::AdamWOptions(lr).betas({betas[0], betas[1]}).weight_decay(decay));
    throw std::invalid_argument("SOLVER.OPTIMIZING_METHOD: '" + method + "' is not built; use sgd, adam or adamw");
  };
  // PySlowFast's construct_optimizer order (bn, non-bn, zero-wd; empty groups dropped), so the
  // optimizer_state of a checkpoint numbers the parameters as PySlowFast's does and each side
  // resumes the other's momentum buffers on the right parameters.
  std::vector<torch::optim::OptimizerParamGroup> groups;
  if (!bn.empty()) groups.emplace_back(bn, options(bnWd));
  if (!regular.empty()) groups.emplace_back(regular, options(wd));
  if (!zero.empty()) groups.emplace_back(zero, options(0.0));
  if (method == "sgd") return std::make_unique<torch::optim::SGD>(groups, torch::optim::SGDOptions(lr));
  if (method == "adam") return std::make_unique<torch::optim::Adam>(groups, torch::optim::AdamOptions(lr));
  if (method == "adamw") return std::make_unique<torch::optim::AdamW>(groups, torch::optim::AdamWOptions(lr));
  throw std::invalid_argument("SOLVER.OPTIMIZING_METHOD: '" + method + "' is not built; use sgd, adam or adamw");
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

double globalGradNorm(torch::nn::Module& net) {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> norms;
  for (const auto& p : net.parameters())
    if (p.grad().defined()) norms.push_back(p.grad().detach().to(torch::kFloat).norm(2));
  if (norms.empty()) return 0.0;
  return torch::stack(norms).norm(2).item<double>();
}

void clipGradientsByValue(torch::nn::Module& net, double value) { torch::nn::utils::clip_grad_value_(net.parameters(), value); }

void clipGradientsByNorm(torch::nn::Module& net, double maxNorm) { torch::nn::utils::clip_grad_norm_(net.parameters(), maxNorm); }

}  // namespace amp::train
