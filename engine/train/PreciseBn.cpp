#include "train/PreciseBn.h"

namespace amp::train {

PreciseBnResult updatePreciseBnStats(models::VideoNetImpl& net, int numBatches,
                                     const std::function<bool(std::vector<torch::Tensor>&)>& next) {
  PreciseBnResult r;
  std::vector<models::SyncableBatchNorm3dImpl*> bns;
  for (const auto& m : net.modules(/*include_self=*/false))
    if (auto* bn = m->as<models::SyncableBatchNorm3dImpl>()) bns.push_back(bn);
  r.layers = static_cast<int>(bns.size());
  if (bns.empty() || numBatches <= 0) return r;
  torch::NoGradGuard noGrad;
  const bool wasTraining = net.is_training();
  net.train();
  std::vector<double> momenta;
  std::vector<torch::Tensor> mean, var, savedMean, savedVar, savedCount;
  // Sub batch norm (BN.NUM_SPLITS): each group's statistics are averaged over the batches, then
  // merged, as fvcore's update_bn_stats on PySlowFast's split_bn followed by
  // aggregate_sub_bn_stats.
  auto current = [](models::SyncableBatchNorm3dImpl* bn, bool variance) -> torch::Tensor& {
    if (bn->splits() > 1) return variance ? bn->splitVar() : bn->splitMean();
    return variance ? bn->running_var : bn->running_mean;
  };
  std::vector<torch::Tensor> savedSplitMean, savedSplitVar;
  for (auto* bn : bns) {
    momenta.push_back(bn->momentum());
    bn->setMomentum(1.0);
    mean.push_back(torch::zeros_like(current(bn, false)));
    var.push_back(torch::zeros_like(current(bn, true)));
    savedMean.push_back(bn->running_mean.clone());
    savedVar.push_back(bn->running_var.clone());
    savedCount.push_back(bn->num_batches_tracked.clone());
    savedSplitMean.push_back(bn->splits() > 1 ? bn->splitMean().clone() : torch::Tensor());
    savedSplitVar.push_back(bn->splits() > 1 ? bn->splitVar().clone() : torch::Tensor());
  }
  auto restore = [&](size_t i) {
    bns[i]->running_mean.copy_(savedMean[i]);
    bns[i]->running_var.copy_(savedVar[i]);
    bns[i]->num_batches_tracked.copy_(savedCount[i]);
    if (bns[i]->splits() > 1) {
      bns[i]->splitMean().copy_(savedSplitMean[i]);
      bns[i]->splitVar().copy_(savedSplitVar[i]);
    }
  };
  std::vector<torch::Tensor> inputs;
  try {
    while (r.batches < numBatches && next(inputs)) {
      net.forward(inputs);
      ++r.batches;
      for (size_t i = 0; i < bns.size(); ++i) {  // a running mean over batches, as fvcore
        mean[i] += (current(bns[i], false) - mean[i]) / r.batches;
        var[i] += (current(bns[i], true) - var[i]) / r.batches;
      }
    }
  } catch (...) {
    for (size_t i = 0; i < bns.size(); ++i) {
      bns[i]->setMomentum(momenta[i]);
      restore(i);
    }
    net.train(wasTraining);
    throw;
  }
  r.aborted = r.batches < numBatches;
  for (size_t i = 0; i < bns.size(); ++i) {
    bns[i]->setMomentum(momenta[i]);
    if (r.aborted) {
      restore(i);
    } else {
      current(bns[i], false).copy_(mean[i]);
      current(bns[i], true).copy_(var[i]);
      bns[i]->mergeSplits();
    }
  }
  net.train(wasTraining);
  return r;
}

}  // namespace amp::train
