// Grad-CAM (vis/GradCamMaps.h, vis/GradCam.h, models/ActivationTap.h): a map computed by hand
// through a known layer, the trilinear upsampling, the layers of the real models (X3D, SlowFast's
// two pathways, MViT's tokens), mixed precision, and every refusal with its message.
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "config/Config.h"
#include "models/ActivationTap.h"
#include "models/VideoModels.h"
#include "support/Configs.h"
#include "train/Checkpoint.h"
#include "vis/GradCam.h"
#include "vis/GradCamMaps.h"

using namespace amp;

namespace {

// The layer Grad-CAM watches in the hand-built model: a 1x1x1 convolution.
class TappedConvImpl : public torch::nn::Module, public models::TapPoint {
 public:
  TappedConvImpl() {
    conv_ =
        register_module("conv", torch::nn::Conv3d(torch::nn::Conv3dOptions(2, 2, 1).bias(false)));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return models::ActivationTap::pass(*this, conv_(x));
  }
  torch::nn::Conv3d conv_{nullptr};
};
TORCH_MODULE(TappedConv);

// features (identity 1x1x1 conv) -> each frame t weighted by r_t -> mean over T x H x W ->
// linear without bias. The score of class k is sum_c V_kc mean(r_t A_c), so its gradient at
// A_c(t, h, w) is V_kc r_t / (T H W): known in closed form, and different per frame.
class HandNetImpl : public models::VideoNetImpl {
 public:
  HandNetImpl() {
    features_ = register_module("features", TappedConv());
    linear_ =
        register_module("head", torch::nn::Linear(torch::nn::LinearOptions(2, 3).bias(false)));
    torch::NoGradGuard off;
    features_->conv_->weight.copy_(torch::eye(2).reshape({2, 2, 1, 1, 1}));
    linear_->weight.copy_(torch::tensor({{0.0f, 1.0f}, {1.0f, -1.0f}, {-1.0f, 0.0f}}));
  }
  torch::Tensor forward(std::vector<torch::Tensor> x) override {
    const auto a = features_(x[0]);
    const auto r = torch::tensor({1.0f, 3.0f}).reshape({1, 1, 2, 1, 1});
    return linear_((a * r).mean({2, 3, 4}));
  }
  TappedConv features_{nullptr};
  torch::nn::Linear linear_{nullptr};
};

// The input: 2 channels x 2 frames x 2 x 2.
torch::Tensor handInput() {
  const std::vector<float> values = {1, 2, 3, 4, 2, 0, 1, 1,   // channel 0: frame 0, frame 1
                                     0, 0, 1, 5, 0, 1, 0, 0};  // channel 1
  return torch::tensor(values).reshape({1, 2, 2, 2, 2});
}

void compareMap(const torch::Tensor& map, const std::vector<float>& expected) {
  QCOMPARE(map.numel(), static_cast<int64_t>(expected.size()));
  const auto flat = map.reshape({-1});
  for (size_t i = 0; i < expected.size(); ++i)
    QVERIFY2(std::abs(flat[static_cast<int64_t>(i)].item<float>() - expected[i]) < 1e-5f,
             qPrintable(QString("value %1: %2, expected %3")
                            .arg(i)
                            .arg(flat[static_cast<int64_t>(i)].item<float>())
                            .arg(expected[i])));
}

config::Config demoConfig(std::vector<std::string> extra = {}) {
  return testsupport::loadConfigOrDie(
      testsupport::repoConfig("demo/DEMO_X3D_TINY.yaml"),
      testsupport::joined({"NUM_GPUS", "0", "X3D.DIM_C5", "32"}, extra));
}

config::Config tinySlowFast() {
  return testsupport::loadConfigOrDie(
      testsupport::repoConfig("Kinetics/SLOWFAST_8x8_R50.yaml"),
      {"NUM_GPUS", "0", "RESNET.DEPTH", "18", "RESNET.TRANS_FUNC", "basic_transform",
       "RESNET.WIDTH_PER_GROUP", "16", "DATA.NUM_FRAMES", "8", "DATA.TRAIN_CROP_SIZE", "64",
       "DATA.TEST_CROP_SIZE", "64", "MODEL.NUM_CLASSES", "5", "TRAIN.MIXED_PRECISION", "False"});
}

// A clip of the config's shape made by hand: random normalised input, label 2.
data::PreviewClip handClip(const config::Config& c, bool slowfast) {
  data::PreviewClip clip;
  clip.frames = static_cast<int>(c.getInt("DATA.NUM_FRAMES"));
  clip.height = clip.width = clip.crop = static_cast<int>(c.getInt("DATA.TRAIN_CROP_SIZE"));
  clip.label = 2;
  torch::manual_seed(3);
  const auto fast = torch::randn({3, clip.frames, clip.height, clip.width});
  clip.input_fast.assign(fast.data_ptr<float>(), fast.data_ptr<float>() + fast.numel());
  if (slowfast) {
    clip.slow_frames = clip.frames / static_cast<int>(c.getInt("SLOWFAST.ALPHA"));
    const auto slow =
        fast.index_select(1, torch::arange(0, clip.frames, clip.frames / clip.slow_frames))
            .contiguous();
    clip.input_slow.assign(slow.data_ptr<float>(), slow.data_ptr<float>() + slow.numel());
  }
  return clip;
}

// A checkpoint of a freshly built model of `c` in `dir`.
std::string saveFresh(const config::Config& c, const QString& dir) {
  torch::manual_seed(0);  // the same weights each run
  auto net = models::buildVideoNet(c);
  train::CheckpointInfo info;
  info.epochs_done = 1;
  return train::saveCheckpoint(dir.toStdString(), *net, nullptr, nullptr, info);
}

}  // namespace

class TestGradCam : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { torch::set_num_threads(1); }

  // The map of the hand-built model against the one computed by hand (the comment above
  // HandNetImpl): class 1 (V = 1, -1) weighs frame 0 by 1/8 and frame 1 by 3/8.
  void handComputedMap() {
    HandNetImpl net;
    net.eval();
    const std::vector<const torch::nn::Module*> layer{net.features_.ptr().get()};
    // s_t = x_0 - x_1: frame 0 [[1, 2], [2, -1]], frame 1 [[2, -1], [1, 1]]; the map is
    // ReLU(r_t / 8 x s_t): [[.125, .25], [.25, 0]] and [[.75, 0], [.375, .375]], over its max .75.
    const std::vector<float> class1 = {1.0f / 6, 1.0f / 3, 1.0f / 3, 0, 1, 0, 0.5f, 0.5f};
    {
      models::ActivationTap tap(layer);
      const auto maps = vis::gradCamMaps(net, tap, {handInput()}, {1});
      QCOMPARE(maps.targets, std::vector<std::int64_t>{1});
      compareMap(maps.maps[0], class1);
      QCOMPARE(maps.scores.size(1), 3);
      QVERIFY(std::abs(maps.scores[0][1].item<float>() - 1.625f) < 1e-5f);  // 2.75 - 1.125
    }
    {  // -1: the top-1 class, which is class 1 (scores 1.125, 1.625, -2.75)
      models::ActivationTap tap(layer);
      const auto maps = vis::gradCamMaps(net, tap, {handInput()}, {-1});
      QCOMPARE(maps.targets, std::vector<std::int64_t>{1});
      compareMap(maps.maps[0], class1);
    }
    {  // class 0 (V = 0, 1): x_1 weighed by r_t / 8; max .625
      models::ActivationTap tap(layer);
      const auto maps = vis::gradCamMaps(net, tap, {handInput()}, {0});
      compareMap(maps.maps[0], {0, 0, 0.2f, 1, 0, 0.6f, 0, 0});
    }
    {  // class 2 (V = -1, 0): no positive evidence anywhere, a map of zeros (no division by 0)
      models::ActivationTap tap(layer);
      const auto maps = vis::gradCamMaps(net, tap, {handInput()}, {2});
      compareMap(maps.maps[0], std::vector<float>(8, 0.0f));
    }
    {  // a class the model does not have
      models::ActivationTap tap(layer);
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                               vis::gradCamMaps(net, tap, {handInput()}, {3}));
    }
  }

  // Trilinear upsampling (align_corners False): two frames [1, 3] become four frames
  // [1, 1.5, 2.5, 3], scaled to [0, .25, .75, 1]; one row and column become two each.
  // A map whose range is tiny (a confident prediction's) still spans [0, 1]; a zero map stays 0.
  void tinyRangesScaleToOne() {
    const auto a = torch::tensor({1e-9f, 3e-9f}).reshape({1, 1, 2, 1, 1});
    compareMap(vis::localizationMap(a, torch::ones_like(a), 2, 1, 1), {0, 1});
    compareMap(vis::localizationMap(torch::zeros_like(a), torch::ones_like(a), 2, 1, 1), {0, 0});
  }

  void upsampledToTheInput() {
    const auto a = torch::tensor({1.0f, 3.0f}).reshape({1, 1, 2, 1, 1});
    const auto map = vis::localizationMap(a, torch::ones_like(a), 4, 2, 2);
    QCOMPARE(map.sizes().vec(), (std::vector<int64_t>{1, 4, 2, 2}));
    compareMap(map, {0, 0, 0, 0, .25f, .25f, .25f, .25f, .75f, .75f, .75f, .75f, 1, 1, 1, 1});
    // bfloat16 activations and gradients (an autocast forward): computed in float32
    const auto m16 = vis::localizationMap(a.to(torch::kBFloat16),
                                          torch::ones_like(a).to(torch::kBFloat16), 4, 1, 1);
    QCOMPARE(m16.scalar_type(), torch::kFloat);
    compareMap(m16, {0, .25f, .75f, 1});
  }

  // The models' layers by PySlowFast's names; a name that is not there, or a module whose output
  // is not watched, is refused with the list of valid names.
  void layerLookup() {
    auto net = models::buildVideoNet(demoConfig());
    const auto names = models::tapLayerNames(*net);
    QVERIFY(std::find(names.begin(), names.end(), "s1/pathway0_stem") != names.end());
    QVERIFY(std::find(names.begin(), names.end(), "s5/pathway0_res2") != names.end());
    QCOMPARE(names.back(), std::string("s5/pathway0_res2"));
    std::string error;
    QVERIFY(models::findTapLayer(*net, "s5/pathway0_res2", &error));
    QVERIFY(models::findTapLayer(*net, "s5.pathway0_res2", &error));  // torch's separator
    QVERIFY(!models::findTapLayer(*net, "s9/pathway0_res2", &error));
    QVERIFY2(error.find("'s9/pathway0_res2' is not a layer Grad-CAM can use") == 0 &&
                 error.find("s4/pathway0_res4") != std::string::npos,
             error.c_str());
    QVERIFY(!models::findTapLayer(*net, "s5/pathway0_res2/branch2/a", &error));  // a convolution
    QVERIFY2(error.find("s5/pathway0_res2/branch2/a") != std::string::npos, error.c_str());
  }

  // SlowFast: one layer per pathway, each map on its own pathway's frames.
  void slowFastBothPathways() {
    const auto c = tinySlowFast();
    auto net = models::buildVideoNet(c);
    net->eval();
    std::string error;
    const auto* slow = models::findTapLayer(*net, "s5/pathway0_res1", &error);
    const auto* fast = models::findTapLayer(*net, "s5/pathway1_res1", &error);
    QVERIFY2(slow && fast, error.c_str());
    torch::manual_seed(0);
    const auto fastIn = torch::randn({1, 3, 8, 64, 64});
    const auto slowIn = fastIn.index_select(2, torch::arange(0, 8, 4));
    models::ActivationTap tap({slow, fast});
    const auto maps = vis::gradCamMaps(*net, tap, {slowIn, fastIn}, {-1});
    QCOMPARE(maps.maps.size(), size_t{2});
    QCOMPARE(maps.maps[0].sizes().vec(), (std::vector<int64_t>{1, 2, 64, 64}));
    QCOMPARE(maps.maps[1].sizes().vec(), (std::vector<int64_t>{1, 8, 64, 64}));
    for (const auto& m : maps.maps) {
      QVERIFY(m.min().item<float>() >= 0.0f);
      QVERIFY(m.max().item<float>() <= 1.0f);
    }
  }

  // MViT's blocks put out tokens: the map is on their T x H x W grid, the class token left out.
  void mvitTokensOnTheirGrid() {
    const auto c = testsupport::loadConfigOrDie(
        testsupport::repoConfig("Kinetics/MVITv2_S_16x4.yaml"), testsupport::tinyMViT());
    auto net = models::buildVideoNet(c);
    net->eval();
    std::string error;
    const auto* block = models::findTapLayer(*net, "blocks/1", &error);
    QVERIFY2(block, error.c_str());
    torch::manual_seed(0);
    models::ActivationTap tap({block});
    const auto maps = vis::gradCamMaps(*net, tap, {torch::randn({1, 3, 4, 32, 32})}, {0});
    QCOMPARE(maps.maps[0].sizes().vec(), (std::vector<int64_t>{1, 4, 32, 32}));
    QVERIFY(tap.output(0).grid.size() == 3);
    QVERIFY(maps.maps[0].max().item<float>() <= 1.0f);
  }

  // The front ends' way in: a checkpoint, the default layers, the demo config's bfloat16
  // autocast, and each refusal with the key, option or file it is about.
  void gradCamFromACheckpoint() {
    QTemporaryDir dir;
    const auto c = demoConfig();
    vis::GradCamOptions o;
    o.checkpoint = saveFresh(c, dir.path());
    std::string error;
    auto cam = vis::GradCam::open(c, o, &error);
    QVERIFY2(cam, error.c_str());
    QCOMPARE(cam->layers(), std::vector<std::string>{"s5/pathway0_res2"});  // the last block
    QCOMPARE(cam->classes(), 8);
    const auto clip = handClip(c, false);
    vis::GradCamResult r;
    QVERIFY2(cam->run(clip, r, &error), error.c_str());
    QCOMPARE(r.precision, std::string("bf16"));  // TRAIN.MIXED_PRECISION on the CPU
    QVERIFY(r.target_is_prediction);
    // the top-1 class (an untrained model ties classes: the first of them, in both)
    QCOMPARE(r.target_class, r.top.at(0).first);
    QCOMPARE(r.target_score, r.top.at(0).second);
    QCOMPARE(r.maps.size(), size_t{1});
    QCOMPARE(r.maps[0].values.size(), size_t{8 * 64 * 64});
    const auto [low, high] = std::minmax_element(r.maps[0].values.begin(), r.maps[0].values.end());
    // exactly [0, 1], though an untrained model's map spans about 7e-5 before scaling (PySlowFast's
    // + 1e-6 in the divisor would stop its top at 0.986)
    QVERIFY2(*low == 0.0f && (*high == 1.0f || r.maps[0].flat),
             qPrintable(QString("map from %1 to %2").arg(*low).arg(*high)));
    // The same in float32: the bfloat16 forward's map stays close to it.
    auto fp32 = vis::GradCam::open(demoConfig({"TRAIN.MIXED_PRECISION", "False"}), o, &error);
    vis::GradCamResult r32;
    QVERIFY2(fp32 && fp32->run(clip, r32, &error), error.c_str());
    QCOMPARE(r32.precision, std::string("fp32"));
    double diff = 0;
    for (size_t i = 0; i < r32.maps[0].values.size(); ++i)
      diff += std::abs(r32.maps[0].values[i] - r.maps[0].values[i]);
    diff /= static_cast<double>(r32.maps[0].values.size());
    QVERIFY2(diff < 0.1, qPrintable(QString("mean |bf16 - fp32| %1").arg(diff)));
    // the true label (USE_TRUE_LABEL) and a chosen class
    auto byLabel = vis::GradCam::open(
        demoConfig({"TENSORBOARD.MODEL_VIS.GRAD_CAM.USE_TRUE_LABEL", "True"}), o, &error);
    QVERIFY2(byLabel && byLabel->run(clip, r, &error), error.c_str());
    QVERIFY(r.target_is_label && !r.target_is_prediction);
    QCOMPARE(r.target_class, 2);
    o.target_class = 5;
    auto chosen = vis::GradCam::open(c, o, &error);
    QVERIFY2(chosen && chosen->run(clip, r, &error), error.c_str());
    QCOMPARE(r.target_class, 5);
    QVERIFY(!r.target_is_label && !r.target_is_prediction);

    o.target_class = 8;  // out of range
    QVERIFY(!vis::GradCam::open(c, o, &error));
    QVERIFY2(error.find("--target-class 8: the model has 8 classes (0 .. 7") == 0, error.c_str());
    o.target_class = -1;
    o.layers = {"s5/pathway0_res9"};
    o.layers_source = "--layer";
    QVERIFY(!vis::GradCam::open(c, o, &error));
    QVERIFY2(error.find("--layer: 's5/pathway0_res9' is not a layer") == 0 &&
                 error.find("s5/pathway0_res2") != std::string::npos,
             error.c_str());
    o.layers = {};
    QVERIFY(!vis::GradCam::open(
        demoConfig({"TENSORBOARD.MODEL_VIS.GRAD_CAM.LAYER_LIST", "['s5/pathway0_res2', 's4']"}), o,
        &error));
    QVERIFY2(
        error.find("TENSORBOARD.MODEL_VIS.GRAD_CAM.LAYER_LIST: 2 layer(s) for 1 pathway(s)") == 0,
        error.c_str());
    // a checkpoint of another model: every weight must fit
    QVERIFY(!vis::GradCam::open(demoConfig({"X3D.DIM_C5", "64"}), o, &error));
    QVERIFY2(error.find("lin_5") != std::string::npos, error.c_str());
    o.checkpoint = "";
    QVERIFY(!vis::GradCam::open(demoConfig({"OUTPUT_DIR", dir.path().toStdString() + "/none"}), o,
                                &error));
    QVERIFY2(error.find("--checkpoint: no checkpoint given") == 0, error.c_str());
  }

  // Grouping a two-pathway model's layers for a menu: blocks both pathways have.
  void layerChoicesPairPathways() {
    const auto choices =
        vis::layerChoices({"s1/pathway0_stem", "s1/pathway1_stem", "s5/pathway0_res1",
                           "s5/pathway1_res1", "s4/pathway0_nonlocal1"},
                          2);
    QCOMPARE(choices.size(), size_t{2});
    QCOMPARE(choices[1], (std::vector<std::string>{"s5/pathway0_res1", "s5/pathway1_res1"}));
    QCOMPARE(vis::layerChoices({"blocks/0", "blocks/1"}, 1).size(), size_t{2});
  }
};

QTEST_GUILESS_MAIN(TestGradCam)
#include "tst_gradcam.moc"
