#include "models/Net.h"

#include <set>
#include <stdexcept>

#include "models/ActivationCheckpoint.h"

namespace amp::models {
namespace {
thread_local std::int64_t* tCounter = nullptr;
}

torch::Tensor VideoNetImpl::forward(std::vector<torch::Tensor> pathways,
                                    const torch::Tensor& boxes) {
  throw std::logic_error(
      "this model has a classification head (DETECTION.ENABLE False): it takes no boxes");
}

FlopCounter::FlopCounter() : previous_(tCounter) {
  tCounter = &count_;
}
FlopCounter::~FlopCounter() {
  tCounter = previous_;
}
std::int64_t FlopCounter::macs() const {
  return count_;
}
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

torch::Tensor relu(torch::Tensor x, bool inplace) {
  return inplace && !x.is_view() ? x.relu_() : torch::relu(x);
}

BatchNorm3d batchNorm(int64_t channels) {
  return BatchNorm3d(channels, 1e-5, 0.1);
}

SyncableBatchNorm3dImpl::SyncableBatchNorm3dImpl(int64_t channels, double eps, double momentum)
    : channels_(channels), eps_(eps), momentum_(momentum) {
  reset();
}

void SyncableBatchNorm3dImpl::reset() {
  weight = register_parameter("weight", torch::ones({channels_}));
  bias = register_parameter("bias", torch::zeros({channels_}));
  running_mean = register_buffer("running_mean", torch::zeros({channels_}));
  running_var = register_buffer("running_var", torch::ones({channels_}));
  num_batches_tracked = register_buffer("num_batches_tracked", torch::tensor(0, torch::kLong));
}

void SyncableBatchNorm3dImpl::pretty_print(std::ostream& stream) const {
  stream << "BatchNorm3d(" << channels_ << ", eps=" << eps_ << ", momentum=" << momentum_
         << (sync_ ? ", synced" : "") << ")";
}

torch::Tensor SyncableBatchNorm3dImpl::forward(const torch::Tensor& input) {
  TORCH_CHECK(input.dim() == 5, "BatchNorm3d expects an N x C x T x H x W input, got ", input.dim(),
              " dimensions");
  // Backward's recomputation of a checkpointed segment (MODEL.ACT_CHECKPOINT): the batch's
  // statistics as in forward, the running statistics left as forward updated them.
  const bool updateRunning = is_training() && !recomputingCheckpoint();
  if (splits_ > 1 && is_training()) {  // SubBatchNorm3d: the groups side by side as channels
    const auto n = input.size(0), c = input.size(1);
    TORCH_CHECK(n % splits_ == 0, "sub batch norm (BN.NUM_SPLITS ", splits_,
                ") needs a batch divisible by the splits, got ", n, " clips");
    if (updateRunning) {
      torch::NoGradGuard noGrad;
      num_batches_tracked.add_(1);
    }
    std::vector<int64_t> grouped = input.sizes().vec(), plain = input.sizes().vec();
    grouped[0] = n / splits_;
    grouped[1] = c * splits_;
    if (splitMean_.device() != running_mean.device()) {  // moved with the module after setSplits
      splitMean_ = splitMean_.to(running_mean.device());
      splitVar_ = splitVar_.to(running_mean.device());
    }
    auto flatMean = splitMean_.view({-1}), flatVar = splitVar_.view({-1});
    // The one weight and bias go into the normalisation, repeated per group (grouped channel
    // g x C + c is channel c); autograd sums their gradients over the groups. PySlowFast
    // multiplies and adds them after the split normalisation, two more passes over the
    // activation forward and backward: 28-46% of the demo X3D's step at multigrid's first shapes.
    auto y = torch::nn::functional::batch_norm(input.reshape(grouped),
                                               updateRunning ? flatMean : torch::Tensor(),
                                               updateRunning ? flatVar : torch::Tensor(),
                                               torch::nn::functional::BatchNormFuncOptions()
                                                   .weight(weight.repeat({splits_}))
                                                   .bias(bias.repeat({splits_}))
                                                   .training(true)
                                                   .momentum(momentum_)
                                                   .eps(eps_))
                 .reshape(plain);
    if (updateRunning) mergeSplits();
    return y;
  }
  if (!sync_ || !is_training()) {  // torch.nn.BatchNorm3d
    if (updateRunning) {
      torch::NoGradGuard noGrad;
      num_batches_tracked.add_(1);
    }
    // The functional form, as torch's module: it also refuses one value per channel in training.
    return torch::nn::functional::batch_norm(
        input, updateRunning || !is_training() ? running_mean : torch::Tensor(),
        updateRunning || !is_training() ? running_var : torch::Tensor(),
        torch::nn::functional::BatchNormFuncOptions()
            .weight(weight)
            .bias(bias)
            .training(is_training())
            .momentum(momentum_)
            .eps(eps_));
  }
  TORCH_CHECK(input.size(0) > 0, "sync batch norm does not support an empty batch");
  const int64_t c = input.size(1);
  // Statistics in float32 whatever autocast gave the input (as batch norm computes them).
  const auto x = input.to(torch::kFloat);
  const auto local = torch::var_mean(x, {0, 2, 3, 4}, /*unbiased=*/false);
  const auto rows =
      sync_->gatherGroup(torch::cat({std::get<1>(local), std::get<0>(local)}));  // G x 2C
  const auto means = rows.narrow(1, 0, c), vars = rows.narrow(1, c, c);
  const auto mean = means.mean(0);
  const auto var = vars.mean(0) + (means - mean).pow(2).mean(0);
  if (updateRunning) {
    torch::NoGradGuard noGrad;
    running_mean.add_(momentum_ * (mean.detach() - running_mean));
    running_var.add_(momentum_ * (var.detach() - running_var));
  }
  const auto scale = weight * torch::rsqrt(var + eps_);
  const auto shift = bias - mean * scale;
  return (x * scale.view({1, c, 1, 1, 1}) + shift.view({1, c, 1, 1, 1})).to(input.scalar_type());
}

void SyncableBatchNorm3dImpl::setSplits(int64_t splits) {
  TORCH_CHECK(splits >= 1, "BN.NUM_SPLITS must be at least 1, got ", splits);
  TORCH_CHECK(splits == 1 || !sync_, "sub batch norm and sync batch norm cannot be combined");
  splits_ = splits;
  if (splits == 1) {
    splitMean_ = splitVar_ = torch::Tensor();
    return;
  }
  torch::NoGradGuard noGrad;
  splitMean_ = running_mean.detach().repeat({splits, 1}).contiguous();
  splitVar_ = running_var.detach().repeat({splits, 1}).contiguous();
}

void SyncableBatchNorm3dImpl::mergeSplits() {
  if (splits_ <= 1) return;
  torch::NoGradGuard noGrad;
  const auto mean = splitMean_.mean(0);
  running_mean.copy_(mean);
  running_var.copy_(splitVar_.mean(0) + (splitMean_ - mean).pow(2).mean(0));
}

int setBatchNormSplits(torch::nn::Module& net, int64_t splits) {
  int n = 0;
  for (const auto& m : net.modules(/*include_self=*/false))
    if (auto* bn = dynamic_cast<SyncableBatchNorm3dImpl*>(m.get())) {
      bn->setSplits(splits);
      ++n;
    }
  return n;
}

int freezeBatchNormStats(torch::nn::Module& net) {
  int n = 0;
  for (const auto& m : net.modules(/*include_self=*/false))
    if (auto* bn = dynamic_cast<SyncableBatchNorm3dImpl*>(m.get())) {
      bn->eval();
      ++n;
    }
  return n;
}

int setBatchNormSync(torch::nn::Module& net, const std::shared_ptr<BatchNormSync>& sync) {
  int n = 0;
  for (const auto& m : net.modules(/*include_self=*/false))
    if (auto* bn = dynamic_cast<SyncableBatchNorm3dImpl*>(m.get())) {
      bn->setSync(sync);
      ++n;
    }
  return n;
}

torch::nn::Conv3d conv3d(int64_t in, int64_t out, std::vector<int64_t> kernel,
                         std::vector<int64_t> stride, std::vector<int64_t> padding, int64_t groups,
                         std::vector<int64_t> dilation, bool bias) {
  return torch::nn::Conv3d(torch::nn::Conv3dOptions(in, out, torch::IntArrayRef(kernel))
                               .stride(torch::IntArrayRef(stride))
                               .padding(torch::IntArrayRef(padding))
                               .groups(groups)
                               .dilation(torch::IntArrayRef(dilation))
                               .bias(bias));
}

void initWeights(torch::nn::Module& net, double fcInitStd, bool zeroInitFinalBn,
                 const FinalBnRegistry& finals, bool zeroInitFinalConv) {
  torch::NoGradGuard noGrad;
  std::set<const torch::nn::Module*> final, finalConvs;
  for (const auto& bn : finals.bns) final.insert(bn.get());
  for (const auto& conv : finals.convs) finalConvs.insert(conv.get());
  for (const auto& m : net.modules(/*include_self=*/false)) {
    if (auto* conv = m->as<torch::nn::Conv3d>()) {
      if (zeroInitFinalConv && finalConvs.count(conv)) {
        conv->weight.zero_();  // PySlowFast zeroes the weight only
        continue;
      }
      torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
      if (conv->bias.defined()) conv->bias.zero_();
    } else if (auto* bn = m->as<SyncableBatchNorm3dImpl>()) {
      bn->weight.fill_(zeroInitFinalBn && final.count(bn) ? 0.0 : 1.0);
      bn->bias.zero_();
    } else if (auto* fc = m->as<torch::nn::Linear>()) {
      fc->weight.normal_(0.0, fcInitStd);
      if (fc->bias.defined()) fc->bias.zero_();
    }
  }
}

}  // namespace amp::models
