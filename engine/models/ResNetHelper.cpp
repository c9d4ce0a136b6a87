#include "models/ResNetHelper.h"

#include <cmath>

#include "models/ActivationTap.h"

namespace amp::models {
namespace {
using torch::nn::Conv3d;
}  // namespace

int64_t roundWidth(double width, double multiplier, int64_t minWidth, int64_t divisor) {
  if (multiplier == 0.0) return static_cast<int64_t>(width);
  width *= multiplier;
  minWidth = minWidth ? minWidth : divisor;
  double out = std::max<double>(
      static_cast<double>(minWidth),
      static_cast<double>(static_cast<int64_t>(width + divisor / 2.0) / divisor * divisor));
  if (out < 0.9 * width) out += static_cast<double>(divisor);
  return static_cast<int64_t>(out);
}

SEImpl::SEImpl(int64_t dimIn, double ratio) {
  const int64_t dimFc = roundWidth(static_cast<double>(dimIn), ratio, 8, 8);
  fc1_ = register_module("fc1",
                         conv3d(dimIn, dimFc, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 1, {1, 1, 1}, true));
  fc2_ = register_module("fc2",
                         conv3d(dimFc, dimIn, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 1, {1, 1, 1}, true));
}

torch::Tensor SEImpl::forward(const torch::Tensor& x) {
  auto s = torch::adaptive_avg_pool3d(x, {1, 1, 1});
  s = torch::sigmoid(run(fc2_, torch::relu(run(fc1_, s))));
  return x * s;
}

TransformImpl::TransformImpl(Kind kind, const TransformArgs& a, FinalBnRegistry& finals)
    : kind_(kind), inplace_(a.inplace_relu) {
  const int64_t s1 = a.stride_1x1 ? a.stride : 1, s3 = a.stride_1x1 ? 1 : a.stride;
  const int64_t d = a.dilation, t = a.temp_kernel;
  switch (kind) {
    case Kind::Bottleneck:
      a_ = register_module("a",
                           conv3d(a.dim_in, a.dim_inner, {t, 1, 1}, {1, s1, s1}, {t / 2, 0, 0}));
      aBn_ = register_module("a_bn", batchNorm(a.dim_inner));
      b_ = register_module("b", conv3d(a.dim_inner, a.dim_inner, {1, 3, 3}, {1, s3, s3}, {0, d, d},
                                       a.num_groups, {1, d, d}));
      bBn_ = register_module("b_bn", batchNorm(a.dim_inner));
      c_ = register_module("c", conv3d(a.dim_inner, a.dim_out, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}));
      cBn_ = register_module("c_bn", batchNorm(a.dim_out));
      break;
    case Kind::Basic:  // two convolutions: a (t x 3 x 3, strided) and b (1 x 3 x 3)
      a_ = register_module(
          "a", conv3d(a.dim_in, a.dim_out, {t, 3, 3}, {1, a.stride, a.stride}, {t / 2, 1, 1}));
      aBn_ = register_module("a_bn", batchNorm(a.dim_out));
      b_ = register_module(
          "b", conv3d(a.dim_out, a.dim_out, {1, 3, 3}, {1, 1, 1}, {0, d, d}, 1, {1, d, d}));
      bBn_ = register_module("b_bn", batchNorm(a.dim_out));
      break;
    case Kind::X3D:
      a_ = register_module("a", conv3d(a.dim_in, a.dim_inner, {1, 1, 1}, {1, s1, s1}, {0, 0, 0}));
      aBn_ = register_module("a_bn", batchNorm(a.dim_inner));
      b_ = register_module("b", conv3d(a.dim_inner, a.dim_inner, {t, 3, 3}, {1, s3, s3},
                                       {t / 2, d, d}, a.num_groups, {1, d, d}));
      bBn_ = register_module("b_bn", batchNorm(a.dim_inner));
      if ((a.block_idx + 1) % 2) se_ = register_module("se", SE(a.dim_inner, 0.0625));
      c_ = register_module("c", conv3d(a.dim_inner, a.dim_out, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}));
      cBn_ = register_module("c_bn", batchNorm(a.dim_out));
      break;
  }
  finals.bns.push_back(kind == Kind::Basic ? bBn_ : cBn_);
  if (kind != Kind::Bottleneck) finals.convs.push_back(kind == Kind::Basic ? b_ : c_);
}

torch::Tensor TransformImpl::forward(torch::Tensor x) {
  x = models::relu(aBn_(run(a_, x)), inplace_);
  x = bBn_(run(b_, x));
  if (kind_ == Kind::Basic) return x;
  if (kind_ == Kind::X3D) {
    if (se_) x = se_(x);
    // Swish. PySlowFast's SwishEfficient computes x * sigmoid(x) and its gradient from x alone;
    // silu is the same function fused (within an ulp of the product), 2-4x faster forward and
    // backward on the CPU at the demo X3D's shapes.
    x = torch::silu(x);
  } else {
    x = models::relu(x, inplace_);
  }
  return cBn_(run(c_, x));
}

ResBlockImpl::ResBlockImpl(TransformImpl::Kind kind, const TransformArgs& a,
                           FinalBnRegistry& finals)
    : inplaceRelu_(a.inplace_relu) {
  if (a.dim_in != a.dim_out || a.stride != 1) {
    branch1_ = register_module(
        "branch1", conv3d(a.dim_in, a.dim_out, {1, 1, 1}, {1, a.stride, a.stride}, {0, 0, 0}));
    branch1Bn_ = register_module("branch1_bn", batchNorm(a.dim_out));
  }
  branch2_ = register_module("branch2", Transform(kind, a, finals));
}

torch::Tensor ResBlockImpl::forward(torch::Tensor x) {
  // MODEL.DROPCONNECT_RATE: PySlowFast's ResBlock calls drop_path(f_x, rate) without
  // training=True, so nothing is ever dropped; the studio does the same (the rate is unused).
  auto f = branch2_(x);
  x = branch1_ ? branch1Bn_(run(branch1_, x)) + f : x + f;
  return ActivationTap::pass(*this, models::relu(x, inplaceRelu_));
}

NonlocalImpl::NonlocalImpl(int64_t dim, int64_t dimInner, std::vector<int64_t> pool, bool softmax,
                           FinalBnRegistry& finals)
    : dimInner_(dimInner), softmax_(softmax) {
  theta_ = register_module(
      "conv_theta", conv3d(dim, dimInner, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 1, {1, 1, 1}, true));
  phi_ = register_module(
      "conv_phi", conv3d(dim, dimInner, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 1, {1, 1, 1}, true));
  g_ = register_module("conv_g",
                       conv3d(dim, dimInner, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 1, {1, 1, 1}, true));
  out_ = register_module(
      "conv_out", conv3d(dimInner, dim, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, 1, {1, 1, 1}, true));
  bn_ = register_module("bn", batchNorm(dim));
  finals.bns.push_back(bn_);
  if (std::any_of(pool.begin(), pool.end(), [](int64_t p) { return p > 1; }))
    pool_ = register_module(
        "pool", torch::nn::MaxPool3d(torch::nn::MaxPool3dOptions(torch::IntArrayRef(pool))
                                         .stride(torch::IntArrayRef(pool))));
}

torch::Tensor NonlocalImpl::forward(const torch::Tensor& x) {
  const auto n = x.size(0), t = x.size(2), h = x.size(3), w = x.size(4);
  auto theta = run(theta_, x).view({n, dimInner_, -1});
  const auto pooled = pool_ ? pool_(x) : x;
  auto phi = run(phi_, pooled).view({n, dimInner_, -1});
  auto g = run(g_, pooled).view({n, dimInner_, -1});
  auto affinity = torch::einsum("nct,ncp->ntp", {theta, phi});
  FlopCounter::add(affinity.numel() * dimInner_ * 2);  // both products
  if (softmax_)
    affinity = torch::softmax(affinity * std::pow(static_cast<double>(dimInner_), -0.5), 2);
  else
    affinity = affinity / static_cast<double>(affinity.size(2));
  auto y = torch::einsum("ntg,ncg->nct", {affinity, g}).reshape({n, dimInner_, t, h, w});
  return ActivationTap::pass(*this, x + bn_(run(out_, y)));
}

ResStageImpl::ResStageImpl(const StageArgs& a, FinalBnRegistry& finals) {
  const size_t pathways = a.dim_in.size();
  blocks_.resize(pathways);
  groups_ = a.nonlocal_group;
  for (size_t p = 0; p < pathways; ++p) {
    // Temporal kernels: the basis repeated, cut at NUM_BLOCK_TEMP_KERNEL, then 1s.
    std::vector<int64_t> kernels;
    for (int64_t i = 0; static_cast<int64_t>(kernels.size()) < a.num_block_temp_kernel[p]; ++i)
      kernels.push_back(
          a.temp_kernel_basis[p][static_cast<size_t>(i) % a.temp_kernel_basis[p].size()]);
    kernels.resize(static_cast<size_t>(a.num_blocks[p]), 1);
    for (int64_t i = 0; i < a.num_blocks[p]; ++i) {
      TransformArgs t{i == 0 ? a.dim_in[p] : a.dim_out[p],
                      a.dim_out[p],
                      kernels[static_cast<size_t>(i)],
                      i == 0 ? a.stride[p] : 1,
                      a.dim_inner[p],
                      a.num_groups[p],
                      a.stride_1x1,
                      a.dilation[p],
                      static_cast<int>(i),
                      a.inplace_relu};
      auto block = register_module("pathway" + std::to_string(p) + "_res" + std::to_string(i),
                                   ResBlock(a.kind, t, finals));
      Nonlocal nl{nullptr};
      const auto& inds = a.nonlocal_inds[p];
      if (std::find(inds.begin(), inds.end(), i) != inds.end())
        nl = register_module("pathway" + std::to_string(p) + "_nonlocal" + std::to_string(i),
                             Nonlocal(a.dim_out[p], a.dim_out[p] / 2, a.nonlocal_pool[p],
                                      a.nonlocal_softmax, finals));
      blocks_[p].emplace_back(block, nl);
    }
  }
}

torch::Tensor groupedNonlocal(Nonlocal& nl, const torch::Tensor& x, int64_t groups) {
  if (groups <= 1) return nl(x);
  const int64_t b = x.size(0), c = x.size(1), t = x.size(2), h = x.size(3), w = x.size(4);
  if (t % groups != 0)
    throw std::invalid_argument("NONLOCAL.GROUP: " + std::to_string(groups) +
                                " groups need a number of frames that divides by it at "
                                "this stage; it has " +
                                std::to_string(t));
  // (N, C, T, H, W) -> (N * G, C, T / G, H, W): each chunk of T / G frames becomes its own clip.
  auto folded = x.permute({0, 2, 1, 3, 4})
                    .reshape({b * groups, t / groups, c, h, w})
                    .permute({0, 2, 1, 3, 4});
  auto y = nl(folded);
  return y.permute({0, 2, 1, 3, 4}).reshape({b, t, c, h, w}).permute({0, 2, 1, 3, 4});
}

std::vector<torch::Tensor> ResStageImpl::forward(std::vector<torch::Tensor> x) {
  for (size_t p = 0; p < x.size(); ++p)
    for (auto& [block, nl] : blocks_[p]) {
      x[p] = block(x[p]);
      if (nl) x[p] = groupedNonlocal(nl, x[p], p < groups_.size() ? groups_[p] : 1);
    }
  return x;
}

}  // namespace amp::models
