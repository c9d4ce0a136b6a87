#pragma once
// PySlowFast's MIXUP.* (slowfast/datasets/mixup.py, applied in train_net.py): mixup or cutmix of
// a training batch with its own reverse, soft targets with label smoothing, and the training
// error PySlowFast reports on mixed targets. Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::train {

struct MixupParams {
  bool enabled = false;
  double alpha = 0.8;         ///< MIXUP.ALPHA (mixup's Beta(alpha, alpha); 0: no mixup)
  double cutmix_alpha = 1.0;  ///< MIXUP.CUTMIX_ALPHA (0: no cutmix)
  double prob = 1.0;          ///< MIXUP.PROB: a batch is mixed with this probability
  double switch_prob = 0.5;   ///< MIXUP.SWITCH_PROB: cutmix instead of mixup when both are on
  double smoothing = 0.1;     ///< MIXUP.LABEL_SMOOTH_VALUE
  int64_t num_classes = 400;

  static MixupParams fromConfig(const config::Config& c);
};

/// What one batch gets: the weight lam of the batch itself (1 - lam of its reverse), and for
/// cutmix the box [y0, y1) x [x0, x1) pasted from the reverse batch.
struct MixDecision {
  double lam = 1.0;
  bool cutmix = false;
  int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
};

/// Draws a batch's mix as PySlowFast's MixUp._get_mixup_params and get_cutmix_bbox do (in the
/// same order: the PROB draw, the SWITCH_PROB draw when both kinds are on, the Beta draw, then
/// the box centre cy, cx with its lam corrected to the box area actually inside the frame), for
/// frames of height x width. `seed` keys every draw, so a step mixes the same way on every run.
MixDecision drawMix(const MixupParams& p, int64_t height, int64_t width, std::uint64_t seed);

/// Mixes every pathway of the batch in place with its reverse along the batch (x.flip(0)): the
/// weighted sum for mixup, the pasted box for cutmix. PySlowFast mixes inputs[0] only, which for
/// SlowFast would leave the fast pathway unmixed; here every pathway gets the same mix.
void applyMix(std::vector<torch::Tensor>& pathways, const MixDecision& mix);

/// mixup_target: lam * smoothed one-hot(labels) + (1 - lam) * smoothed one-hot(labels reversed),
/// with off value smoothing / K and on value 1 - smoothing + smoothing / K. Float32, B x K.
torch::Tensor mixTargets(const torch::Tensor& labels, int64_t numClasses, double lam,
                         double smoothing);

/// The predictions and labels PySlowFast's train_epoch scores on mixed targets: the label is the
/// target's largest class, and the logit of its second-largest class is added to the largest's
/// and then set to zero, so a prediction of either mixed class counts as right.
std::pair<torch::Tensor, torch::Tensor> mixedPredictionsForErrors(const torch::Tensor& logits,
                                                                  const torch::Tensor& targets);

/// The seed of one micro-batch's mix: RNG_SEED, epoch, iteration, micro-batch and rank.
std::uint64_t mixSeed(std::uint64_t rngSeed, int epoch, std::int64_t iteration, std::int64_t micro,
                      int rank);

}  // namespace amp::train
