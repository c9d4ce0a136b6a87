#include "amp/NonFiniteGrad.h"

#include <algorithm>
#include <map>

namespace amp::precision {

std::string moduleOfParameter(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

std::string firstNonFiniteGradLayer(const torch::nn::Module& net,
                                    const std::vector<std::string>& forwardOrder) {
  torch::NoGradGuard noGrad;
  std::vector<std::string> registered;  // modules with a gradient, in registration order
  std::map<std::string, std::vector<torch::Tensor>> grads;
  for (const auto& item : net.named_parameters(/*recurse=*/true)) {
    const torch::Tensor& g = item.value().grad();
    if (!g.defined()) continue;
    const std::string module = moduleOfParameter(item.key());
    auto& list = grads[module];
    if (list.empty()) registered.push_back(module);
    list.push_back(g);
  }
  if (registered.empty()) return {};
  // Forward order: the given order first-to-last, modules it does not name before them.
  std::vector<std::string> order;
  for (const auto& m : registered)
    if (std::find(forwardOrder.begin(), forwardOrder.end(), m) == forwardOrder.end())
      order.push_back(m);
  for (const auto& m : forwardOrder)
    if (grads.count(m) && std::find(order.begin(), order.end(), m) == order.end())
      order.push_back(m);
  std::reverse(order.begin(), order.end());  // backward order
  std::vector<torch::Tensor> finite;
  const auto device = grads.at(order.front()).front().device();
  for (const auto& m : order) {
    std::vector<torch::Tensor> flags;
    for (const auto& g : grads.at(m)) flags.push_back(g.isfinite().all().to(device));
    finite.push_back(torch::stack(flags).all());
  }
  const auto host = torch::stack(finite).cpu();
  const bool* ok = host.data_ptr<bool>();
  for (std::size_t i = 0; i < order.size(); ++i)
    if (!ok[i]) return order[i];
  return {};
}

}  // namespace amp::precision
