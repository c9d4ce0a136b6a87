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
  for (auto* bn : bns) {
    momenta.push_back(bn->momentum());
    bn->setMomentum(1.0);
    mean.push_back(torch::zeros_like(bn->running_mean));
    var.push_back(torch::zeros_like(bn->running_var));
    savedMean.push_back(bn->running_mean.clone());
    savedVar.push_back(bn->running_var.clone());
    savedCount.push_back(bn->num_batches_tracked.clone());
  }
  std::vector<torch::Tensor> inputs;
  try {
    while (r.batches < numBatches && next(inputs)) {
      net.forward(inputs);
      ++r.batches;
      for (size_t i = 0; i < bns.size(); ++i) {  // a running mean over batches, as fvcore
        mean[i] += (bns[i]->running_mean - mean[i]) / r.batches;
        var[i] += (bns[i]->running_var - var[i]) / r.batches;
      }
    }
  } catch (...) {
    for (size_t i = 0; i < bns.size(); ++i) {
      bns[i]->setMomentum(momenta[i]);
      bns[i]->running_mean.copy_(savedMean[i]);
      bns[i]->running_var.copy_(savedVar[i]);
      bns[i]->num_batches_tracked.copy_(savedCount[i]);
    }
    net.train(wasTraining);
    throw;
  }
  r.aborted = r.batches < numBatches;
  for (size_t i = 0; i < bns.size(); ++i) {
    bns[i]->setMomentum(momenta[i]);
    bns[i]->running_mean.copy_(r.aborted ? savedMean[i] : mean[i]);
    bns[i]->running_var.copy_(r.aborted ? savedVar[i] : var[i]);
    if (r.aborted) bns[i]->num_batches_tracked.copy_(savedCount[i]);
  }
  net.train(wasTraining);
  return r;
}

}  // namespace amp::train
