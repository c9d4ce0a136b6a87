#include "train/TrainStep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "config/Config.h"
#include "dist/GradientReducer.h"
#include "models/Net.h"
#include "train/Optimizer.h"

namespace amp::train {

void trainingMode(torch::nn::Module& net, const config::Config& c) {
  net.train();
  if (c.getBool("MODEL.FROZEN_BN")) models::freezeBatchNormStats(net);
}

TrainStep::TrainStep(const config::Config& c, models::VideoNetImpl& net,
                     torch::optim::Optimizer& optimizer, PrecisionPolicy policy)
    : net_(net),
      optimizer_(optimizer),
      policy_(policy),
      scaler_({c.getFloat("AMP.INIT_SCALE"), c.getFloat("AMP.GROWTH_FACTOR"),
               c.getFloat("AMP.BACKOFF_FACTOR"), c.getInt("AMP.GROWTH_INTERVAL"), policy.scaler}),
      clipVal_(c.getOptionalFloat("SOLVER.CLIP_GRAD_VAL")),
      clipNorm_(c.getOptionalFloat("SOLVER.CLIP_GRAD_L2NORM")),
      lossFunc_(c.getString("MODEL.LOSS_FUNC")) {
  checkLossFunc(lossFunc_);
}

void TrainStep::setGradientReducer(dist::GradientReducer* reducer) {
  reducer_ = reducer;
  if (!reducer) {
    scaler_.setFoundInfSync(nullptr);
    return;
  }
  scaler_.setFoundInfSync([reducer](torch::Tensor& foundInf) {
    if (!reducer->allTrue(foundInf.item<float>() == 0.0f)) foundInf.fill_(1.0f);
  });
}

StepOutcome TrainStep::run(const std::vector<MicroBatch>& micro) {
  if (micro.empty()) throw std::invalid_argument("TrainStep::run: no micro-batch");
  StepOutcome out;
  optimizer_.zero_grad();
  std::vector<torch::Tensor> logits, labels, targets;
  const double parts = static_cast<double>(micro.size());
  double lossSum = 0;
  for (size_t k = 0; k < micro.size(); ++k) {
    const auto& mb = micro[k];
    if (reducer_) reducer_->beforeForward(k + 1 == micro.size());
    const auto forwardStart = std::chrono::steady_clock::now();
    torch::Tensor y;
    {
      precision::AutocastGuard guard(policy_.mixed, policy_.autocastDevice(),
                                     policy_.autocastType());
      y = forwardMicroBatch(net_, mb);
    }
    // The loss in float32 outside autocast, as PySlowFast's loss on autocast logits.
    auto loss = microBatchLoss(lossFunc_, y, mb);
    const double value = loss.item<double>();  // waits for the device
    out.forward_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - forwardStart).count();
    lossSum += value;
    logits.push_back(y.detach().to(torch::kFloat));
    labels.push_back(mb.labels);
    if (mb.targets.defined()) targets.push_back(mb.targets);
    // No scaler to skip the step: keep the weights. Over several ranks they skip this backward
    // together: sync batch norm's backward gathers over the ranks, and a rank that skipped it
    // alone would leave the others' collectives unmatched (a hang, or the wrong pairs).
    const bool finite = reducer_ && !scaler_.enabled() ? reducer_->allTrue(std::isfinite(value))
                                                       : std::isfinite(value);
    if (!finite && !scaler_.enabled()) {
      out.finite_loss = false;
      continue;
    }
    const auto backwardStart = std::chrono::steady_clock::now();
    scaler_.scale(parts > 1 ? loss / parts : loss).backward();
    if (syncPhases_ && y.is_cuda()) torch::cuda::synchronize();
    out.backward_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - backwardStart).count();
  }
  out.loss = lossSum / parts;
  out.logits = torch::cat(logits, 0);
  out.labels = torch::cat(labels, 0);
  if (targets.size() == micro.size()) out.targets = torch::cat(targets, 0);
  if (reducer_) {  // every rank takes part, also one whose loss was not finite
    reducer_->finish();
    out.finite_loss = reducer_->allTrue(out.finite_loss);
  }
  if (!out.finite_loss) {
    optimizer_.zero_grad();
    return out;
  }
  scaler_.unscale(optimizer_);
  out.grad_norm = globalGradNorm(net_);
  if (!scaler_.enabled() && !std::isfinite(out.grad_norm)) {
    // A finite loss with inf/NaN gradients and no scaler to catch them (FP32, bfloat16, AMP.SCALER
    // off): applying them would turn every weight into NaN. Skip the step as a scaler would; the
    // trainer counts it against AMP.MAX_SKIPPED_STEPS. (Seen: Debian's LibTorch 2.6 on the CPU,
    // whose bfloat16 convolution backward now and then returns NaN.)
    optimizer_.zero_grad();
    out.update.scale_before = out.update.scale_after = 1.0;
    return out;
  }
  if (clipVal_)
    clipGradientsByValue(net_, *clipVal_);
  else if (clipNorm_)
    clipGradientsByNorm(net_, *clipNorm_);
  out.stepped = scaler_.step(optimizer_);
  out.update = scaler_.update();
  if (!scaler_.enabled()) out.update.scale_before = out.update.scale_after = 1.0;
  return out;
}

}  // namespace amp::train
