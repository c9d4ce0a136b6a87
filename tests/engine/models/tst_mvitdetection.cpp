// MViT with DETECTION.ENABLE: PySlowFast's MViT puts a ResNetRoIHead on the normed token grid
// (video_model_builder.py, MViT.__init__ and forward; head_helper.py, ResNetRoIHead). Its
// state-dict names and shapes, the tokens it pools, forward and backward with boxes, autocast,
// and what stays refused (reversible MViT, X3D).
#include <QtTest>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "amp/AutocastGuard.h"
#include "config/Refusals.h"
#include "models/ModelFactory.h"
#include "models/VideoModels.h"
#include "support/Configs.h"

using namespace amp;

namespace {

// The suites' tiny MViTv2 (2 blocks of width 8, 4 x 32 x 32 clips: a 2 x 4 x 4 token grid at
// stride 8 after the query pooling) with the RoI head as PySlowFast's AVA configs set it.
config::Config tinyDetection(const std::string& name = "Kinetics/MVITv2_S_16x4.yaml",
                             const std::vector<std::string>& extra = {}) {
  return testsupport::loadConfigOrDie(
      testsupport::repoConfig(name),
      testsupport::joined(
          testsupport::joined(testsupport::tinyMViT(),
                              {"DETECTION.ENABLE", "True", "MODEL.NUM_CLASSES", "5",
                               "MODEL.HEAD_ACT", "sigmoid", "DETECTION.SPATIAL_SCALE_FACTOR", "8"}),
          extra));
}

torch::Tensor clips(const config::Config& c, int64_t n) {
  const int64_t crop = c.getInt("DATA.TRAIN_CROP_SIZE");
  return torch::randn({n, 3, c.getInt("DATA.NUM_FRAMES"), crop, crop});
}

// Boxes in the 32-pixel crop: two in clip 1, one in clip 0, one over the border.
torch::Tensor someBoxes() {
  return torch::tensor({{1.0F, 0.0F, 0.0F, 32.0F, 32.0F},
                        {0.0F, 3.0F, 2.0F, 20.0F, 30.0F},
                        {1.0F, 15.0F, 5.0F, 25.0F, 15.0F},
                        {0.0F, 24.0F, -4.0F, 40.0F, 10.0F}});
}

bool inUnitInterval(const torch::Tensor& t) {
  return t.ge(0).all().item<bool>() && t.le(1).all().item<bool>() &&
         torch::isfinite(t).all().item<bool>();
}

}  // namespace

class TestMViTDetection : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    torch::manual_seed(0);
    torch::set_num_threads(1);
  }

  // PySlowFast ships no configs/AVA MViT, so this is MViTv2-S 16x4 (Kinetics) with
  // DETECTION.ENABLE True and AVA's 80 classes. Derived by reading video_model_builder.py and
  // head_helper.py, not dumped from PySlowFast: MViT keeps `norm` and builds
  // ResNetRoIHead(dim_in=[embed_dim], ...) as `head`, whose only parameters are `projection`
  // (s0_tpool, s0_roi, s0_spool and dropout have none). So the state dict is the Kinetics
  // reference (tests/data/reference) with an 80 x 768 projection.
  void stateDictMatchesPySlowFast() {
    const std::string ref = std::string(AMPSTUDIO_TEST_DATA_DIR) +
                            "/reference/pyslowfast-state-dicts/MVITv2_S_16x4.keys";
    std::ifstream in(ref);
    QVERIFY2(in, ref.c_str());
    std::string header, line;
    std::getline(in, header);
    std::vector<std::string> expected;
    while (std::getline(in, line)) {
      if (line == "head.projection.weight 400x768") line = "head.projection.weight 80x768";
      if (line == "head.projection.bias 400") line = "head.projection.bias 80";
      expected.push_back(line);
    }
    const auto cfg = testsupport::loadConfigOrDie(
        testsupport::repoConfig("Kinetics/MVITv2_S_16x4.yaml"),
        {"DETECTION.ENABLE", "True", "MODEL.NUM_CLASSES", "80", "NUM_GPUS", "0"});
    const auto m = models::summarizeModel(cfg, false);
    QCOMPARE(m.state.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)  // names, shapes and order
      QCOMPARE(m.state[i].name + " " + models::shapeText(m.state[i].shape), expected[i]);
    QCOMPARE(m.parameters, int64_t{34537744} - 400 * 769 + 80 * 769);
    // The head's modules as PySlowFast names them; its temporal pool takes NUM_FRAMES over
    // PATCH_STRIDE[0] (16 / 2) frames to one.
    auto net = models::buildVideoNet(cfg);
    QVERIFY(net->detection());
    auto mods = net->named_modules("", /*include_self=*/false);
    for (const char* name : {"head.s0_tpool", "head.s0_roi", "head.s0_spool", "head.dropout"})
      QVERIFY2(mods.contains(name), name);
    const auto* tpool = mods["head.s0_tpool"]->as<torch::nn::AvgPool3dImpl>();
    QVERIFY(tpool != nullptr);
    QCOMPARE(torch::IntArrayRef(*tpool->options.kernel_size()).vec(),
             (std::vector<int64_t>{8, 1, 1}));
  }

  void forwardScoresEachBox_data() {
    QTest::addColumn<QString>("config");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("mvit-v2") << "Kinetics/MVITv2_S_16x4.yaml" << QStringList{};
    QTest::newRow("mvit-v2-no-cls")
        << "Kinetics/MVITv2_S_16x4.yaml" << QStringList{"MVIT.CLS_EMBED_ON", "False"};
    QTest::newRow("mvit-v1") << "Kinetics/MVIT_B_16x4_CONV.yaml"
                             << QStringList{"MVIT.POOL_Q_STRIDE", "[[1, 1, 2, 2]]"};
    QTest::newRow("act-checkpoint")
        << "Kinetics/MVITv2_S_16x4.yaml" << QStringList{"MODEL.ACT_CHECKPOINT", "True"};
  }
  void forwardScoresEachBox() {
    QFETCH(QString, config);
    QFETCH(QStringList, extra);
    std::vector<std::string> ov;
    for (const auto& e : extra) ov.push_back(e.toStdString());
    const auto c = tinyDetection(config.toStdString(), ov);
    auto net = models::buildVideoNet(c);
    QVERIFY(net->detection());
    const auto x = clips(c, 2);
    const auto boxes = someBoxes();
    net->eval();
    torch::NoGradGuard noGrad;
    const auto scores = net->forward({x}, boxes);
    QCOMPARE(scores.sizes().vec(), (std::vector<int64_t>{4, 5}));
    QVERIFY(inUnitInterval(scores));
    // Each box is scored from its own clip: clip 1's whole-frame box alone gives the same row.
    const auto only1 = torch::tensor({{0.0F, 0.0F, 0.0F, 32.0F, 32.0F}});
    QVERIFY(torch::allclose(net->forward({x.slice(0, 1, 2)}, only1)[0], scores[0], 1e-4, 1e-5));
    // Boxes are what a detection model scores.
    QVERIFY_EXCEPTION_THROWN(net->forward({x}), std::logic_error);
  }

  // On a one-token grid the RoI head with resolution 1 over the whole frame reads that token
  // exactly, so the detection model equals the classification one with the same weights where
  // that reads the normed token too: mean pooling over the patch tokens (the class token left
  // out, as detection drops it) then the norm. A detection forward that read the class token
  // instead of the patch token, or skipped the norm, would differ.
  void headReadsTheNormedPatchTokens() {
    const std::vector<std::string> oneToken = {"DATA.NUM_FRAMES",
                                               "2",
                                               "DATA.TRAIN_CROP_SIZE",
                                               "16",
                                               "DATA.TEST_CROP_SIZE",
                                               "16",
                                               "MVIT.POOL_Q_STRIDE",
                                               "[[0, 1, 2, 2], [1, 1, 2, 2]]",
                                               "MVIT.USE_MEAN_POOLING",
                                               "True",
                                               "DETECTION.ROI_XFORM_RESOLUTION",
                                               "1",
                                               "DETECTION.SPATIAL_SCALE_FACTOR",
                                               "16",
                                               "MODEL.DROPOUT_RATE",
                                               "0.0"};
    const auto det = models::buildVideoNet(tinyDetection("Kinetics/MVITv2_S_16x4.yaml", oneToken));
    auto clsOv = oneToken;
    clsOv.insert(clsOv.end(), {"DETECTION.ENABLE", "False"});
    const auto cls = models::buildVideoNet(tinyDetection("Kinetics/MVITv2_S_16x4.yaml", clsOv));
    {
      torch::NoGradGuard noGrad;
      auto target = det->named_parameters();
      for (const auto& p : cls->named_parameters()) {
        QVERIFY2(target.contains(p.key()), p.key().c_str());
        target[p.key()].copy_(p.value());
      }
    }
    det->eval();
    cls->eval();
    torch::NoGradGuard noGrad;
    const auto x = torch::randn({2, 3, 2, 16, 16});
    const auto boxes =
        torch::tensor({{0.0F, 0.0F, 0.0F, 16.0F, 16.0F}, {1.0F, 0.0F, 0.0F, 16.0F, 16.0F}});
    QVERIFY(torch::allclose(det->forward({x}, boxes), cls->forward({x}), 1e-5, 1e-6));
  }

  // The activation applies in training too (PySlowFast's ResNetRoIHead; AVA trains bce on it),
  // and a per-box loss reaches the backbone.
  void gradientReachesTheBackbone() {
    const auto c = tinyDetection();
    auto net = models::buildVideoNet(c);
    net->train();
    const auto out = net->forward({clips(c, 2)}, someBoxes());
    QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{4, 5}));
    QVERIFY(out.gt(0).all().item<bool>() && out.lt(1).all().item<bool>());
    const auto targets = torch::randint(0, 2, {4, 5}).to(torch::kFloat);
    torch::binary_cross_entropy(out, targets).backward();
    for (const char* p : {"head.projection.weight", "norm.weight", "blocks.1.attn.qkv.weight",
                          "blocks.0.mlp.fc1.weight", "patch_embed.proj.weight"}) {
      QVERIFY2(net->named_parameters().contains(p), p);
      const auto g = net->named_parameters()[p].grad();
      QVERIFY2(g.defined() && torch::isfinite(g).all().item<bool>(), p);
      QVERIFY2(g.abs().sum().item<float>() > 0, p);
    }
    // The class token, dropped before the head, still learns through attention.
    QVERIFY(net->named_parameters()["cls_token"].grad().defined());
  }

  // Under autocast (bfloat16 on the CPU) the scores stay probabilities close to float32's:
  // the norm and RoIAlign run in float32, the projection in bfloat16.
  void autocastScoresStayClose() {
    const auto c = tinyDetection();
    auto net = models::buildVideoNet(c);
    net->eval();
    torch::NoGradGuard noGrad;
    const auto x = clips(c, 2);
    const auto full = net->forward({x}, someBoxes());
    torch::Tensor reduced;
    {
      precision::AutocastGuard autocast(true, precision::AutocastDevice::CPU,
                                        precision::AutocastType::BFloat16);
      reduced = net->forward({x}, someBoxes());
    }
    QCOMPARE(reduced.sizes().vec(), (std::vector<int64_t>{4, 5}));
    QVERIFY(inUnitInterval(reduced.to(torch::kFloat)));
    QVERIFY2(torch::allclose(reduced.to(torch::kFloat), full, 0.0, 2e-2),
             std::to_string((reduced.to(torch::kFloat) - full).abs().max().item<float>()).c_str());
  }

  // PySlowFast counts a detection model's FLOPs on one box; so does the summary.
  void summaryRunsOneBox() {
    const auto m = models::summarizeModel(tinyDetection(), true);
    QCOMPARE(m.output_shape, (std::vector<int64_t>{1, 5}));
    QVERIFY(m.macs > 0);
  }

  // Reversible MViT asserts not DETECTION.ENABLE in PySlowFast (and is not built here); a
  // temporal query stride leaves the head's temporal pool (NUM_FRAMES / PATCH_STRIDE[0]) more
  // frames than the grid has, which PySlowFast fails on at the first forward; X3D has no
  // detection head at all.
  void whatStaysRefused() {
    try {
      models::buildVideoNet(
          tinyDetection("Kinetics/MVITv2_S_16x4.yaml", {"MVIT.REV.ENABLE", "True"}));
      QFAIL("reversible MViT with detection was built");
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      QVERIFY2(what.rfind("MVIT.REV.ENABLE", 0) == 0 && what.find("detection") != std::string::npos,
               e.what());
    }
    QVERIFY_EXCEPTION_THROWN(
        models::buildVideoNet(
            tinyDetection("Kinetics/MVITv2_S_16x4.yaml", {"MVIT.POOL_Q_STRIDE", "[[1, 2, 2, 2]]"})),
        std::invalid_argument);
    const auto x3d = testsupport::loadConfigOrDie(testsupport::repoConfig("Kinetics/X3D_XS.yaml"),
                                                  {"DETECTION.ENABLE", "True", "NUM_GPUS", "0"});
    QVERIFY_EXCEPTION_THROWN(models::buildVideoNet(x3d), std::invalid_argument);

    // What train refuses before building: MViT on AVA with bce is accepted once the Kinetics
    // config's mixup is off, its reversible form is refused at MVIT.REV.ENABLE saying why, X3D
    // at MODEL.MODEL_NAME.
    const std::vector<std::string> ava = {"TRAIN.DATASET",   "ava", "TEST.DATASET", "ava",
                                          "MODEL.LOSS_FUNC", "bce", "MIXUP.ENABLE", "False"};
    const auto mvit = tinyDetection("Kinetics/MVITv2_S_16x4.yaml", ava);
    QVERIFY(config::refusedSettings(mvit, true).empty());
    const auto mixed =
        config::refusedSettings(tinyDetection("Kinetics/MVITv2_S_16x4.yaml",
                                              testsupport::joined(ava, {"MIXUP.ENABLE", "True"})),
                                true);
    QCOMPARE(mixed.size(), size_t(1));
    QCOMPARE(mixed[0].key, std::string("MIXUP.ENABLE"));
    const auto rev = config::refusedSettings(
        tinyDetection("Kinetics/MVITv2_S_16x4.yaml",
                      testsupport::joined(ava, {"MVIT.REV.ENABLE", "True"})),
        true);
    QCOMPARE(rev.size(), size_t(1));
    QCOMPARE(rev[0].key, std::string("MVIT.REV.ENABLE"));
    QVERIFY2(rev[0].message.find("detection head") != std::string::npos, rev[0].message.c_str());
    const auto x3dAva = config::refusedSettings(
        testsupport::loadConfigOrDie(testsupport::repoConfig("Kinetics/X3D_XS.yaml"),
                                     testsupport::joined({"DETECTION.ENABLE", "True"}, ava)),
        true);
    QVERIFY(!x3dAva.empty());  // the first is what train and test report
    QCOMPARE(x3dAva[0].key, std::string("MODEL.MODEL_NAME"));
  }
};

QTEST_GUILESS_MAIN(TestMViTDetection)
#include "tst_mvitdetection.moc"
