#include "train/Losses.h"

#include <stdexcept>

namespace amp::train {

void checkLossFunc(const std::string& f) {
  // bce: the detection head's probabilities against per-box multi-hot targets (softTargetLoss).
  if (f == "cross_entropy" || f == "soft_cross_entropy" || f == "bce_logit" || f == "bce") return;
  throw std::invalid_argument("MODEL.LOSS_FUNC: " + f +
                              " belongs to a task the studio does not train (contrastive or "
                              "regression); use cross_entropy, soft_cross_entropy or bce_logit");
}

torch::Tensor classificationLoss(const std::string& f, const torch::Tensor& logits,
                                 const torch::Tensor& labels) {
  const auto x = logits.to(torch::kFloat);
  if (f == "cross_entropy") return torch::nn::functional::cross_entropy(x, labels);
  const auto target = torch::one_hot(labels, x.size(1)).to(torch::kFloat);
  if (f == "soft_cross_entropy") return torch::sum(-target * torch::log_softmax(x, -1), -1).mean();
  if (f == "bce_logit") return torch::nn::functional::binary_cross_entropy_with_logits(x, target);
  checkLossFunc(f);
  if (f == "bce")
    throw std::invalid_argument(
        "MODEL.LOSS_FUNC: bce takes probabilities, but a classification head gives logits while "
        "training (HEAD_ACT applies only in evaluation); use bce_logit, or bce with "
        "DETECTION.ENABLE (AVA), whose head gives probabilities");
  throw std::invalid_argument("MODEL.LOSS_FUNC: " + f);
}

torch::Tensor softTargetLoss(const std::string& f, const torch::Tensor& logits,
                             const torch::Tensor& targets) {
  const auto x = logits.to(torch::kFloat);
  const auto t = targets.to(torch::kFloat);
  if (f == "cross_entropy" || f == "soft_cross_entropy")
    return torch::sum(-t * torch::log_softmax(x, -1), -1).mean();
  if (f == "bce_logit") return torch::nn::functional::binary_cross_entropy_with_logits(x, t);
  // Probabilities (AVA's RoI head applies its sigmoid in training too), in float32: BCELoss is
  // one of autocast's unsafe ops, so PySlowFast's autocast region would refuse it.
  if (f == "bce") return torch::nn::functional::binary_cross_entropy(x, t);
  checkLossFunc(f);
  throw std::invalid_argument("MODEL.LOSS_FUNC: " + f);
}

}  // namespace amp::train
