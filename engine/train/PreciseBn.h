#pragma once
// Precise batch-norm statistics (BN.USE_PRECISE_STATS), as PySlowFast's
// calculate_and_update_precise_bn with fvcore's update_bn_stats: the model runs forward in
// training mode, without gradients, on BN.NUM_BATCHES_PRECISE training batches with every batch
// norm's momentum at 1, and each layer's running mean and variance become the average of the
// per-batch statistics (instead of the exponential average training leaves behind). Weights are
// untouched. Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <functional>
#include <vector>

#include "models/Net.h"

namespace amp::train {

struct PreciseBnResult {
  int layers = 0;   ///< batch norms updated
  int batches = 0;  ///< batches averaged
  bool aborted = false;
};

/// `next` puts the next batch's inputs in its argument and returns true, or returns false when
/// there is no more data or a stop was requested; then, if fewer than `numBatches` batches were
/// seen, the statistics are left as they were before the call (aborted). Momenta are restored.
PreciseBnResult updatePreciseBnStats(models::VideoNetImpl& net, int numBatches,
                                     const std::function<bool(std::vector<torch::Tensor>&)>& next);

}  // namespace amp::train
