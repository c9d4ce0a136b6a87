#include "models/Net.h"

#include <set>

namespace amp::models {
namespace {
thread_local std::int64_t* tCounter = nullptr;
}

FlopCounter::FlopCounter() : previous_(tCounter) { tCounter = &count_; }
FlopCounter::~FlopCounter() { tCounter = previous_; }
std::int64_t FlopCounter::macs() const { return count_; }
void FlopCounter::add(std::int64_t macs) {
  if (tCounter) *tCounter += macs;
}

torch::Tensor run(torch::nn::Conv3d& conv, const torch::Tensor& x) {
  auto y = conv(x);
  if (tCounter) {
    const auto& w = conv->weight;  // out x in/groups x kT x kH x kW
    *tCounter += y.numel() * (w.numel() / w.size(0));
  }
  return y;
}

torch::Tensor run(torch::nn::Linear& fc, const torch::Tensor& x) {
  auto y = fc(x);
  if (tCounter) *tCounter += y.numel() * fc->weight.size(1);
  return y;
}

torch::nn::BatchNorm3d batchNorm(int64_t channels) {
  return torch::nn::BatchNorm3d(torch::nn::BatchNorm3dOptions(channels).eps(1e-5).momentum(0.1));
}

torch::nn::Conv3d conv3d(int64_t in, int64_t out, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                         std::vector<int64_t> padding, int64_t groups, std::vector<int64_t> dilation, bool bias) {
  return torch::nn::Conv3d(torch::nn::Conv3dOptions(in, out, torch::IntArrayRef(kernel))
                               .stride(torch::IntArrayRef(stride))
                               .padding(torch::IntArrayRef(padding))
                               .groups(groups)
                               .dilation(torch::IntArrayRef(dilation))
                               .bias(bias));
}

void initWeights(torch::nn::Module& net, double fcInitStd, bool zeroInitFinalBn, const FinalBnRegistry& finals) {
  torch::NoGradGuard noGrad;
  std::set<const torch::nn::Module*> final;
  for (const auto& bn : finals.bns) final.insert(bn.get());
  for (const auto& m : net.modules(/*include_self=*/false)) {
    if (auto* conv = m->as<torch::nn::Conv3d>()) {
      torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
      if (conv->bias.defined()) conv->bias.zero_();
    } else if (auto* bn = m->as<torch::nn::BatchNorm3d>()) {
      bn->weight.fill_(zeroInitFinalBn && final.count(bn) ? 0.0 : 1.0);
      bn->bias.zero_();
    } else if (auto* fc = m->as<torch::nn::Linear>()) {
      fc->weight.normal_(0.0, fcInitStd);
      if (fc->bias.defined()) fc->bias.zero_();
    }
  }
}

}  // namespace amp::models
