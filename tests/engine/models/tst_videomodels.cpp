#include <QtTest>

#include <ATen/record_function.h>

#include <fstream>
#include <sstream>

#include "amp/AutocastGuard.h"
#include "configfile/ConfigLoader.h"
#include "models/ModelFactory.h"
#include "models/ResNetHelper.h"
#include "models/VideoModels.h"
#include "train/Optimizer.h"

using namespace amp;

namespace {

config::Config load(const std::string& rel, const std::vector<std::string>& overrides = {}) {
  auto r = config::ConfigLoader().loadFile(std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/" + rel,
                                           overrides);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}

// Tiny widths and sizes from the same config keys as the full models.
const std::vector<std::string> kTiny = {"RESNET.WIDTH_PER_GROUP", "8", "DATA.TRAIN_CROP_SIZE", "64",
                                        "MODEL.NUM_CLASSES",      "5", "TRAIN.BATCH_SIZE",     "8"};

std::vector<std::string> tiny(std::vector<std::string> extra) {
  auto all = kTiny;
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

std::vector<torch::Tensor> inputs(const config::Config& c, int64_t n, int64_t size) {
  const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t t = c.getInt("DATA.NUM_FRAMES");
  std::vector<torch::Tensor> x;
  for (size_t p = 0; p < channels.size(); ++p) {
    const int64_t frames =
        c.getString("MODEL.ARCH") == "slowfast" && p == 0 ? t / c.getInt("SLOWFAST.ALPHA") : t;
    x.push_back(torch::randn({n, channels[p], frames, size, size}));
  }
  return x;
}

// The current data row's config ("cfg") with the tiny overrides and the row's own ("extra").
config::Config tinyConfigFromTestData() {
  QFETCH(QString, cfg);
  QFETCH(QStringList, extra);
  std::vector<std::string> ov;
  for (const auto& e : extra) ov.push_back(e.toStdString());
  return load(cfg.toStdString(), tiny(ov));
}

}  // namespace

class TestVideoModels : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    torch::manual_seed(0);
    torch::set_num_threads(2);
  }

  void stateDictsMatchPySlowFast_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"C2D_8x8_R50", "I3D_8x8_R50", "SLOW_8x8_R50", "SLOWFAST_8x8_R50",
                          "X3D_XS", "MVITv2_S_16x4"})
      QTest::newRow(n) << n;
  }
  void stateDictsMatchPySlowFast() {
    QFETCH(QString, name);
    const std::string ref = std::string(AMPSTUDIO_TEST_DATA_DIR) +
                            "/reference/pyslowfast-state-dicts/" + name.toStdString() + ".keys";
    std::ifstream in(ref);
    QVERIFY2(in, ("reference not found (tests/data/ is part of the repository): " + ref).c_str());
    std::string header;
    std::getline(in, header);
    const auto m = models::summarizeModel(load("Kinetics/" + name.toStdString() + ".yaml"), false);
    std::string line;
    size_t i = 0;
    while (std::getline(in, line)) {
      QVERIFY2(i < m.state.size(), ("missing from ours: " + line).c_str());
      const std::string ours = m.state[i].name + " " + models::shapeText(m.state[i].shape);
      QCOMPARE(ours, line);  // same name, same shape, same order
      ++i;
    }
    QCOMPARE(i, m.state.size());
    QVERIFY2(header.find(" " + std::to_string(m.parameters) + " parameters") != std::string::npos,
             header.c_str());
  }

  // The parameter counts PySlowFast's build_model gives for its own Kinetics configs (400 classes,
  // sum of p.numel() over model.parameters(), gathered with the state-dict references in
  // tests/data/reference): X3D-L 6,153,432; X3D-M 3,794,322 (X3D-XS's network, as the header of
  // X3D_XS.keys says); MViTv1-B 16x4 36,610,672. The papers round them to 6.1M, 3.8M (X3D,
  // Feichtenhofer, CVPR 2020) and 36.6M (MViT, Fan et al., ICCV 2021).
  void parameterCountsOfTheZoo() {
    QCOMPARE(models::summarizeModel(load("Kinetics/X3D_L.yaml"), false).parameters,
             std::int64_t(6153432));
    QCOMPARE(models::summarizeModel(load("Kinetics/X3D_M.yaml"), false).parameters,
             std::int64_t(3794322));
    QCOMPARE(models::summarizeModel(load("Kinetics/MVIT_B_16x4_CONV.yaml"), false).parameters,
             std::int64_t(36610672));
    QCOMPARE(models::summarizeModel(load("Kinetics/SLOWFAST_4x16_R50.yaml"), false).parameters,
             models::summarizeModel(
                 load("Kinetics/SLOWFAST_8x8_R50.yaml", {"SLOWFAST.FUSION_KERNEL_SZ", "5"}), false)
                 .parameters);
  }

  void forwardBackwardEveryArchitecture_data() {
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("c2d") << "Kinetics/C2D_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("i3d") << "Kinetics/I3D_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("slow") << "Kinetics/SLOW_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("slowfast") << "Kinetics/SLOWFAST_8x8_R50.yaml"
                              << QStringList{"DATA.NUM_FRAMES", "8"};
    QTest::newRow("x3d") << "Kinetics/X3D_XS.yaml"
                         << QStringList{"X3D.DIM_C5", "64", "DATA.NUM_FRAMES", "4"};
    QTest::newRow("i3d-nonlocal") << "Kinetics/I3D_8x8_R50.yaml"
                                  << QStringList{"DATA.NUM_FRAMES", "4", "NONLOCAL.LOCATION",
                                                 "[[[]], [[1]], [[1]], [[]]]"};
    QTest::newRow("i3d-nonlocal-groups")
        << "Kinetics/I3D_8x8_R50.yaml"
        << QStringList{"DATA.NUM_FRAMES",   "4",
                       "NONLOCAL.LOCATION", "[[[]], [[1]], [[1]], [[]]]",
                       "NONLOCAL.GROUP",    "[[1], [2], [2], [1]]"};
    addMViTRows();
  }
  void forwardBackwardEveryArchitecture() {
    const auto c = tinyConfigFromTestData();
    auto net = models::buildVideoNet(c);
    for (int64_t n : {1, 3}) {  // one and several clips
      net->train();
      auto out = net->forward(inputs(c, n, c.getInt("DATA.TRAIN_CROP_SIZE")));
      QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{n, 5}));
      QVERIFY(torch::isfinite(out).all().item<bool>());
    }
    net->zero_grad();
    net->forward(inputs(c, 2, c.getInt("DATA.TRAIN_CROP_SIZE"))).pow(2).sum().backward();
    for (const auto& p : net->named_parameters())
      QVERIFY2(p.value().grad().defined(), p.key().c_str());  // backward reaches every parameter
    // Evaluation: softmax over classes, averaged; fully convolutional at a larger test crop.
    net->eval();
    torch::NoGradGuard noGrad;
    auto x = inputs(c, 2, c.getInt("DATA.TRAIN_CROP_SIZE"));
    auto a = net->forward(x), b = net->forward(x);
    QVERIFY(torch::equal(a, b));
    QVERIFY(torch::allclose(a.sum(1), torch::ones({2}), 1e-4, 1e-4));
    if (c.getString("MODEL.ARCH") != "mvit") {
      QCOMPARE(net->forward(inputs(c, 2, 96)).sizes().vec(), (std::vector<int64_t>{2, 5}));
    } else {  // MViT's token grid is fixed by the config, as in PySlowFast: a clear error instead
      QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                               net->forward(inputs(c, 2, c.getInt("DATA.TRAIN_CROP_SIZE") + 32)));
    }
    if (QString(QTest::currentDataTag()) == "i3d-nonlocal") {
      bool found = false;
      for (const auto& p : net->named_parameters())
        found = found || p.key() == "s3.pathway0_nonlocal1.conv_theta.weight";
      QVERIFY(found);
    }
  }

  // NONLOCAL.GROUP G: the block attends within each of G consecutive chunks of frames, as if
  // each chunk were its own clip (PySlowFast folds time into the batch).
  void groupedNonlocalAttendsWithinChunks() {
    torch::manual_seed(5);
    models::FinalBnRegistry finals;
    models::Nonlocal nl(8, 4, std::vector<int64_t>{1, 1, 1}, true, finals);
    for (auto& p : nl->parameters())
      p.data().normal_(0, 0.5);  // a non-zero residual (its BN starts at zero)
    nl->eval();
    torch::NoGradGuard noGrad;
    const auto x = torch::randn({2, 8, 4, 3, 3});
    const auto grouped = models::groupedNonlocal(nl, x, 2);
    const auto chunks = torch::cat({nl(x.slice(2, 0, 2)), nl(x.slice(2, 2, 4))}, 2);
    QVERIFY(torch::allclose(grouped, chunks, 1e-5, 1e-6));
    QVERIFY(!torch::allclose(grouped, nl(x), 1e-3, 1e-3));  // attending over all 4 frames differs
    QVERIFY(torch::equal(models::groupedNonlocal(nl, x, 1), nl(x)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             models::groupedNonlocal(nl, torch::randn({1, 8, 3, 3, 3}), 2));
  }

  void dropoutOnlyInTraining() {
    const auto c = load("Kinetics/SLOW_8x8_R50.yaml",
                        tiny({"DATA.NUM_FRAMES", "4", "MODEL.DROPOUT_RATE", "0.5"}));
    auto net = models::buildVideoNet(c);
    auto x = inputs(c, 2, 64);
    net->train();
    torch::NoGradGuard noGrad;
    QVERIFY(!torch::equal(net->forward(x), net->forward(x)));
  }

  void initialisationAsPySlowFast() {
    const auto c = load("Kinetics/SLOW_8x8_R50.yaml");
    auto net = models::buildVideoNet(c);
    auto params = net->named_parameters();
    QCOMPARE(params["s2.pathway0_res0.branch2.c_bn.weight"].abs().sum().item<double>(),
             0.0);  // ZERO_INIT_FINAL_BN
    QCOMPARE(params["s2.pathway0_res0.branch2.a_bn.weight"].mean().item<double>(), 1.0);
    const double fcStd = params["head.projection.weight"].std().item<double>();
    QVERIFY2(std::abs(fcStd - 0.01) < 0.001, std::to_string(fcStd).c_str());  // MODEL.FC_INIT_STD
    const auto w =
        params["s3.pathway0_res0.branch2.b.weight"];  // 128 x 128 x 1 x 3 x 3: fan_out 1152
    const double expected = std::sqrt(2.0 / (128 * 9));
    QVERIFY(std::abs(w.std().item<double>() - expected) < 0.05 * expected);  // MSRA fill, fan_out
  }

  // RESNET.ZERO_INIT_FINAL_CONV: PySlowFast zeroes the convolutions marked final_conv, which are
  // the X3D transform's c and the basic transform's b; the bottleneck's c has no mark.
  void zeroInitFinalConvAsPySlowFast() {
    auto x3d = models::buildVideoNet(
        load("Kinetics/X3D_XS.yaml", {"RESNET.ZERO_INIT_FINAL_CONV", "True"}));
    auto p = x3d->named_parameters();
    QCOMPARE(p["s2.pathway0_res0.branch2.c.weight"].abs().sum().item<double>(), 0.0);
    QVERIFY(p["s2.pathway0_res0.branch2.b.weight"].abs().sum().item<double>() > 0);
    auto plain = models::buildVideoNet(load("Kinetics/X3D_XS.yaml"));
    QVERIFY(
        plain->named_parameters()["s2.pathway0_res0.branch2.c.weight"].abs().sum().item<double>() >
        0);
    auto r50 = models::buildVideoNet(
        load("Kinetics/SLOW_8x8_R50.yaml", tiny({"RESNET.ZERO_INIT_FINAL_CONV", "True"})));
    QVERIFY(
        r50->named_parameters()["s2.pathway0_res0.branch2.c.weight"].abs().sum().item<double>() >
        0);
  }

  // Keys PySlowFast reads but does not act on stay without effect here too:
  // MVIT.LAYER_SCALE_INIT_VALUE adds no gamma_1 / gamma_2; MODEL.DROPCONNECT_RATE drops nothing
  // (train-mode outputs equal).
  void pySlowFastNoOpKeysStayNoOps() {
    auto mvit = models::buildVideoNet(
        load("Kinetics/MVITv2_S_16x4.yaml", {"MVIT.LAYER_SCALE_INIT_VALUE", "0.1"}));
    for (const auto& p : mvit->named_parameters())
      QVERIFY2(p.key().find("gamma") == std::string::npos, p.key().c_str());
    const auto c =
        load("Kinetics/SLOW_8x8_R50.yaml", tiny({"DATA.NUM_FRAMES", "4", "MODEL.DROPCONNECT_RATE",
                                                 "0.5", "MODEL.DROPOUT_RATE", "0.0"}));
    auto net = models::buildVideoNet(c);
    auto x = inputs(c, 2, 64);
    net->train();
    torch::NoGradGuard noGrad;
    QVERIFY(torch::equal(net->forward(x), net->forward(x)));
  }

  // RESNET.INPLACE_RELU as PySlowFast passes it: ResNet's stages apply ReLU in place (aten::relu_)
  // when set and out of place when not, with bit-identical outputs and gradients; its stem, and
  // SlowFast and X3D everywhere, stay in place whatever the key says. Training batch norm's
  // sub-batch groups (a view) are done out of place.
  void inplaceReluAsPySlowFast_data() {
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<bool>("honoursKey");
    QTest::newRow("slow") << "Kinetics/SLOW_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"}
                          << true;
    QTest::newRow("slow sub-bn") << "Kinetics/SLOW_8x8_R50.yaml"
                                 << QStringList{"DATA.NUM_FRAMES", "4"} << true;
    QTest::newRow("slowfast") << "Kinetics/SLOWFAST_8x8_R50.yaml"
                              << QStringList{"DATA.NUM_FRAMES", "8"} << false;
    QTest::newRow("x3d") << "Kinetics/X3D_XS.yaml"
                         << QStringList{"X3D.DIM_C5", "64", "DATA.NUM_FRAMES", "4"} << false;
  }
  void inplaceReluAsPySlowFast() {
    QFETCH(QString, cfg);
    QFETCH(QStringList, extra);
    QFETCH(bool, honoursKey);
    struct Pass {
      torch::Tensor out;
      std::vector<torch::Tensor> grads;
      int inPlace = 0, outOfPlace = 0;
    };
    const bool subBn =
        QString(QTest::currentDataTag()).endsWith("sub-bn");  // 2 groups, as multigrid sets them
    auto pass = [&](bool inplace) {
      std::vector<std::string> ov;
      for (const auto& e : extra) ov.push_back(e.toStdString());
      ov.insert(ov.end(), {"RESNET.INPLACE_RELU", inplace ? "True" : "False"});
      const auto c = load(cfg.toStdString(), tiny(ov));
      torch::manual_seed(5);
      auto net = models::buildVideoNet(c);
      if (subBn) models::setBatchNormSplits(*net, 2);
      net->train();
      torch::manual_seed(6);
      const auto x = inputs(c, 2, 64);
      Pass r;
      static thread_local Pass* counting = nullptr;
      counting = &r;
      const auto handle = at::addThreadLocalCallback(at::RecordFunctionCallback(
          [](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
            const std::string name = fn.name();
            if (name == "aten::relu_") ++counting->inPlace;
            if (name == "aten::relu") ++counting->outOfPlace;
            return nullptr;
          }));
      r.out = net->forward(x);
      at::removeCallback(handle);
      r.out.pow(2).sum().backward();
      for (const auto& p : net->parameters()) r.grads.push_back(p.grad().clone());
      return r;
    };
    const Pass on = pass(true), off = pass(false);
    QVERIFY(torch::equal(on.out, off.out));
    QCOMPARE(on.grads.size(), off.grads.size());
    for (size_t i = 0; i < on.grads.size(); ++i)
      QVERIFY2(torch::equal(on.grads[i], off.grads[i]), std::to_string(i).c_str());
    const int total = on.inPlace + on.outOfPlace;
    QCOMPARE(off.inPlace + off.outOfPlace, total);
    QVERIFY(total > 10);
    if (subBn) {
      QVERIFY(on.outOfPlace > 0);  // a batch norm's output is a view of its groups: out of place
      QVERIFY(on.inPlace > 0);     // the blocks' sums are not
      QCOMPARE(off.inPlace, 0);
    } else if (honoursKey) {
      QCOMPARE(on.outOfPlace, 0);  // nn.ReLU(inplace=True) everywhere by default
      QCOMPARE(off.inPlace, 1);    // the key reaches ResNet's stages; the stem stays in place
    } else {  // the key changes nothing (X3D's squeeze-excitation ReLU is out of place, as
              // PySlowFast's)
      QVERIFY(on.inPlace > 10);
      QCOMPARE(off.inPlace, on.inPlace);
    }
  }

  void flopsMatchTheModelZoo() {
    // PySlowFast's model zoo: SlowFast 8x8 R50 65.7 GFLOPs (256 px test crop); X3D-XS/S/M
    // 0.6/2.0/4.7.
    auto gflops = [](const config::Config& c) {
      return static_cast<double>(models::summarizeModel(c, true).macs) / 1e9;
    };
    QVERIFY(
        std::abs(gflops(load("Kinetics/SLOWFAST_8x8_R50.yaml", {"DATA.TRAIN_CROP_SIZE", "256"})) -
                 65.7) < 0.1);
    QVERIFY(std::abs(gflops(load("Kinetics/X3D_XS.yaml")) - 0.6) < 0.01);
    QVERIFY(std::abs(gflops(load("Kinetics/X3D_S.yaml")) - 2.0) < 0.05);
    QVERIFY(std::abs(gflops(load("Kinetics/X3D_M.yaml")) - 4.7) < 0.05);
  }

  void bfloat16AutocastStaysCloseToFp32_data() {
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("slowfast") << "Kinetics/SLOWFAST_8x8_R50.yaml"
                              << QStringList{"DATA.NUM_FRAMES", "8"};
    QTest::newRow("i3d") << "Kinetics/I3D_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("x3d") << "Kinetics/X3D_XS.yaml"
                         << QStringList{"X3D.DIM_C5", "64", "DATA.NUM_FRAMES", "4"};
    QTest::newRow("mvit-v2") << "Kinetics/MVITv2_S_16x4.yaml" << mvitTiny({});
    QTest::newRow("mvit-v1") << "Kinetics/MVIT_B_16x4_CONV.yaml" << mvitTiny({});
  }
  void bfloat16AutocastStaysCloseToFp32() {
    const auto c = tinyConfigFromTestData();
    auto net = models::buildVideoNet(c);
    net->eval();  // BN on running statistics: the two passes see the same model
    const auto x = inputs(c, 2, c.getInt("DATA.TRAIN_CROP_SIZE"));
    torch::Tensor ref;
    {
      torch::NoGradGuard noGrad;
      ref = net->forward(x);
    }
    torch::Tensor out;
    {
      precision::AutocastGuard guard(true, precision::AutocastDevice::CPU,
                                     precision::AutocastType::BFloat16);
      out = net->forward(x);
    }
    QVERIFY(torch::isfinite(out).all().item<bool>());
    // Class probabilities: bfloat16 keeps about 3 significant digits; measured 0.0003-0.0005.
    const double maxError = (out.to(torch::kFloat) - ref).abs().max().item<double>();
    qInfo("%s: bfloat16 autocast, max abs difference of class probabilities vs fp32: %.4f",
          QTest::currentDataTag(), maxError);
    QVERIFY2(maxError < 0.01, std::to_string(maxError).c_str());
    // Training under autocast: finite loss and gradients for every parameter.
    net->train();
    net->zero_grad();
    torch::Tensor logits;
    {
      precision::AutocastGuard guard(true, precision::AutocastDevice::CPU,
                                     precision::AutocastType::BFloat16);
      logits = net->forward(x);
    }
    torch::nn::functional::cross_entropy(logits.to(torch::kFloat), torch::tensor({0, 1}))
        .backward();
    for (const auto& p : net->named_parameters()) {
      QVERIFY2(p.value().grad().defined(), p.key().c_str());
      QVERIFY2(torch::isfinite(p.value().grad()).all().item<bool>(), p.key().c_str());
      QCOMPARE(p.value().grad().scalar_type(), torch::kFloat);  // master weights stay float32
    }
  }

  void unsupportedRequestsNameTheKey() {
    auto firstKey = [](const config::Config& c) -> std::string {
      try {
        models::buildVideoNet(c);
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        return what.substr(0, what.find(':'));
      }
      return "(built)";
    };
    QCOMPARE(firstKey(load("Kinetics/MVITv2_S_16x4.yaml", {"MVIT.REV.ENABLE", "True"})),
             std::string("MVIT.REV.ENABLE"));
    QCOMPARE(firstKey(load("Kinetics/MVITv2_S_16x4.yaml", {"DATA.TEST_CROP_SIZE", "256"})),
             std::string("DATA.TEST_CROP_SIZE"));
    QCOMPARE(
        firstKey(load("Kinetics/MVITv2_S_16x4.yaml", {"MVIT.POOL_Q_STRIDE", "[[16, 1, 2, 2]]"})),
        std::string("MVIT.POOL_Q_STRIDE"));
    QCOMPARE(firstKey(load("Kinetics/MVITv2_S_16x4.yaml", {"MVIT.DIM_MUL", "[[1, 2.0, 3]]"})),
             std::string("MVIT.DIM_MUL"));
    QCOMPARE(firstKey(load("Kinetics/MVITv2_S_16x4.yaml", {"MODEL.ARCH", "slow"})),
             std::string("MODEL.ARCH"));
    QCOMPARE(
        firstKey(load("Kinetics/SLOW_8x8_R50.yaml", {"NONLOCAL.GROUP", "[[0], [1], [1], [1]]"})),
        std::string("NONLOCAL.GROUP"));
    // Groups of a stage without non-local blocks change nothing (PySlowFast reads them only there).
    QCOMPARE(
        firstKey(load("Kinetics/SLOW_8x8_R50.yaml", {"NONLOCAL.GROUP", "[[2], [1], [1], [1]]"})),
        std::string("(built)"));
    // With a block, the frames at that stage must divide into the groups: said when they do not.
    const auto c =
        load("Kinetics/I3D_8x8_R50.yaml",
             tiny({"DATA.NUM_FRAMES", "3", "NONLOCAL.LOCATION", "[[[]], [[1]], [[]], [[]]]",
                   "NONLOCAL.GROUP", "[[1], [2], [1], [1]]"}));
    auto net = models::buildVideoNet(c);
    try {
      net->forward(inputs(c, 1, c.getInt("DATA.TRAIN_CROP_SIZE")));
      QFAIL("3 frames in 2 groups should be refused");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).rfind("NONLOCAL.GROUP: ", 0) == 0, e.what());
    }
  }

  void mvitInitialisationAndWeightDecayAsPySlowFast() {
    const auto c =
        load("Kinetics/MVITv2_S_16x4.yaml",
             mvitTinyOverrides({"MVIT.HEAD_INIT_SCALE", "0.5", "MVIT.ZERO_DECAY_POS_CLS", "True"}));
    auto net = models::buildVideoNet(c);
    auto p = net->named_parameters();
    QCOMPARE(p["blocks.0.norm1.weight"].mean().item<double>(), 1.0);
    QVERIFY(torch::allclose(p["blocks.0.norm1.bias"], torch::full({16}, 0.02)));
    QVERIFY(torch::allclose(p["blocks.0.attn.qkv.bias"], torch::full({48}, 0.02)));
    QVERIFY(torch::allclose(p["head.projection.bias"],
                            torch::full({5}, 0.01)));  // 0.02 x HEAD_INIT_SCALE
    const auto w = p["blocks.1.mlp.fc1.weight"];
    QVERIFY(std::abs(w.std().item<double>() - 0.02) < 0.002);  // truncated normal, std 0.02
    QVERIFY(w.abs().max().item<double>() <= 2.0);              // truncated at +-2 like torch's
    QVERIFY(p["blocks.0.attn.rel_pos_h"].abs().sum().item<double>() >
            0.0);  // not REL_POS_ZERO_INIT
    // No weight decay on the class token and relative positions (MVIT.ZERO_DECAY_POS_CLS).
    auto opt = train::buildOptimizer(c, *net);
    auto decayOf = [&](const torch::Tensor& t) {
      for (auto& g : opt->param_groups())
        for (auto& q : g.params())
          if (q.is_same(t))
            return static_cast<torch::optim::AdamWOptions&>(g.options()).weight_decay();
      return -1.0;
    };
    QCOMPARE(decayOf(p["cls_token"]), 0.0);
    QCOMPARE(decayOf(p["blocks.2.attn.rel_pos_t"]), 0.0);
    QCOMPARE(decayOf(p["blocks.2.attn.qkv.weight"]), 0.05);
  }

  void mvitFlopsMatchTheModelZoo() {
    // PySlowFast's model zoo: MViTv2-S 16x4 64 GFLOPs per view at 224 px.
    const double g = static_cast<double>(
                         models::summarizeModel(load("Kinetics/MVITv2_S_16x4.yaml"), true).macs) /
                     1e9;
    QVERIFY2(std::abs(g - 64.0) < 0.5, std::to_string(g).c_str());
  }

 private:
  // A small MViT from the same keys: 4 blocks, width 16, 4 frames at 64 px (16x16 patches).
  static std::vector<std::string> mvitTinyOverrides(std::vector<std::string> extra) {
    std::vector<std::string> ov = {"MVIT.EMBED_DIM",
                                   "16",
                                   "MVIT.DEPTH",
                                   "4",
                                   "DATA.NUM_FRAMES",
                                   "4",
                                   "DATA.TEST_CROP_SIZE",
                                   "64",
                                   "DATA.TRAIN_CROP_SIZE",
                                   "64",
                                   "MODEL.NUM_CLASSES",
                                   "5",
                                   "MVIT.DIM_MUL",
                                   "[[1, 2.0], [3, 2.0]]",
                                   "MVIT.HEAD_MUL",
                                   "[[1, 2.0], [3, 2.0]]",
                                   "MVIT.POOL_Q_STRIDE",
                                   "[[0, 1, 1, 1], [1, 1, 2, 2], [2, 1, 1, 1], [3, 1, 2, 2]]",
                                   "MVIT.POOL_KV_STRIDE_ADAPTIVE",
                                   "[1, 4, 4]"};
    ov.insert(ov.end(), extra.begin(), extra.end());
    return ov;
  }
  static QStringList mvitTiny(QStringList extra) {
    QStringList out;
    for (const auto& o : mvitTinyOverrides({})) out << QString::fromStdString(o);
    return out + extra;
  }
  static void addMViTRows() {
    QTest::newRow("mvit-v2") << "Kinetics/MVITv2_S_16x4.yaml" << mvitTiny({});
    QTest::newRow("mvit-v1") << "Kinetics/MVIT_B_16x4_CONV.yaml"
                             << mvitTiny({"MODEL.DROPOUT_RATE", "0.0"});
    // 72 px: 18 -> 9 -> 5 tokens, so the relative-position tables are resized at the last stage.
    QTest::newRow("mvit-v2-odd-grid")
        << "Kinetics/MVITv2_S_16x4.yaml"
        << mvitTiny({"DATA.TRAIN_CROP_SIZE", "72", "DATA.TEST_CROP_SIZE", "72"});
    QTest::newRow("mvit-max-pool")
        << "Kinetics/MVIT_B_16x4_CONV.yaml" << mvitTiny({"MVIT.MODE", "max"});
    QTest::newRow("mvit-pool-first") << "Kinetics/MVIT_B_16x4_CONV.yaml"
                                     << mvitTiny({"MVIT.POOL_FIRST", "True", "MVIT.MODE",
                                                  "conv_unshared", "MVIT.CLS_EMBED_ON", "False"});
    QTest::newRow("mvit-mean-pool-separate-qkv")
        << "Kinetics/MVIT_B_16x4_CONV.yaml"
        << mvitTiny({"MVIT.USE_MEAN_POOLING", "True", "MVIT.SEPARATE_QKV", "True", "MVIT.NORM_STEM",
                     "True"});
  }
};

QTEST_APPLESS_MAIN(TestVideoModels)
#include "tst_videomodels.moc"
