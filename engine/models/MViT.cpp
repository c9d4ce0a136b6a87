#include "models/MViT.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "config/Config.h"
#include "models/ActivationCheckpoint.h"
#include "models/ActivationTap.h"
#include "models/MViTAttention.h"
#include "models/ResNetHelper.h"
#include "models/ResNetRoIHead.h"

namespace amp::models {

void truncNormal(torch::Tensor& t, double std, double mean, double a, double b) {
  // Inverse-CDF sampling, as torch.nn.init.trunc_normal_ does it.
  torch::NoGradGuard noGrad;
  auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double lo = cdf((a - mean) / std), hi = cdf((b - mean) / std);
  t.uniform_(2.0 * lo - 1.0, 2.0 * hi - 1.0)
      .erfinv_()
      .mul_(std * std::sqrt(2.0))
      .add_(mean)
      .clamp_(a, b);
}

namespace {

using namespace mvit;

[[noreturn]] void bad(const std::string& key, const std::string& why) {
  throw std::invalid_argument(key + ": " + why);
}

std::string shapeText(const Vec3& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

// Stochastic depth: drops the whole residual branch per sample while training.
torch::Tensor dropPath(const torch::Tensor& x, double rate, bool training) {
  if (!training || rate <= 0.0) return x;
  const double keep = 1.0 - rate;
  auto mask = torch::empty({x.size(0), 1, 1}, x.options()).bernoulli_(keep);
  return x / keep * mask;
}

// Mlp of slowfast/models/common.py: fc1, GELU, fc2 (dropout after each when set).
class MlpImpl : public torch::nn::Module {
 public:
  MlpImpl(int64_t in, int64_t hidden, int64_t out, double drop) : drop_(drop) {
    fc1_ = register_module("fc1", linear(in, hidden));
    fc2_ = register_module("fc2", linear(hidden, out));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = torch::gelu(run(fc1_, x));
    if (drop_ > 0.0) y = torch::dropout(y, drop_, is_training());
    y = run(fc2_, y);
    if (drop_ > 0.0) y = torch::dropout(y, drop_, is_training());
    return y;
  }

 private:
  double drop_;
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(Mlp);

struct BlockArgs {
  AttentionArgs attn;
  int64_t dimOut = 0;
  double mlpRatio = 4.0, dropPath = 0.0;
  bool dimMulInAtt = false;
};

// MultiScaleBlock: norm1, pooling attention (+ pooled skip), norm2, MLP, width projection.
// A TapPoint: Grad-CAM may target its tokens ("blocks/15"), put back on their grid.
class MultiScaleBlockImpl : public torch::nn::Module, public TapPoint {
 public:
  explicit MultiScaleBlockImpl(BlockArgs b) : dim_(b.attn.dim), dimOut_(b.dimOut), b_(b) {
    norm1_ = register_module("norm1", layerNorm(dim_));
    const int64_t attDim = b.dimMulInAtt ? dimOut_ : dim_;
    b.attn.dimOut = attDim;
    attn_ = register_module("attn", MultiScaleAttention(b.attn));
    norm2_ = register_module("norm2", layerNorm(attDim));
    mlp_ = register_module(
        "mlp", Mlp(attDim, static_cast<int64_t>(static_cast<double>(attDim) * b.mlpRatio), dimOut_,
                   b.attn.dropRate));
    if (dim_ != dimOut_) proj_ = register_module("proj", linear(dim_, dimOut_));
    const Vec3& s = b.attn.strideQ;
    if (!s.empty() && prod(s) > 1) {
      for (auto v : s) skipKernel_.push_back(v > 1 ? v + 1 : v);
      for (auto k : skipKernel_) skipPad_.push_back(k / 2);
      skipStride_ = s;
    }
  }

  std::pair<torch::Tensor, Vec3> forward(torch::Tensor x, const Vec3& thw) {
    auto xNorm = norm(norm1_, x);
    auto [xBlock, thwNew] = attn_(xNorm, thw);
    if (b_.dimMulInAtt && proj_) x = run(proj_, xNorm);
    if (!skipKernel_.empty()) {
      Vec3 pooled = thw;
      x = attentionPool(
          x,
          [this](const torch::Tensor& t) {
            return torch::max_pool3d(t, skipKernel_, skipStride_, skipPad_);
          },
          pooled, b_.attn.hasCls);
    }
    x = x + dropPath(xBlock, b_.dropPath, is_training());
    xNorm = norm(norm2_, x);
    auto xMlp = mlp_(xNorm);
    if (!b_.dimMulInAtt && proj_) x = run(proj_, xNorm);
    x = x + dropPath(xMlp, b_.dropPath, is_training());
    return {ActivationTap::pass(*this, x, thwNew, b_.attn.hasCls), thwNew};
  }

 private:
  int64_t dim_, dimOut_;
  BlockArgs b_;
  torch::nn::LayerNorm norm1_{nullptr}, norm2_{nullptr};
  MultiScaleAttention attn_{nullptr};
  Mlp mlp_{nullptr};
  torch::nn::Linear proj_{nullptr};
  Vec3 skipKernel_, skipStride_, skipPad_;
};
TORCH_MODULE(MultiScaleBlock);

class PatchEmbedImpl : public torch::nn::Module {
 public:
  PatchEmbedImpl(int64_t in, int64_t out, const Vec3& kernel, const Vec3& stride, const Vec3& pad) {
    proj_ = register_module("proj", conv3d(in, out, kernel, stride, pad, 1, {1, 1, 1}, true));
  }
  torch::Tensor forward(const torch::Tensor& x) { return run(proj_, x); }

 private:
  torch::nn::Conv3d proj_{nullptr};
};
TORCH_MODULE(PatchEmbed);

// TransformerBasicHead: dropout, projection, the activation in evaluation. `detach`
// (MODEL.DETACH_FINAL_FC): the projection's input leaves the graph, so only the projection
// learns (a linear probe), as PySlowFast's head.
class TransformerHeadImpl : public torch::nn::Module {
 public:
  TransformerHeadImpl(int64_t dimIn, int64_t classes, double dropout, std::string act, bool detach)
      : dropout_(dropout), act_(std::move(act)), detach_(detach) {
    projection_ = register_module("projection", linear(dimIn, classes));
  }
  torch::Tensor forward(torch::Tensor x) {
    if (dropout_ > 0.0) x = torch::dropout(x, dropout_, is_training());
    if (detach_) x = x.detach();
    x = run(projection_, x);
    if (!is_training()) {
      if (act_ == "softmax")
        x = torch::softmax(x, 1);
      else if (act_ == "sigmoid")
        x = torch::sigmoid(x);
    }
    return x;
  }
  torch::nn::Linear& projection() { return projection_; }

 private:
  double dropout_;
  std::string act_;
  bool detach_;
  torch::nn::Linear projection_{nullptr};
};
TORCH_MODULE(TransformerHead);

Vec3 triple(const config::Config& c, const char* key) {
  auto v = c.getIntList(key);
  if (v.size() != 3) bad(key, "needs three values (T, H, W), got " + std::to_string(v.size()));
  return v;
}

// [[block, value...], ...] lists of the MVIT keys, checked.
std::vector<std::vector<double>> blockList(const config::Config& c, const char* key, size_t width,
                                           int64_t maxBlock) {
  std::vector<std::vector<double>> out;
  const auto& v = c.get(key);
  if (v.is_null()) return out;
  if (!v.is_array()) bad(key, "must be a list of [block, ...] entries");
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& e = v[i];
    if (!e.is_array() || e.size() != width)
      bad(key, "entry " + std::to_string(i) + " must have " + std::to_string(width) +
                   " numbers: [block, ...]");
    std::vector<double> row;
    for (const auto& x : e) {
      if (!x.is_number()) bad(key, "entry " + std::to_string(i) + " must hold numbers only");
      row.push_back(x.get<double>());
    }
    if (row[0] < 0 || row[0] > static_cast<double>(maxBlock) || row[0] != std::floor(row[0]))
      bad(key, "entry " + std::to_string(i) + " names block " + std::to_string(row[0]) +
                   "; blocks run from 0 to " + std::to_string(maxBlock) + " (MVIT.DEPTH)");
    out.push_back(row);
  }
  return out;
}

class MViTImpl : public VideoNetImpl {
 public:
  explicit MViTImpl(const config::Config& c) {
    const int64_t crop = c.getInt("DATA.TRAIN_CROP_SIZE");
    if (c.getInt("DATA.TEST_CROP_SIZE") != crop)
      bad("DATA.TEST_CROP_SIZE",
          "MViT needs the same crop as DATA.TRAIN_CROP_SIZE (" + std::to_string(crop) + ")");
    if (c.getBool("MVIT.PATCH_2D"))
      bad("MVIT.PATCH_2D", "2D patches are not built; set it to False");
    if (c.getString("MVIT.NORM") != "layernorm")
      bad("MVIT.NORM",
          "'" + c.getString("MVIT.NORM") + "' is not built (PySlowFast supports only layernorm)");
    if (c.getBool("MVIT.REV.ENABLE"))
      bad("MVIT.REV.ENABLE", c.getBool("DETECTION.ENABLE")
                                 ? "reversible MViT has no detection head (PySlowFast asserts "
                                   "not DETECTION.ENABLE there) and is not built; set it to False"
                                 : "reversible MViT is not built; set it to False");
    if (c.getBool("MVIT.USE_FIXED_SINCOS_POS"))
      bad("MVIT.USE_FIXED_SINCOS_POS",
          "fixed sine-cosine embeddings are not built; set it to False");
    const std::string mode = c.getString("MVIT.MODE");
    poolFirst_ = c.getBool("MVIT.POOL_FIRST");
    if (mode == "conv_unshared" && !poolFirst_)
      bad("MVIT.MODE", "conv_unshared pooling needs MVIT.POOL_FIRST True (as in PySlowFast)");
    const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
    if (channels.size() != 1) bad("DATA.INPUT_CHANNEL_NUM", "MViT takes one pathway, e.g. [3]");

    const Vec3 kernel = triple(c, "MVIT.PATCH_KERNEL"), stride = triple(c, "MVIT.PATCH_STRIDE"),
               padding = triple(c, "MVIT.PATCH_PADDING");
    patchDims_ = {c.getInt("DATA.NUM_FRAMES") / stride[0], crop / stride[1], crop / stride[2]};
    if (prod(patchDims_) <= 0)
      bad("MVIT.PATCH_STRIDE", "leaves no patches for " +
                                   std::to_string(c.getInt("DATA.NUM_FRAMES")) + " frames at " +
                                   std::to_string(crop) + " px");
    clsOn_ = c.getBool("MVIT.CLS_EMBED_ON");
    absPos_ = c.getBool("MVIT.USE_ABS_POS");
    sepPos_ = c.getBool("MVIT.SEP_POS_EMBED");
    meanPool_ = c.getBool("MVIT.USE_MEAN_POOLING");
    dropRate_ = c.getFloat("MVIT.DROPOUT_RATE");
    actCheckpoint_ = c.getBool("MODEL.ACT_CHECKPOINT");
    const int64_t depth = c.getInt("MVIT.DEPTH");
    int64_t embed = c.getInt("MVIT.EMBED_DIM"), heads = c.getInt("MVIT.NUM_HEADS");

    patchEmbed_ =
        register_module("patch_embed", PatchEmbed(channels[0], embed, kernel, stride, padding));
    if (clsOn_) clsToken_ = register_parameter("cls_token", torch::zeros({1, 1, embed}));
    if (absPos_) {
      if (sepPos_) {
        posSpatial_ = register_parameter("pos_embed_spatial",
                                         torch::zeros({1, patchDims_[1] * patchDims_[2], embed}));
        posTemporal_ =
            register_parameter("pos_embed_temporal", torch::zeros({1, patchDims_[0], embed}));
        if (clsOn_) posClass_ = register_parameter("pos_embed_class", torch::zeros({1, 1, embed}));
      } else {
        pos_ = register_parameter("pos_embed",
                                  torch::zeros({1, prod(patchDims_) + (clsOn_ ? 1 : 0), embed}));
      }
    }
    if (c.getBool("MVIT.NORM_STEM")) normStem_ = register_module("norm_stem", layerNorm(embed));

    // Width / head multipliers and per-block pooling, as PySlowFast derives them.
    std::vector<double> dimMul(depth + 1, 1.0), headMul(depth + 1, 1.0);
    for (const auto& e : blockList(c, "MVIT.DIM_MUL", 2, depth))
      dimMul[static_cast<size_t>(e[0])] = e[1];
    for (const auto& e : blockList(c, "MVIT.HEAD_MUL", 2, depth))
      headMul[static_cast<size_t>(e[0])] = e[1];
    std::vector<Vec3> poolQ(depth), poolKv(depth), strideQ(depth), strideKv(depth);
    std::optional<Vec3> kvqKernel;
    if (!c.get("MVIT.POOL_KVQ_KERNEL").is_null()) kvqKernel = triple(c, "MVIT.POOL_KVQ_KERNEL");
    auto kernelFor = [&](const Vec3& s) {
      if (kvqKernel) return *kvqKernel;
      Vec3 k;
      for (auto v : s) k.push_back(v > 1 ? v + 1 : v);
      return k;
    };
    auto toVec = [](const std::vector<double>& row) {
      Vec3 v;
      for (size_t i = 1; i < row.size(); ++i) v.push_back(static_cast<int64_t>(row[i]));
      return v;
    };
    for (const auto& e : blockList(c, "MVIT.POOL_Q_STRIDE", 4, depth - 1)) {
      const auto i = static_cast<size_t>(e[0]);
      strideQ[i] = toVec(e);
      poolQ[i] = kernelFor(strideQ[i]);
    }
    std::vector<std::pair<size_t, Vec3>> kvStrides;
    if (!c.get("MVIT.POOL_KV_STRIDE_ADAPTIVE").is_null()) {
      Vec3 kv = triple(c, "MVIT.POOL_KV_STRIDE_ADAPTIVE");
      for (int64_t i = 0; i < depth; ++i) {
        if (!strideQ[i].empty())
          for (size_t d = 0; d < 3; ++d) kv[d] = std::max<int64_t>(kv[d] / strideQ[i][d], 1);
        kvStrides.emplace_back(static_cast<size_t>(i), kv);
      }
    } else {
      for (const auto& e : blockList(c, "MVIT.POOL_KV_STRIDE", 4, depth - 1))
        kvStrides.emplace_back(static_cast<size_t>(e[0]), toVec(e));
    }
    for (const auto& [i, s] : kvStrides) {
      strideKv[i] = s;
      poolKv[i] = kernelFor(s);
    }

    // MVIT.LAYER_SCALE_INIT_VALUE: PySlowFast reads it but never passes it to its blocks, so its
    // MViT has no layer scale (no gamma_1 / gamma_2) whatever the value; neither has this one.
    const bool dimMulInAtt = c.getBool("MVIT.DIM_MUL_IN_ATT");
    auto dpr = torch::linspace(0.0, c.getFloat("MVIT.DROPPATH_RATE"), depth, torch::kFloat);
    blocks_ = register_module("blocks", torch::nn::ModuleList());
    Vec3 inputSize = patchDims_;
    for (int64_t i = 0; i < depth; ++i) {
      heads = roundWidth(static_cast<double>(heads), headMul[i]);
      const int64_t dimOut =
          dimMulInAtt ? roundWidth(static_cast<double>(embed), dimMul[i], 1,
                                   roundWidth(static_cast<double>(heads), headMul[i]))
                      : roundWidth(static_cast<double>(embed), dimMul[i + 1], 1,
                                   roundWidth(static_cast<double>(heads), headMul[i + 1]));
      BlockArgs b;
      b.attn.dim = embed;
      b.attn.heads = heads;
      b.attn.inputSize = inputSize;
      b.attn.qkvBias = c.getBool("MVIT.QKV_BIAS");
      b.attn.dropRate = dropRate_;
      b.attn.kernelQ = poolQ[i];
      b.attn.kernelKv = poolKv[i];
      b.attn.strideQ = strideQ[i];
      b.attn.strideKv = strideKv[i];
      b.attn.mode = mode;
      b.attn.hasCls = clsOn_;
      b.attn.poolFirst = poolFirst_;
      b.attn.relPosSpatial = c.getBool("MVIT.REL_POS_SPATIAL");
      b.attn.relPosTemporal = c.getBool("MVIT.REL_POS_TEMPORAL");
      b.attn.relPosZeroInit = c.getBool("MVIT.REL_POS_ZERO_INIT");
      b.attn.residualPooling = c.getBool("MVIT.RESIDUAL_POOLING");
      b.attn.separateQkv = c.getBool("MVIT.SEPARATE_QKV");
      if (b.attn.relPosSpatial && inputSize[1] != inputSize[2])
        bad("MVIT.REL_POS_SPATIAL", "needs square token grids; block " + std::to_string(i) +
                                        " sees " + shapeText(inputSize));
      if (embed % heads != 0 || dimOut % heads != 0)
        bad("MVIT.HEAD_MUL", "block " + std::to_string(i) + " has width " + std::to_string(dimOut) +
                                 " for " + std::to_string(heads) +
                                 " heads; widths must divide by the heads");
      b.dimOut = dimOut;
      b.mlpRatio = c.getFloat("MVIT.MLP_RATIO");
      b.dropPath = static_cast<double>(dpr[i].item<float>());
      b.dimMulInAtt = dimMulInAtt;
      blocks_->push_back(MultiScaleBlock(b));
      blockList_.push_back(blocks_->ptr<MultiScaleBlockImpl>(static_cast<size_t>(i)));
      if (!strideQ[i].empty())
        for (size_t d = 0; d < 3; ++d) inputSize[d] /= strideQ[i][d];
      if (prod(inputSize) <= 0)
        bad("MVIT.POOL_Q_STRIDE", "pools the token grid away by block " + std::to_string(i) +
                                      "; use a larger input or fewer query strides");
      embed = dimOut;
    }
    norm_ = register_module("norm", layerNorm(embed));
    if (c.getBool("DETECTION.ENABLE")) {
      // PySlowFast's ResNetRoIHead on the token grid: its temporal pool is NUM_FRAMES over the
      // patch stride, so a temporal query stride (which PySlowFast's head would fail on at the
      // first forward) is refused here; DETACH_FINAL_FC is not passed there, nor here.
      if (inputSize[0] != patchDims_[0])
        bad("MVIT.POOL_Q_STRIDE", "pools time from " + std::to_string(patchDims_[0]) + " to " +
                                      std::to_string(inputSize[0]) +
                                      " frames, but the detection head averages all " +
                                      std::to_string(patchDims_[0]) + "; use temporal stride 1");
      RoIHeadArgs a;
      a.dim_in = {embed};
      a.num_classes = c.getInt("MODEL.NUM_CLASSES");
      a.pool_size = {{patchDims_[0], 1, 1}};
      const int64_t resolution = c.getInt("DETECTION.ROI_XFORM_RESOLUTION");
      a.resolution = {{resolution, resolution}};
      a.scale_factor = {static_cast<double>(c.getInt("DETECTION.SPATIAL_SCALE_FACTOR"))};
      a.dropout_rate = c.getFloat("MODEL.DROPOUT_RATE");
      a.act = c.getString("MODEL.HEAD_ACT");
      a.aligned = c.getBool("DETECTION.ALIGNED");
      roiHead_ = register_module("head", ResNetRoIHead(a));
    } else {
      head_ = register_module(
          "head",
          TransformerHead(embed, c.getInt("MODEL.NUM_CLASSES"), c.getFloat("MODEL.DROPOUT_RATE"),
                          c.getString("MODEL.HEAD_ACT"), c.getBool("MODEL.DETACH_FINAL_FC")));
    }
    if (c.getBool("MVIT.ZERO_DECAY_POS_CLS")) {
      if (absPos_) {
        if (sepPos_)
          noDecay_ = {"pos_embed_spatial", "pos_embed_temporal", "pos_embed_class"};
        else
          noDecay_ = {"pos_embed"};
      }
      if (c.getBool("MVIT.REL_POS_SPATIAL"))
        noDecay_.insert(noDecay_.end(), {"rel_pos_h", "rel_pos_w", "rel_pos_hw"});
      if (c.getBool("MVIT.REL_POS_TEMPORAL")) noDecay_.push_back("rel_pos_t");
      if (clsOn_) noDecay_.push_back("cls_token");
    }
    initialise(c.getFloat("MVIT.HEAD_INIT_SCALE"));
  }

  std::vector<std::string> noWeightDecayNames() const override { return noDecay_; }

  bool detection() const override { return !roiHead_.is_empty(); }

  torch::Tensor forward(std::vector<torch::Tensor> pathways) override {
    if (roiHead_)
      throw std::logic_error("DETECTION.ENABLE: this model scores boxes; call forward(x, boxes)");
    auto [x, thw] = tokens(pathways);
    if (meanPool_) {
      if (clsOn_) x = x.slice(1, 1);
      x = norm(norm_, x.mean(1));
    } else if (clsOn_) {
      x = norm(norm_, x).select(1, 0);
    } else {
      x = norm(norm_, x).mean(1);
    }
    return head_(x);
  }

  // PySlowFast's detection forward: the normed tokens without the class token, back on their
  // B x C x T x H x W grid, into the RoI head.
  torch::Tensor forward(std::vector<torch::Tensor> pathways, const torch::Tensor& boxes) override {
    if (!roiHead_) return VideoNetImpl::forward(std::move(pathways), boxes);
    auto [x, thw] = tokens(pathways);
    x = norm(norm_, x);
    if (clsOn_) x = x.slice(1, 1);
    const int64_t B = x.size(0), C = x.size(2);
    x = x.transpose(1, 2).reshape({B, C, thw[0], thw[1], thw[2]});
    return roiHead_->forward({x}, boxes);
  }

 private:
  // The blocks' output tokens (B x N x C, the class token first when on) and their grid.
  std::pair<torch::Tensor, Vec3> tokens(const std::vector<torch::Tensor>& pathways) {
    // MODEL.ACT_CHECKPOINT: PySlowFast checkpoints the patch embedding and every block.
    auto x =
        actCheckpoint_
            ? runCheckpointed(*patchEmbed_,
                              [embed = patchEmbed_.ptr()](const std::vector<torch::Tensor>& in) {
                                return std::vector<torch::Tensor>{embed->forward(in[0])};
                              },
                              {pathways.at(0)})[0]
            : patchEmbed_(pathways.at(0));
    Vec3 thw = {x.size(2), x.size(3), x.size(4)};
    if (thw != patchDims_)
      throw std::invalid_argument("MViT was built for a " + shapeText(patchDims_) +
                                  " patch grid (DATA.NUM_FRAMES, " +
                                  "DATA.TRAIN_CROP_SIZE) but the clip gives " + shapeText(thw));
    const int64_t B = x.size(0);
    x = x.flatten(2).transpose(1, 2);
    if (clsOn_) x = torch::cat({clsToken_.expand({B, -1, -1}), x}, 1);
    if (absPos_) {
      if (sepPos_) {
        auto pos = posSpatial_.repeat({1, patchDims_[0], 1}) +
                   torch::repeat_interleave(posTemporal_, patchDims_[1] * patchDims_[2], 1);
        if (clsOn_) pos = torch::cat({posClass_, pos}, 1);
        x = x + pos;
      } else {
        x = x + pos_;
      }
    }
    if (dropRate_ > 0.0) x = torch::dropout(x, dropRate_, is_training());
    if (normStem_) x = norm(normStem_, x);
    for (auto& blk : blockList_) {
      if (!actCheckpoint_) {
        std::tie(x, thw) = blk->forward(x, thw);
        continue;
      }
      // The segment outlives this call (backward runs it again): it holds what it uses by value.
      // The token grid follows from the input's, the same in the recomputation.
      auto out = std::make_shared<Vec3>(thw);
      x = runCheckpointed(*blk,
                          [blk, thw, out](const std::vector<torch::Tensor>& in) {
                            auto [y, next] = blk->forward(in[0], thw);
                            *out = next;
                            return std::vector<torch::Tensor>{y};
                          },
                          {x})[0];
      thw = *out;
    }
    return {x, thw};
  }

  // PySlowFast's MViT init: truncated normal (0.02) for embeddings, linear and conv weights,
  // 0.02 for linear biases, layer norms at weight 1 / bias 0.02; the head scaled.
  void initialise(double headScale) {
    torch::NoGradGuard noGrad;
    for (auto* t : {&clsToken_, &pos_, &posSpatial_, &posTemporal_, &posClass_})
      if (t->defined()) truncNormal(*t, 0.02);
    for (const auto& m : modules(/*include_self=*/false)) {
      if (auto* fc = m->as<torch::nn::Linear>()) {
        truncNormal(fc->weight, 0.02);
        if (fc->bias.defined()) fc->bias.fill_(0.02);
      } else if (auto* conv = m->as<torch::nn::Conv3d>()) {
        truncNormal(conv->weight, 0.02);
      } else if (auto* ln = m->as<torch::nn::LayerNorm>()) {
        ln->weight.fill_(1.0);
        ln->bias.fill_(0.02);
      }
    }
    auto& fc = roiHead_ ? roiHead_->projection() : head_->projection();
    fc->weight.mul_(headScale);
    fc->bias.mul_(headScale);
  }

  bool clsOn_ = true, absPos_ = true, sepPos_ = false, meanPool_ = false, poolFirst_ = false;
  double dropRate_ = 0.0;
  Vec3 patchDims_;
  bool actCheckpoint_ = false;
  PatchEmbed patchEmbed_{nullptr};
  torch::Tensor clsToken_, pos_, posSpatial_, posTemporal_, posClass_;
  torch::nn::LayerNorm normStem_{nullptr}, norm_{nullptr};
  torch::nn::ModuleList blocks_{nullptr};
  std::vector<std::shared_ptr<MultiScaleBlockImpl>> blockList_;
  TransformerHead head_{nullptr};
  ResNetRoIHead roiHead_{nullptr};  // DETECTION.ENABLE
  std::vector<std::string> noDecay_;
};

}  // namespace

std::shared_ptr<VideoNetImpl> buildMViT(const config::Config& cfg) {
  return std::make_shared<MViTImpl>(cfg);
}

}  // namespace amp::models
