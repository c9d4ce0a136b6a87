#pragma once
// MViT's pooling attention (MultiScaleAttention of slowfast/models/attention.py) and the token
// helpers MViT's blocks share with it: pooling tokens over their T x H x W grid with the class
// token kept aside, layer norms in float32 under autocast. Internal to the engine (models/MViT).
//
//   mvit::AttentionArgs a;
//   a.dim = a.dimOut = 96; a.heads = 1; a.inputSize = {8, 56, 56};
//   a.kernelQ = a.kernelKv = {3, 3, 3}; a.strideKv = {1, 8, 8};
//   auto attn = register_module("attn", mvit::MultiScaleAttention(a));
//   auto [tokens, thw] = attn(x, {8, 56, 56});   // x: B x (1 + 8*56*56) x 96
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace amp::models::mvit {

using Vec3 = std::vector<int64_t>;
using PoolFn = std::function<torch::Tensor(const torch::Tensor&)>;

int64_t prod(const Vec3& v);
torch::nn::LayerNorm layerNorm(int64_t dim);
/// Layer norm in float32 when the input comes reduced from autocast: CUDA autocast runs
/// layer_norm in float32 anyway, and LibTorch 1.13's CPU kernel throws on bfloat16 input with
/// float weights.
torch::Tensor norm(torch::nn::LayerNorm& ln, const torch::Tensor& x);
torch::nn::Linear linear(int64_t in, int64_t out, bool bias = true);
/// attention_pool: pools the tokens of B x heads x L x C (or B x L x C) over their T x H x W
/// grid, keeping the class token aside; thw becomes the pooled grid.
torch::Tensor attentionPool(torch::Tensor t, const PoolFn& pool, Vec3& thw, bool hasCls,
                            torch::nn::LayerNorm ln = nullptr);

struct AttentionArgs {
  int64_t dim = 0, dimOut = 0, heads = 1;
  Vec3 inputSize;
  bool qkvBias = true;
  double dropRate = 0.0;
  Vec3 kernelQ, kernelKv, strideQ, strideKv;
  std::string mode = "conv";
  bool hasCls = true, poolFirst = false, relPosSpatial = false, relPosTemporal = false,
       relPosZeroInit = false;
  bool residualPooling = false, separateQkv = false;
};

// MultiScaleAttention of slowfast/models/attention.py.
class MultiScaleAttentionImpl : public torch::nn::Module {
 public:
  explicit MultiScaleAttentionImpl(const AttentionArgs& a);
  std::pair<torch::Tensor, Vec3> forward(const torch::Tensor& x, const Vec3& thw);

 private:
  torch::Tensor pool(int i, const torch::Tensor& t, Vec3& thw);
  // Decomposed relative positional terms (cal_rel_pos_spatial + cal_rel_pos_temporal) as one
  // additive bias over the attention matrix; the class token's row and column get none.
  torch::Tensor relPosBias(const torch::Tensor& q, const Vec3& qs, const Vec3& ks);

  AttentionArgs a_;
  int64_t headDim_ = 0;
  double scale_ = 1.0;
  torch::nn::Linear qkv_{nullptr}, q_{nullptr}, k_{nullptr}, v_{nullptr}, proj_{nullptr};
  torch::nn::Conv3d pool_[3] = {nullptr, nullptr, nullptr};
  torch::nn::LayerNorm norm_[3] = {nullptr, nullptr, nullptr};
  Vec3 kernel_[3], stride_[3], pad_[3];
  torch::Tensor relPosH_, relPosW_, relPosT_;
};
TORCH_MODULE(MultiScaleAttention);

}  // namespace amp::models::mvit
