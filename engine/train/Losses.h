#pragma once
// The training losses of MODEL.LOSS_FUNC on class labels or soft targets, as PySlowFast's
// losses.py. Internal to the engine (LibTorch types).
//
//   train::checkLossFunc(cfg.getString("MODEL.LOSS_FUNC"));  // refuses a task's loss up front
//   auto loss = train::classificationLoss("cross_entropy", logits, labels);
#include <torch/torch.h>

#include <string>

namespace amp::train {

/// MODEL.LOSS_FUNC on training logits and class-index labels, in float32, mean over the batch:
/// cross_entropy (PySlowFast's nn.CrossEntropyLoss), soft_cross_entropy (its
/// SoftTargetCrossEntropyLoss on one-hot targets) and bce_logit (nn.BCEWithLogitsLoss on one-hot
/// targets). Throws std::invalid_argument naming the key for the losses of tasks the studio does
/// not train (bce needs probabilities and multi-hot labels; contrastive_loss, mse, multi_mse).
torch::Tensor classificationLoss(const std::string& lossFunc, const torch::Tensor& logits,
                                 const torch::Tensor& labels);
/// The same losses on soft targets (B x classes, e.g. mixup's): cross_entropy as torch's
/// CrossEntropyLoss on class probabilities, which equals soft_cross_entropy (its
/// SoftTargetCrossEntropyLoss without normalising the targets); bce_logit on the soft targets.
torch::Tensor softTargetLoss(const std::string& lossFunc, const torch::Tensor& logits,
                             const torch::Tensor& targets);

/// Throws std::invalid_argument when MODEL.LOSS_FUNC is one classificationLoss refuses.
void checkLossFunc(const std::string& lossFunc);

}  // namespace amp::train
