#pragma once
// Base of every video network: a list of pathway tensors (N x C x T x H x W) in, logits out.
// Internal to the engine (includes LibTorch); front ends use ModelFactory.h.
#include <torch/torch.h>

#include <string>
#include <vector>

namespace amp::models {

class VideoNetImpl : public torch::nn::Module {
 public:
  /// Training: logits (N x classes). Evaluation: the head activation averaged over any
  /// remaining positions, as PySlowFast's heads do.
  virtual torch::Tensor forward(std::vector<torch::Tensor> pathways) = 0;
  /// Name fragments of parameters trained without weight decay (PySlowFast's no_weight_decay,
  /// e.g. MViT's positional embeddings and class token when MVIT.ZERO_DECAY_POS_CLS).
  virtual std::vector<std::string> noWeightDecayNames() const { return {}; }
};

/// Batch norms whose weight starts at zero with RESNET.ZERO_INIT_FINAL_BN (the last BN of each
/// residual transform, as PySlowFast's `transform_final_bn`).
struct FinalBnRegistry {
  std::vector<torch::nn::BatchNorm3d> bns;
};

/// PySlowFast's init_weights: MSRA fill (fan_out, relu) for 3D convolutions, ones/zeros for
/// batch norm (zeros for the final ones when zeroInitFinalBn), normal(0, fcInitStd) for linear.
void initWeights(torch::nn::Module& net, double fcInitStd, bool zeroInitFinalBn, const FinalBnRegistry& finals);

/// Counts multiply-accumulates of convolutions, linear layers and attention products on this
/// thread while it lives (fvcore's convention, which PySlowFast reports as "FLOPs": one
/// multiply-add is one FLOP; normalisation and activations are not counted).
class FlopCounter {
 public:
  FlopCounter();
  ~FlopCounter();
  FlopCounter(const FlopCounter&) = delete;
  FlopCounter& operator=(const FlopCounter&) = delete;
  std::int64_t macs() const;
  static void add(std::int64_t macs);

 private:
  std::int64_t* previous_;
  std::int64_t count_ = 0;
};

/// Applies a layer and counts its multiply-adds when a FlopCounter is active.
torch::Tensor run(torch::nn::Conv3d& conv, const torch::Tensor& x);
torch::Tensor run(torch::nn::Linear& fc, const torch::Tensor& x);

/// BatchNorm3d with PySlowFast's eps 1e-5 and momentum 0.1.
torch::nn::BatchNorm3d batchNorm(int64_t channels);
/// Conv3d without bias.
torch::nn::Conv3d conv3d(int64_t in, int64_t out, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                         std::vector<int64_t> padding, int64_t groups = 1, std::vector<int64_t> dilation = {1, 1, 1},
                         bool bias = false);

}  // namespace amp::models
