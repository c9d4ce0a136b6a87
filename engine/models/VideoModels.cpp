#include "models/VideoModels.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "config/Config.h"
#include "models/ActivationCheckpoint.h"
#include "models/ActivationTap.h"
#include "models/MViT.h"
#include "models/ResNetRoIHead.h"

namespace amp::models {
namespace {

using Kernels = std::vector<std::vector<std::vector<int64_t>>>;  // stage -> pathway -> basis

const std::map<std::string, Kernels>& temporalKernelBasis() {
  static const std::map<std::string, Kernels> k = {
      {"2d", {{{1}}, {{1}}, {{1}}, {{1}}, {{1}}}},
      {"c2d", {{{1}}, {{1}}, {{1}}, {{1}}, {{1}}}},
      {"i3d", {{{5}}, {{3}}, {{3, 1}}, {{3, 1}}, {{1, 3}}}},
      {"slow", {{{1}}, {{1}}, {{1}}, {{3}}, {{3}}}},
      {"slowfast", {{{1}, {5}}, {{1}, {3}}, {{1}, {3}}, {{3}, {3}}, {{3}, {3}}}},
      {"x3d", {{{5}}, {{3}}, {{3}}, {{3}}, {{3}}}},
  };
  return k;
}

const std::map<std::string, std::vector<std::vector<int64_t>>>& pool1() {
  static const std::map<std::string, std::vector<std::vector<int64_t>>> p = {
      {"2d", {{1, 1, 1}}},
      {"c2d", {{2, 1, 1}}},
      {"i3d", {{2, 1, 1}}},
      {"slow", {{1, 1, 1}}},
      {"slowfast", {{1, 1, 1}, {1, 1, 1}}},
      {"x3d", {{1, 1, 1}}}};
  return p;
}

std::vector<int64_t> stageDepths(int64_t depth) {
  if (depth == 18) return {2, 2, 2, 2};
  if (depth == 50) return {3, 4, 6, 3};
  if (depth == 101) return {3, 4, 23, 3};
  throw std::invalid_argument("RESNET.DEPTH: " + std::to_string(depth) +
                              " is not built; use 18, 50 or 101");
}

[[noreturn]] void unsupported(const std::string& key, const std::string& why) {
  throw std::invalid_argument(key + ": " + why);
}

// One pathway's stem: ResNetBasicStem (conv, bn, relu, max pool) or X3DStem (conv_xy, then
// the channel-wise temporal conv, bn, relu).
class PathwayStemImpl : public torch::nn::Module, public TapPoint {
 public:
  PathwayStemImpl(bool x3d, int64_t dimIn, int64_t dimOut, const std::vector<int64_t>& k,
                  const std::vector<int64_t>& pad) {
    if (x3d) {
      convXy_ = register_module(
          "conv_xy", conv3d(dimIn, dimOut, {1, k[1], k[2]}, {1, 2, 2}, {0, pad[1], pad[2]}));
      conv_ = register_module(
          "conv", conv3d(dimOut, dimOut, {k[0], 1, 1}, {1, 1, 1}, {pad[0], 0, 0}, dimOut));
    } else {
      conv_ = register_module("conv", conv3d(dimIn, dimOut, k, {1, 2, 2}, pad));
    }
    bn_ = register_module("bn", batchNorm(dimOut));
  }
  torch::Tensor forward(torch::Tensor x) {
    if (convXy_) x = run(convXy_, x);
    x = models::relu(bn_(run(conv_, x)));
    return ActivationTap::pass(*this,
                               convXy_ ? x : torch::max_pool3d(x, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}));
  }

 private:
  torch::nn::Conv3d convXy_{nullptr}, conv_{nullptr};
  BatchNorm3d bn_{nullptr};
};
TORCH_MODULE(PathwayStem);

// VideoModelStem: one stem per pathway, "pathway{p}_stem".
class StemImpl : public torch::nn::Module {
 public:
  StemImpl(bool x3d, const std::vector<int64_t>& dimIn, const std::vector<int64_t>& dimOut,
           const std::vector<std::vector<int64_t>>& kernel,
           const std::vector<std::vector<int64_t>>& padding) {
    for (size_t p = 0; p < dimOut.size(); ++p)
      stems_.push_back(
          register_module("pathway" + std::to_string(p) + "_stem",
                          PathwayStem(x3d, dimIn.at(p), dimOut[p], kernel[p], padding[p])));
  }
  std::vector<torch::Tensor> forward(std::vector<torch::Tensor> x) {
    for (size_t p = 0; p < x.size(); ++p) x[p] = stems_[p](x[p]);
    return x;
  }

 private:
  std::vector<PathwayStem> stems_;
};
TORCH_MODULE(Stem);

// MODEL.ACT_CHECKPOINT: PySlowFast's ResNet checkpoints s1 and s2, the two stages with by far the
// largest activations. Its SlowFast and X3D ignore the key; here they checkpoint the same two.
std::vector<torch::Tensor> checkpointedStem(Stem& stem, const std::vector<torch::Tensor>& x,
                                            bool on) {
  if (!on) return stem(x);
  return runCheckpointed(
      *stem,
      [stem = stem.ptr()](const std::vector<torch::Tensor>& in) { return stem->forward(in); }, x);
}
std::vector<torch::Tensor> checkpointedStage(ResStage& stage, const std::vector<torch::Tensor>& x,
                                             bool on) {
  if (!on) return stage(x);
  return runCheckpointed(
      *stage,
      [stage = stage.ptr()](const std::vector<torch::Tensor>& in) { return stage->forward(in); },
      x);
}

// FuseFastToSlow: time-strided convolution from the Fast to the Slow pathway.
class FuseImpl : public torch::nn::Module {
 public:
  FuseImpl(int64_t dimIn, int64_t ratio, int64_t kernel, int64_t alpha) {
    conv_ = register_module("conv_f2s", conv3d(dimIn, dimIn * ratio, {kernel, 1, 1}, {alpha, 1, 1},
                                               {kernel / 2, 0, 0}));
    bn_ = register_module("bn", batchNorm(dimIn * ratio));
  }
  std::vector<torch::Tensor> forward(std::vector<torch::Tensor> x) {
    auto fuse = models::relu(bn_(run(conv_, x[1])));
    return {torch::cat({x[0], fuse}, 1), x[1]};
  }

 private:
  torch::nn::Conv3d conv_{nullptr};
  BatchNorm3d bn_{nullptr};
};
TORCH_MODULE(Fuse);

// Head activation in evaluation; training returns logits.
torch::Tensor finishHead(torch::Tensor x, bool training, const std::string& act) {
  // x: N x T x H x W x classes
  if (!training) {
    if (act == "softmax")
      x = torch::softmax(x, 4);
    else if (act == "sigmoid")
      x = torch::sigmoid(x);
    x = x.mean({1, 2, 3});
  }
  return x.view({x.size(0), -1});
}

bool multigridShapes(const config::Config& c) {
  return c.getBool("MULTIGRID.SHORT_CYCLE") || c.getBool("MULTIGRID.LONG_CYCLE");
}

// ResNetBasicHead: average pool per pathway, concat, dropout, projection. `detach`
// (MODEL.DETACH_FINAL_FC): the projection's input leaves the graph after dropout, so only the
// projection learns (a linear probe), as PySlowFast's head.
class BasicHeadImpl : public torch::nn::Module {
 public:
  BasicHeadImpl(int64_t dimIn, int64_t classes, std::vector<std::vector<int64_t>> pools,
                double dropout, std::string act, bool detach)
      : pools_(std::move(pools)), dropout_(dropout), act_(std::move(act)), detach_(detach) {
    projection_ = register_module("projection", torch::nn::Linear(dimIn, classes));
  }
  torch::Tensor forward(std::vector<torch::Tensor> x) {
    for (size_t p = 0; p < x.size();
         ++p)  // no pool sizes: AdaptiveAvgPool3d((1, 1, 1)), as PySlowFast's pool_size None
      x[p] = pools_.empty() ? torch::adaptive_avg_pool3d(x[p], {1, 1, 1})
                            : torch::avg_pool3d(x[p], torch::IntArrayRef(pools_[p]), 1);
    auto y = torch::cat(x, 1).permute({0, 2, 3, 4, 1});
    if (dropout_ > 0) y = torch::dropout(y, dropout_, is_training());
    if (detach_) y = y.detach();
    return finishHead(run(projection_, y), is_training(), act_);
  }

 private:
  std::vector<std::vector<int64_t>> pools_;
  double dropout_;
  std::string act_;
  bool detach_;
  torch::nn::Linear projection_{nullptr};
};
TORCH_MODULE(BasicHead);

// X3DHead: conv_5 (1x1x1) + BN + ReLU, average pool, lin_5 (1x1x1) + ReLU, dropout, projection.
// PySlowFast gives it no detach_final_fc: MODEL.DETACH_FINAL_FC does nothing to X3D (the
// validator says so).
class X3DHeadImpl : public torch::nn::Module {
 public:
  X3DHeadImpl(int64_t dimIn, int64_t dimInner, int64_t dimOut, int64_t classes,
              std::vector<int64_t> pool, double dropout, std::string act, bool bnLin5)
      : pool_(std::move(pool)), dropout_(dropout), act_(std::move(act)) {
    conv5_ = register_module("conv_5", conv3d(dimIn, dimInner, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}));
    conv5Bn_ = register_module("conv_5_bn", batchNorm(dimInner));
    lin5_ = register_module("lin_5", conv3d(dimInner, dimOut, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}));
    if (bnLin5) lin5Bn_ = register_module("lin_5_bn", batchNorm(dimOut));
    projection_ = register_module("projection", torch::nn::Linear(dimOut, classes));
  }
  torch::Tensor forward(std::vector<torch::Tensor> x) {
    auto y = models::relu(conv5Bn_(run(conv5_, x[0])));
    y = pool_.empty() ? torch::adaptive_avg_pool3d(y, {1, 1, 1})
                      : torch::avg_pool3d(y, torch::IntArrayRef(pool_), 1);
    y = run(lin5_, y);
    if (lin5Bn_) y = lin5Bn_(y);
    y = models::relu(y).permute({0, 2, 3, 4, 1});
    if (dropout_ > 0) y = torch::dropout(y, dropout_, is_training());
    return finishHead(run(projection_, y), is_training(), act_);
  }

 private:
  std::vector<int64_t> pool_;
  double dropout_;
  std::string act_;
  torch::nn::Conv3d conv5_{nullptr}, lin5_{nullptr};
  BatchNorm3d conv5Bn_{nullptr}, lin5Bn_{nullptr};
  torch::nn::Linear projection_{nullptr};
};
TORCH_MODULE(X3DHead);

std::vector<std::vector<int64_t>> listOfLists(const config::Config& c, const char* key) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& row : c.get(key)) {
    std::vector<int64_t> r;
    for (const auto& v : row) r.push_back(v.get<int64_t>());
    out.push_back(r);
  }
  return out;
}

// Per stage and pathway: NONLOCAL.LOCATION (block indices) and NONLOCAL.POOL.
std::vector<std::vector<int64_t>> nonlocalInds(const config::Config& c, size_t stage,
                                               size_t pathways) {
  std::vector<std::vector<int64_t>> out(pathways);
  const auto& loc = c.get("NONLOCAL.LOCATION");
  if (stage < loc.size())
    for (size_t p = 0; p < pathways && p < loc[stage].size(); ++p)
      for (const auto& v : loc[stage][p]) out[p].push_back(v.get<int64_t>());
  return out;
}

// Per pathway: NONLOCAL.GROUP of the stage (1 where the row is short).
std::vector<int64_t> nonlocalGroup(const config::Config& c, size_t stage, size_t pathways) {
  std::vector<int64_t> out(pathways, 1);
  const auto& group = c.get("NONLOCAL.GROUP");
  if (stage < group.size())
    for (size_t p = 0; p < pathways && p < group[stage].size(); ++p) {
      out[p] = group[stage][p].get<int64_t>();
      if (out[p] < 1) unsupported("NONLOCAL.GROUP", "groups must be 1 or more");
    }
  return out;
}

std::vector<std::vector<int64_t>> nonlocalPool(const config::Config& c, size_t stage,
                                               size_t pathways) {
  std::vector<std::vector<int64_t>> out(pathways, {1, 1, 1});
  const auto& pool = c.get("NONLOCAL.POOL");
  if (stage < pool.size())
    for (size_t p = 0; p < pathways && p < pool[stage].size(); ++p) {
      out[p].clear();
      for (const auto& v : pool[stage][p]) out[p].push_back(v.get<int64_t>());
    }
  return out;
}

StageArgs stageBase(const config::Config& c, size_t stage, size_t pathways) {
  StageArgs a;
  const auto strides = listOfLists(c, "RESNET.SPATIAL_STRIDES");
  const auto dilations = listOfLists(c, "RESNET.SPATIAL_DILATIONS");
  const auto tempKernels = listOfLists(c, "RESNET.NUM_BLOCK_TEMP_KERNEL");
  for (const char* key :
       {"RESNET.SPATIAL_STRIDES", "RESNET.SPATIAL_DILATIONS", "RESNET.NUM_BLOCK_TEMP_KERNEL"}) {
    const auto rows = listOfLists(c, key);
    if (rows.size() != 4 || rows[stage].size() != pathways)
      unsupported(key,
                  "needs 4 stages of " + std::to_string(pathways) + " value(s) (one per pathway)");
  }
  a.stride = strides[stage];
  a.dilation = dilations[stage];
  a.num_block_temp_kernel = tempKernels[stage];
  a.nonlocal_inds = nonlocalInds(c, stage, pathways);
  a.nonlocal_pool = nonlocalPool(c, stage, pathways);
  a.nonlocal_softmax = c.getString("NONLOCAL.INSTANTIATION") == "softmax";
  a.nonlocal_group = nonlocalGroup(c, stage, pathways);
  const std::string trans = c.getString("RESNET.TRANS_FUNC");
  a.kind = trans == "x3d_transform"     ? TransformImpl::Kind::X3D
           : trans == "basic_transform" ? TransformImpl::Kind::Basic
                                        : TransformImpl::Kind::Bottleneck;
  a.stride_1x1 = c.getBool("RESNET.STRIDE_1X1");
  return a;
}

// ResNet (C2D, I3D, Slow) and SlowFast.
class ResNetNetImpl : public VideoNetImpl {
 public:
  explicit ResNetNetImpl(const config::Config& c) {
    const std::string arch = c.getString("MODEL.ARCH");
    slowfast_ = arch == "slowfast";
    const size_t paths = slowfast_ ? 2 : 1;
    const auto& kernels = temporalKernelBasis().at(arch);
    pool1_ = pool1().at(arch);
    const auto depths = stageDepths(c.getInt("RESNET.DEPTH"));
    const int64_t groups = c.getInt("RESNET.NUM_GROUPS"),
                  width = c.getInt("RESNET.WIDTH_PER_GROUP");
    const int64_t inner = groups * width;
    const int64_t betaInv = slowfast_ ? c.getInt("SLOWFAST.BETA_INV") : 1;
    const int64_t ratio = slowfast_ ? c.getInt("SLOWFAST.FUSION_CONV_CHANNEL_RATIO") : 1;
    const int64_t fuseKernel = slowfast_ ? c.getInt("SLOWFAST.FUSION_KERNEL_SZ") : 1;
    const int64_t alpha = slowfast_ ? c.getInt("SLOWFAST.ALPHA") : 1;
    const int64_t outDimRatio = betaInv / ratio;
    const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");

    auto perPath = [&](int64_t slow) {
      return slowfast_ ? std::vector<int64_t>{slow, slow / betaInv} : std::vector<int64_t>{slow};
    };
    std::vector<std::vector<int64_t>> stemKernel, stemPad;
    for (size_t p = 0; p < paths; ++p) {
      const int64_t t = kernels[0][p][0];
      stemKernel.push_back({t, 7, 7});
      stemPad.push_back({t / 2, 3, 3});
    }
    s1_ = register_module("s1", Stem(false, channels, perPath(width), stemKernel, stemPad));
    if (slowfast_)
      fuse_.push_back(register_module("s1_fuse", Fuse(width / betaInv, ratio, fuseKernel, alpha)));
    const int64_t mult[4] = {1, 2, 4, 8};
    int64_t prevOut = width;
    for (size_t s = 0; s < 4; ++s) {
      StageArgs a = stageBase(c, s, paths);
      // RESNET.INPLACE_RELU reaches ResNet's stages only, as in PySlowFast; its SlowFast, X3D
      // and stems keep nn.ReLU's in-place default.
      a.inplace_relu = slowfast_ || c.getBool("RESNET.INPLACE_RELU");
      const int64_t out = width * 4 * mult[s];
      a.dim_in = slowfast_
                     ? std::vector<int64_t>{prevOut + prevOut / outDimRatio, prevOut / betaInv}
                     : std::vector<int64_t>{prevOut};
      a.dim_out = perPath(out);
      a.dim_inner = perPath(inner * mult[s]);
      a.temp_kernel_basis = kernels[s + 1];
      a.num_blocks = std::vector<int64_t>(paths, depths[s]);
      a.num_groups = std::vector<int64_t>(paths, groups);
      stages_.push_back(register_module("s" + std::to_string(s + 2), ResStage(a, finals_)));
      if (slowfast_ && s < 3)
        fuse_.push_back(register_module("s" + std::to_string(s + 2) + "_fuse",
                                        Fuse(out / betaInv, ratio, fuseKernel, alpha)));
      prevOut = out;
    }
    const int64_t frames = c.getInt("DATA.NUM_FRAMES"), crop = c.getInt("DATA.TRAIN_CROP_SIZE");
    std::vector<std::vector<int64_t>> pools;
    // Multigrid trains at several shapes: the head pools globally (PySlowFast does so with short
    // cycles; with long cycles alone it rebuilds the head per shape, the same average where the
    // feature map divides evenly).
    for (size_t p = 0; p < paths && !multigridShapes(c); ++p) {
      const int64_t t = (slowfast_ && p == 0 ? frames / alpha : frames) / pool1_[p][0];
      pools.push_back({t, crop / 32 / pool1_[p][1], crop / 32 / pool1_[p][2]});
    }
    const int64_t headIn = slowfast_ ? width * 32 + width * 32 / betaInv : width * 32;
    actCheckpoint_ = c.getBool("MODEL.ACT_CHECKPOINT");
    if (c.getBool("DETECTION.ENABLE"))
      roiHead_ = register_module("head", ResNetRoIHead(roiHeadArgs(c, perPath(width * 32))));
    else
      head_ = register_module(
          "head",
          BasicHead(headIn, c.getInt("MODEL.NUM_CLASSES"), pools, c.getFloat("MODEL.DROPOUT_RATE"),
                    c.getString("MODEL.HEAD_ACT"), c.getBool("MODEL.DETACH_FINAL_FC")));
    initWeights(*this, c.getFloat("MODEL.FC_INIT_STD"), c.getBool("RESNET.ZERO_INIT_FINAL_BN"),
                finals_, c.getBool("RESNET.ZERO_INIT_FINAL_CONV"));
  }

  torch::Tensor forward(std::vector<torch::Tensor> x) override {
    if (roiHead_)
      throw std::logic_error("DETECTION.ENABLE: this model scores boxes; call forward(x, boxes)");
    return head_(backbone(std::move(x)));
  }

  torch::Tensor forward(std::vector<torch::Tensor> x, const torch::Tensor& boxes) override {
    if (!roiHead_) return VideoNetImpl::forward(std::move(x), boxes);
    return roiHead_(backbone(std::move(x)), boxes);
  }

  bool detection() const override { return !roiHead_.is_empty(); }

 private:
  // PySlowFast's detection head arguments (video_model_builder.py): the temporal pool takes the
  // pathway's frames to one, boxes are pooled at ROI_XFORM_RESOLUTION from features at
  // 1 / SPATIAL_SCALE_FACTOR of the input (AVA's configs keep res5 at stride 16 by a stride of 1
  // and a dilation of 2 there, RESNET.SPATIAL_STRIDES / SPATIAL_DILATIONS).
  RoIHeadArgs roiHeadArgs(const config::Config& c, std::vector<int64_t> dimIn) const {
    RoIHeadArgs a;
    a.dim_in = std::move(dimIn);
    a.num_classes = c.getInt("MODEL.NUM_CLASSES");
    const int64_t frames = c.getInt("DATA.NUM_FRAMES");
    const int64_t alpha = slowfast_ ? c.getInt("SLOWFAST.ALPHA") : 1;
    const int64_t resolution = c.getInt("DETECTION.ROI_XFORM_RESOLUTION");
    for (size_t p = 0; p < a.dim_in.size(); ++p) {
      a.pool_size.push_back({(slowfast_ && p == 0 ? frames / alpha : frames) / pool1_[p][0], 1, 1});
      a.resolution.push_back({resolution, resolution});
      a.scale_factor.push_back(static_cast<double>(c.getInt("DETECTION.SPATIAL_SCALE_FACTOR")));
    }
    a.dropout_rate = c.getFloat("MODEL.DROPOUT_RATE");
    a.act = c.getString("MODEL.HEAD_ACT");
    a.aligned = c.getBool("DETECTION.ALIGNED");
    a.detach_final_fc = c.getBool("MODEL.DETACH_FINAL_FC");
    return a;
  }

  std::vector<torch::Tensor> backbone(std::vector<torch::Tensor> x) {
    x = checkpointedStem(s1_, x, actCheckpoint_);
    if (slowfast_) x = fuse_[0](x);
    for (size_t s = 0; s < 4; ++s) {
      x = s == 0 ? checkpointedStage(stages_[0], x, actCheckpoint_) : stages_[s](x);
      if (s == 0)
        for (size_t p = 0; p < x.size(); ++p)
          if (pool1_[p] != std::vector<int64_t>{1, 1, 1})
            x[p] = torch::max_pool3d(x[p], torch::IntArrayRef(pool1_[p]),
                                     torch::IntArrayRef(pool1_[p]));
      if (slowfast_ && s < 3) x = fuse_[s + 1](x);
    }
    return x;
  }

  bool slowfast_ = false;
  bool actCheckpoint_ = false;
  std::vector<std::vector<int64_t>> pool1_;
  FinalBnRegistry finals_;
  Stem s1_{nullptr};
  std::vector<Fuse> fuse_;
  std::vector<ResStage> stages_;
  BasicHead head_{nullptr};         // classification
  ResNetRoIHead roiHead_{nullptr};  // DETECTION.ENABLE
};

class X3DNetImpl : public VideoNetImpl {
 public:
  explicit X3DNetImpl(const config::Config& c) {
    const double wMul = c.getFloat("X3D.WIDTH_FACTOR"), dMul = c.getFloat("X3D.DEPTH_FACTOR");
    const int64_t dimC1 = c.getInt("X3D.DIM_C1");
    const int64_t res2 =
        c.getBool("X3D.SCALE_RES2") ? roundWidth(static_cast<double>(dimC1), 2.0, 1, 8) : dimC1;
    const int64_t res3 = roundWidth(static_cast<double>(res2), 2.0, 1, 8);
    const int64_t res4 = roundWidth(static_cast<double>(res3), 2.0, 1, 8);
    const int64_t res5 = roundWidth(static_cast<double>(res4), 2.0, 1, 8);
    const int64_t blocks[4][2] = {{1, res2}, {2, res3}, {5, res4}, {3, res5}};
    const auto& kernels = temporalKernelBasis().at("x3d");
    const int64_t dimRes1 = roundWidth(static_cast<double>(dimC1), wMul);
    const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
    const int64_t t0 = kernels[0][0][0];
    s1_ = register_module("s1", Stem(true, channels, std::vector<int64_t>{dimRes1},
                                     std::vector<std::vector<int64_t>>{{t0, 3, 3}},
                                     std::vector<std::vector<int64_t>>{{t0 / 2, 1, 1}}));
    int64_t dimIn = dimRes1, dimOut = dimRes1, dimInner = 0;
    for (size_t s = 0; s < 4; ++s) {
      StageArgs a = stageBase(c, s, 1);
      dimOut = roundWidth(static_cast<double>(blocks[s][1]), wMul);
      dimInner =
          static_cast<int64_t>(c.getFloat("X3D.BOTTLENECK_FACTOR") * static_cast<double>(dimOut));
      const int64_t reps =
          dMul == 0.0 ? blocks[s][0]
                      : static_cast<int64_t>(std::ceil(dMul * static_cast<double>(blocks[s][0])));
      a.dim_in = {dimIn};
      a.dim_out = {dimOut};
      a.dim_inner = {dimInner};
      a.temp_kernel_basis = kernels[1];
      a.stride = {2};
      a.num_blocks = {reps};
      a.num_groups = {c.getBool("X3D.CHANNELWISE_3x3x3") ? dimInner
                                                         : c.getInt("RESNET.NUM_GROUPS")};
      a.num_block_temp_kernel = {reps};
      a.nonlocal_inds = nonlocalInds(c, 0, 1);
      a.nonlocal_pool = nonlocalPool(c, 0, 1);
      a.nonlocal_group = nonlocalGroup(c, 0, 1);  // PySlowFast's X3D reads NONLOCAL.GROUP[0]
      stages_.push_back(register_module("s" + std::to_string(s + 2), ResStage(a, finals_)));
      dimIn = dimOut;
    }
    const int64_t spatial = static_cast<int64_t>(
        std::ceil(static_cast<double>(c.getInt("DATA.TRAIN_CROP_SIZE")) / 32.0));
    head_ = register_module(
        "head", X3DHead(dimOut, dimInner, c.getInt("X3D.DIM_C5"), c.getInt("MODEL.NUM_CLASSES"),
                        multigridShapes(c)
                            ? std::vector<int64_t>{}
                            : std::vector<int64_t>{c.getInt("DATA.NUM_FRAMES"), spatial, spatial},
                        c.getFloat("MODEL.DROPOUT_RATE"), c.getString("MODEL.HEAD_ACT"),
                        c.getBool("X3D.BN_LIN5")));
    actCheckpoint_ = c.getBool("MODEL.ACT_CHECKPOINT");
    initWeights(*this, c.getFloat("MODEL.FC_INIT_STD"), c.getBool("RESNET.ZERO_INIT_FINAL_BN"),
                finals_, c.getBool("RESNET.ZERO_INIT_FINAL_CONV"));
  }

  torch::Tensor forward(std::vector<torch::Tensor> x) override {
    x = checkpointedStem(s1_, x, actCheckpoint_);
    for (size_t s = 0; s < stages_.size(); ++s)
      x = s == 0 ? checkpointedStage(stages_[0], x, actCheckpoint_) : stages_[s](x);
    return head_(x);
  }

 private:
  bool actCheckpoint_ = false;
  FinalBnRegistry finals_;
  Stem s1_{nullptr};
  std::vector<ResStage> stages_;
  X3DHead head_{nullptr};
};

}  // namespace

namespace {
std::shared_ptr<VideoNetImpl> buildNet(const config::Config& c) {
  const std::string name = c.getString("MODEL.MODEL_NAME");
  const std::string arch = c.getString("MODEL.ARCH");
  // PySlowFast's X3D builds no detection head; its MViT's is a ResNetRoIHead on the tokens.
  if (c.getBool("DETECTION.ENABLE") && name != "SlowFast" && name != "ResNet" && name != "MViT")
    unsupported("DETECTION.ENABLE",
                "the detection head is built for ResNet, SlowFast and MViT only (PySlowFast's "
                "X3D has none)");
  if (name == "X3D") {
    if (arch != "x3d")
      unsupported("MODEL.ARCH", "X3D is built with MODEL.ARCH x3d, not '" + arch + "'");
    return std::make_shared<X3DNetImpl>(c);
  }
  if (name == "SlowFast" || name == "ResNet") {
    if (!temporalKernelBasis().count(arch) || arch == "x3d")
      unsupported("MODEL.ARCH",
                  "'" + arch + "' is not built for " + name + "; use c2d, i3d, slow or slowfast");
    if ((name == "SlowFast") != (arch == "slowfast"))
      unsupported("MODEL.MODEL_NAME", name + " does not go with MODEL.ARCH '" + arch + "'");
    return std::make_shared<ResNetNetImpl>(c);
  }
  if (name == "MViT") {
    if (arch != "mvit")
      unsupported("MODEL.ARCH", "MViT is built with MODEL.ARCH mvit, not '" + arch + "'");
    return buildMViT(c);
  }
  unsupported("MODEL.MODEL_NAME",
              "'" + name + "' is not built; available: ResNet, SlowFast, X3D, MViT");
}
}  // namespace

std::shared_ptr<VideoNetImpl> buildVideoNet(const config::Config& c) {
  auto net = buildNet(c);
  if (c.getString("BN.NORM_TYPE") == "sub_batchnorm")
    setBatchNormSplits(*net, c.getInt("BN.NUM_SPLITS"));
  return net;
}

}  // namespace amp::models
