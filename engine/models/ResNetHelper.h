#pragma once
// Residual building blocks of PySlowFast's slowfast/models/resnet_helper.py, with the same
// module names so state dicts map one to one.
#include "models/ActivationTap.h"
#include "models/Net.h"

namespace amp::models {

struct TransformArgs {
  int64_t dim_in, dim_out, temp_kernel, stride, dim_inner, num_groups;
  bool stride_1x1 = false;
  int64_t dilation = 1;
  int block_idx = 0;
  bool inplace_relu =
      true;  ///< RESNET.INPLACE_RELU for ResNet's stages; PySlowFast's default elsewhere
};

/// Squeeze-excitation (X3D): avg_pool, fc1, relu, fc2, sigmoid; scales its input.
class SEImpl : public torch::nn::Module {
 public:
  SEImpl(int64_t dimIn, double ratio);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv3d fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(SE);

/// The three convolutions of a residual block: bottleneck (1x1, 3x3, 1x1 with the temporal
/// kernel on the first), basic (two 3x3), or X3D's (1x1, channel-wise 3x3x3 + SE + swish, 1x1).
class TransformImpl : public torch::nn::Module {
 public:
  enum class Kind { Bottleneck, Basic, X3D };
  TransformImpl(Kind kind, const TransformArgs& a, FinalBnRegistry& finals);
  torch::Tensor forward(torch::Tensor x);

 private:
  Kind kind_;
  bool inplace_ = true;
  torch::nn::Conv3d a_{nullptr}, b_{nullptr}, c_{nullptr};
  BatchNorm3d aBn_{nullptr}, bBn_{nullptr}, cBn_{nullptr};
  SE se_{nullptr};
};
TORCH_MODULE(Transform);

/// A TapPoint: Grad-CAM may target its output ("s5/pathway0_res2").
class ResBlockImpl : public torch::nn::Module, public TapPoint {
 public:
  ResBlockImpl(TransformImpl::Kind kind, const TransformArgs& a, FinalBnRegistry& finals);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv3d branch1_{nullptr};
  BatchNorm3d branch1Bn_{nullptr};
  Transform branch2_{nullptr};
  bool inplaceRelu_ = true;
};
TORCH_MODULE(ResBlock);

/// Non-local block (Wang et al.): embedded gaussian ("softmax") or "dot_product" affinity.
class NonlocalImpl : public torch::nn::Module, public TapPoint {
 public:
  NonlocalImpl(int64_t dim, int64_t dimInner, std::vector<int64_t> pool, bool softmax,
               FinalBnRegistry& finals);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  int64_t dimInner_;
  bool softmax_;
  torch::nn::Conv3d theta_{nullptr}, phi_{nullptr}, g_{nullptr}, out_{nullptr};
  BatchNorm3d bn_{nullptr};
  torch::nn::MaxPool3d pool_{nullptr};
};
TORCH_MODULE(Nonlocal);

struct StageArgs {
  std::vector<int64_t> dim_in, dim_out, dim_inner, stride, num_blocks, num_groups,
      num_block_temp_kernel, dilation;
  std::vector<std::vector<int64_t>> temp_kernel_basis;  ///< per pathway, e.g. {{3, 1}}
  std::vector<std::vector<int64_t>> nonlocal_inds;      ///< per pathway: block indices
  std::vector<std::vector<int64_t>> nonlocal_pool;      ///< per pathway: (T, H, W)
  bool nonlocal_softmax = false;
  std::vector<int64_t> nonlocal_group;  ///< per pathway (NONLOCAL.GROUP); empty: 1
  TransformImpl::Kind kind = TransformImpl::Kind::Bottleneck;
  bool stride_1x1 = false;
  bool inplace_relu = true;
};

/// One stage (s2..s5) for every pathway: blocks "pathway{p}_res{i}", non-local
/// "pathway{p}_nonlocal{i}".
class ResStageImpl : public torch::nn::Module {
 public:
  ResStageImpl(const StageArgs& a, FinalBnRegistry& finals);
  std::vector<torch::Tensor> forward(std::vector<torch::Tensor> x);

 private:
  std::vector<std::vector<std::pair<ResBlock, Nonlocal>>> blocks_;
  std::vector<int64_t> groups_;  ///< per pathway
};
TORCH_MODULE(ResStage);

/// PySlowFast's NONLOCAL.GROUP: the non-local block attends within `groups` consecutive
/// temporal chunks of x (N, C, T, H, W), folded into the batch; T must divide by `groups`.
torch::Tensor groupedNonlocal(Nonlocal& nl, const torch::Tensor& x, int64_t groups);

/// PySlowFast's round_width: width * multiplier rounded to a multiple of divisor.
int64_t roundWidth(double width, double multiplier, int64_t minWidth = 1, int64_t divisor = 1);

}  // namespace amp::models
