#include "models/MViTAttention.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/ActivationCheckpoint.h"
#include "models/MViT.h"
#include "models/ResNetHelper.h"

namespace amp::models::mvit {

int64_t prod(const Vec3& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

torch::nn::LayerNorm layerNorm(int64_t dim) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(1e-6));
}

torch::Tensor norm(torch::nn::LayerNorm& ln, const torch::Tensor& x) {
  return ln(x.scalar_type() == ln->weight.scalar_type() ? x : x.to(ln->weight.scalar_type()));
}

torch::nn::Linear linear(int64_t in, int64_t out, bool bias) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

torch::Tensor attentionPool(torch::Tensor t, const PoolFn& pool, Vec3& thw, bool hasCls,
                            torch::nn::LayerNorm ln) {
  const bool flat = t.dim() == 3;
  if (flat) t = t.unsqueeze(1);
  torch::Tensor cls;
  if (hasCls) {
    cls = t.slice(2, 0, 1);
    t = t.slice(2, 1);
  }
  const int64_t B = t.size(0), N = t.size(1), C = t.size(3);
  t = t.reshape({B * N, thw[0], thw[1], thw[2], C}).permute({0, 4, 1, 2, 3}).contiguous();
  t = pool(t);
  thw = {t.size(2), t.size(3), t.size(4)};
  t = t.reshape({B, N, C, -1}).transpose(2, 3);
  if (hasCls) t = torch::cat({cls, t}, 2);
  if (ln) t = norm(ln, t);
  return flat ? t.squeeze(1) : t;
}

namespace {

// get_rel_pos: a relative-position table resized (linearly) to d entries when it has another
// length.
torch::Tensor relPosTable(const torch::Tensor& rel, int64_t d) {
  if (rel.size(0) == d) return rel;
  namespace F = torch::nn::functional;
  auto r = F::interpolate(rel.reshape({1, rel.size(0), -1}).permute({0, 2, 1}),
                          F::InterpolateFuncOptions()
                              .size(std::vector<int64_t>{d})
                              .mode(torch::kLinear)
                              .align_corners(false));
  return r.reshape({-1, d}).permute({1, 0});
}

// Index of the relative distance between query position i and key position j, with the
// coarser grid scaled up (PySlowFast's dist computation, in float32 like it).
torch::Tensor relDistance(int64_t qn, int64_t kn, const torch::Device& device) {
  const double qr = std::max(static_cast<double>(kn) / static_cast<double>(qn), 1.0);
  const double kr = std::max(static_cast<double>(qn) / static_cast<double>(kn), 1.0);
  auto d = torch::arange(qn, torch::kFloat).unsqueeze(1) * qr -
           torch::arange(kn, torch::kFloat).unsqueeze(0) * kr;
  d = d + static_cast<double>(kn - 1) * kr;
  return d.to(torch::kLong).to(device);
}

}  // namespace

MultiScaleAttentionImpl::MultiScaleAttentionImpl(const AttentionArgs& a) : a_(a) {
  headDim_ = a.dimOut / a.heads;
  scale_ = std::pow(static_cast<double>(headDim_), -0.5);
  if (a.poolFirst || a.separateQkv) {
    q_ = register_module("q", linear(a.dim, a.dimOut, a.qkvBias));
    k_ = register_module("k", linear(a.dim, a.dimOut, a.qkvBias));
    v_ = register_module("v", linear(a.dim, a.dimOut, a.qkvBias));
  } else {
    qkv_ = register_module("qkv", linear(a.dim, a.dimOut * 3, a.qkvBias));
  }
  proj_ = register_module("proj", linear(a.dimOut, a.dimOut));

  Vec3 kq = a.kernelQ, kkv = a.kernelKv;
  if (prod(kq) == 1 && prod(a.strideQ) == 1) kq.clear();  // a 1x1x1 pool is no pool
  if (prod(kkv) == 1 && prod(a.strideKv) == 1) kkv.clear();
  const Vec3 kernels[3] = {kq, kkv, kkv};
  const Vec3 strides[3] = {a.strideQ, a.strideKv, a.strideKv};
  const char* names[3] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    if (kernels[i].empty()) continue;
    Vec3 pad, stride = strides[i].empty() ? Vec3{1, 1, 1} : strides[i];
    for (auto k : kernels[i]) pad.push_back(k / 2);
    kernel_[i] = kernels[i];
    stride_[i] = stride;
    pad_[i] = pad;
    if (a.mode == "conv" || a.mode == "conv_unshared") {
      const int64_t dimConv = a.poolFirst ? (a.mode == "conv" ? a.dim / a.heads : a.dim)
                                          : (a.mode == "conv" ? a.dimOut / a.heads : a.dimOut);
      pool_[i] = register_module(std::string("pool_") + names[i],
                                 conv3d(dimConv, dimConv, kernels[i], stride, pad, dimConv));
      norm_[i] = register_module(std::string("norm_") + names[i], layerNorm(dimConv));
    }
  }
  if (a.relPosSpatial) {
    const int64_t size = a.inputSize[1];
    const int64_t qSize = a.strideQ.empty() ? size : size / a.strideQ[1];
    const int64_t kvSize = a.strideKv.empty() ? size : size / a.strideKv[1];
    const int64_t dim = 2 * std::max(qSize, kvSize) - 1;
    relPosH_ = register_parameter("rel_pos_h", torch::zeros({dim, headDim_}));
    relPosW_ = register_parameter("rel_pos_w", torch::zeros({dim, headDim_}));
    if (!a.relPosZeroInit) {
      truncNormal(relPosH_, 0.02);
      truncNormal(relPosW_, 0.02);
    }
  }
  if (a.relPosTemporal) {
    relPosT_ = register_parameter("rel_pos_t", torch::zeros({2 * a.inputSize[0] - 1, headDim_}));
    if (!a.relPosZeroInit) truncNormal(relPosT_, 0.02);
  }
}

std::pair<torch::Tensor, Vec3> MultiScaleAttentionImpl::forward(const torch::Tensor& x,
                                                                const Vec3& thw) {
  const int64_t B = x.size(0), N = x.size(1), heads = a_.heads;
  torch::Tensor q, k, v;
  if (a_.poolFirst) {
    const int64_t fold = a_.mode == "conv_unshared" ? 1 : heads;
    q = k = v = x.reshape({B, N, fold, -1}).permute({0, 2, 1, 3});
  } else if (qkv_) {
    auto qkv = run(qkv_, x).reshape({B, N, 3, heads, -1}).permute({2, 0, 3, 1, 4});
    q = qkv[0];
    k = qkv[1];
    v = qkv[2];
  } else {
    auto split = [&](torch::nn::Linear& fc) {
      return run(fc, x).reshape({B, N, heads, -1}).permute({0, 2, 1, 3});
    };
    q = split(q_);
    k = split(k_);
    v = split(v_);
  }
  Vec3 shapes[3] = {thw, thw, thw};
  torch::Tensor* qkvs[3] = {&q, &k, &v};
  for (int i = 0; i < 3; ++i) *qkvs[i] = pool(i, *qkvs[i], shapes[i]);
  if (a_.poolFirst) {
    auto project = [&](torch::nn::Linear& fc, const torch::Tensor& t, const Vec3& s) {
      const int64_t n = prod(s) + (a_.hasCls ? 1 : 0);
      return run(fc, t.permute({0, 2, 1, 3}).reshape({B, n, -1}))
          .reshape({B, n, heads, -1})
          .permute({0, 2, 1, 3});
    };
    q = project(q_, q, shapes[0]);
    v = project(v_, v, shapes[2]);
    k = project(k_, k, shapes[1]);
  }
  auto attn = torch::matmul(q * scale_, k.transpose(-2, -1));
  FlopCounter::add(q.numel() * k.size(2));
  if (relPosH_.defined() || relPosT_.defined()) attn = attn + relPosBias(q, shapes[0], shapes[1]);
  attn = attn.softmax(-1);
  auto out = torch::matmul(attn, v);
  FlopCounter::add(attn.numel() * v.size(3));
  if (a_.residualPooling) {
    out = a_.hasCls ? out + torch::cat({torch::zeros_like(q.slice(2, 0, 1)), q.slice(2, 1)}, 2)
                    : out + q;
  }
  out = run(proj_, out.transpose(1, 2).reshape({B, -1, a_.dimOut}));
  if (a_.dropRate > 0.0) out = torch::dropout(out, a_.dropRate, is_training());
  return {out, shapes[0]};
}

torch::Tensor MultiScaleAttentionImpl::pool(int i, const torch::Tensor& t, Vec3& thw) {
  if (kernel_[i].empty()) return t;
  PoolFn fn;
  if (pool_[i]) {
    auto conv = pool_[i];
    fn = [conv](const torch::Tensor& x) mutable { return run(conv, x); };
  } else if (a_.mode == "max") {
    fn = [this, i](const torch::Tensor& x) {
      return torch::max_pool3d(x, kernel_[i], stride_[i], pad_[i]);
    };
  } else {
    fn = [this, i](const torch::Tensor& x) {
      return torch::avg_pool3d(x, kernel_[i], stride_[i], pad_[i]);
    };
  }
  return attentionPool(t, fn, thw, a_.hasCls, norm_[i]);
}

torch::Tensor MultiScaleAttentionImpl::relPosBias(const torch::Tensor& q, const Vec3& qs,
                                                  const Vec3& ks) {
  const int64_t B = q.size(0), H = q.size(1), dim = q.size(3);
  const int64_t sp = a_.hasCls ? 1 : 0;
  auto rq = q.slice(2, sp).reshape({B, H, qs[0], qs[1], qs[2], dim});
  const int64_t rows = B * H * qs[0] * qs[1] * qs[2] * dim;
  torch::Tensor bias;
  if (relPosH_.defined()) {
    auto rh = relPosTable(relPosH_, 2 * std::max(qs[1], ks[1]) - 1)
                  .index({relDistance(qs[1], ks[1], q.device())});
    auto rw = relPosTable(relPosW_, 2 * std::max(qs[2], ks[2]) - 1)
                  .index({relDistance(qs[2], ks[2], q.device())});
    auto relH = torch::einsum("bythwc,hkc->bythwk", {rq, rh});  // B x H x qt x qh x qw x kh
    auto relW = torch::einsum("bythwc,wkc->bythwk", {rq, rw});  // B x H x qt x qh x qw x kw
    FlopCounter::add(rows * (ks[1] + ks[2]));
    bias = relH.unsqueeze(5).unsqueeze(7) + relW.unsqueeze(5).unsqueeze(6);
  }
  if (relPosT_.defined()) {
    auto rt = relPosTable(relPosT_, 2 * std::max(qs[0], ks[0]) - 1)
                  .index({relDistance(qs[0], ks[0], q.device())});
    auto relT = torch::einsum("bythwc,tkc->bythwk", {rq, rt}).unsqueeze(-1).unsqueeze(-1);
    FlopCounter::add(rows * ks[0]);
    bias = bias.defined() ? bias + relT : relT;
  }
  bias = bias.expand({B, H, qs[0], qs[1], qs[2], ks[0], ks[1], ks[2]})
             .reshape({B, H, qs[0] * qs[1] * qs[2], ks[0] * ks[1] * ks[2]});
  if (sp) bias = torch::constant_pad_nd(bias, {1, 0, 1, 0}, 0.0);
  return bias;
}

}  // namespace amp::models::mvit
