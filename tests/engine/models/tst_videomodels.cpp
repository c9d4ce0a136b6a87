#include <QtTest>

#include <fstream>
#include <sstream>

#include "amp/AutocastGuard.h"
#include "config/ConfigLoader.h"
#include "models/ModelFactory.h"
#include "models/VideoModels.h"

using namespace amp;

namespace {

config::Config load(const std::string& rel, const std::vector<std::string>& overrides = {}) {
  auto r = config::ConfigLoader().loadFile(std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/" + rel, overrides);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}

// Tiny widths and sizes from the same config keys as the full models.
const std::vector<std::string> kTiny = {"RESNET.WIDTH_PER_GROUP", "8", "DATA.TRAIN_CROP_SIZE", "64", "MODEL.NUM_CLASSES", "5",
                                        "TRAIN.BATCH_SIZE", "8"};

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
    const int64_t frames = c.getString("MODEL.ARCH") == "slowfast" && p == 0 ? t / c.getInt("SLOWFAST.ALPHA") : t;
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
    for (const char* n : {"C2D_8x8_R50", "I3D_8x8_R50", "SLOW_8x8_R50", "SLOWFAST_8x8_R50", "X3D_XS"}) QTest::newRow(n) << n;
  }
  void stateDictsMatchPySlowFast() {
    QFETCH(QString, name);
    const std::string ref = std::string(AMPSTUDIO_SHARED_DIR) + "/reference/pyslowfast-state-dicts/" + name.toStdString() + ".keys";
    std::ifstream in(ref);
    if (!in) QSKIP(("reference not found: " + ref).c_str());
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
    QVERIFY2(header.find(" " + std::to_string(m.parameters) + " parameters") != std::string::npos, header.c_str());
  }

  void parameterCountsOfTheZoo() {
    QCOMPARE(models::summarizeModel(load("Kinetics/X3D_L.yaml"), false).parameters, std::int64_t(6153432));
    QCOMPARE(models::summarizeModel(load("Kinetics/X3D_M.yaml"), false).parameters, std::int64_t(3794322));
    QCOMPARE(models::summarizeModel(load("Kinetics/SLOWFAST_4x16_R50.yaml"), false).parameters,
             models::summarizeModel(load("Kinetics/SLOWFAST_8x8_R50.yaml", {"SLOWFAST.FUSION_KERNEL_SZ", "5"}), false).parameters);
  }

  void forwardBackwardEveryArchitecture_data() {
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("c2d") << "Kinetics/C2D_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("i3d") << "Kinetics/I3D_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("slow") << "Kinetics/SLOW_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("slowfast") << "Kinetics/SLOWFAST_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "8"};
    QTest::newRow("x3d") << "Kinetics/X3D_XS.yaml" << QStringList{"X3D.DIM_C5", "64", "DATA.NUM_FRAMES", "4"};
    QTest::newRow("i3d-nonlocal") << "Kinetics/I3D_8x8_R50.yaml"
                                  << QStringList{"DATA.NUM_FRAMES", "4", "NONLOCAL.LOCATION", "[[[]], [[1]], [[1]], [[]]]"};
  }
  void forwardBackwardEveryArchitecture() {
    const auto c = tinyConfigFromTestData();
    auto net = models::buildVideoNet(c);
    for (int64_t n : {1, 3}) {  // one and several clips
      net->train();
      auto out = net->forward(inputs(c, n, 64));
      QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{n, 5}));
      QVERIFY(torch::isfinite(out).all().item<bool>());
    }
    net->zero_grad();
    net->forward(inputs(c, 2, 64)).pow(2).sum().backward();
    for (const auto& p : net->named_parameters())
      QVERIFY2(p.value().grad().defined(), p.key().c_str());  // backward reaches every parameter
    // Evaluation: softmax over classes, averaged; fully convolutional at a larger test crop.
    net->eval();
    torch::NoGradGuard noGrad;
    auto x = inputs(c, 2, 64);
    auto a = net->forward(x), b = net->forward(x);
    QVERIFY(torch::equal(a, b));
    QVERIFY(torch::allclose(a.sum(1), torch::ones({2}), 1e-4, 1e-4));
    QCOMPARE(net->forward(inputs(c, 2, 96)).sizes().vec(), (std::vector<int64_t>{2, 5}));
    if (QString(QTest::currentDataTag()) == "i3d-nonlocal") {
      bool found = false;
      for (const auto& p : net->named_parameters()) found = found || p.key() == "s3.pathway0_nonlocal1.conv_theta.weight";
      QVERIFY(found);
    }
  }

  void dropoutOnlyInTraining() {
    const auto c = load("Kinetics/SLOW_8x8_R50.yaml", tiny({"DATA.NUM_FRAMES", "4", "MODEL.DROPOUT_RATE", "0.5"}));
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
    QCOMPARE(params["s2.pathway0_res0.branch2.c_bn.weight"].abs().sum().item<double>(), 0.0);  // ZERO_INIT_FINAL_BN
    QCOMPARE(params["s2.pathway0_res0.branch2.a_bn.weight"].mean().item<double>(), 1.0);
    const double fcStd = params["head.projection.weight"].std().item<double>();
    QVERIFY2(std::abs(fcStd - 0.01) < 0.001, std::to_string(fcStd).c_str());  // MODEL.FC_INIT_STD
    const auto w = params["s3.pathway0_res0.branch2.b.weight"];  // 128 x 128 x 1 x 3 x 3: fan_out 1152
    const double expected = std::sqrt(2.0 / (128 * 9));
    QVERIFY(std::abs(w.std().item<double>() - expected) < 0.05 * expected);  // MSRA fill, fan_out
  }

  void flopsMatchTheModelZoo() {
    // PySlowFast's model zoo: SlowFast 8x8 R50 65.7 GFLOPs (256 px test crop); X3D-XS/S/M 0.6/2.0/4.7.
    auto gflops = [](const config::Config& c) { return static_cast<double>(models::summarizeModel(c, true).macs) / 1e9; };
    QVERIFY(std::abs(gflops(load("Kinetics/SLOWFAST_8x8_R50.yaml", {"DATA.TRAIN_CROP_SIZE", "256"})) - 65.7) < 0.1);
    QVERIFY(std::abs(gflops(load("Kinetics/X3D_XS.yaml")) - 0.6) < 0.01);
    QVERIFY(std::abs(gflops(load("Kinetics/X3D_S.yaml")) - 2.0) < 0.05);
    QVERIFY(std::abs(gflops(load("Kinetics/X3D_M.yaml")) - 4.7) < 0.05);
  }

  void bfloat16AutocastStaysCloseToFp32_data() {
    QTest::addColumn<QString>("cfg");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("slowfast") << "Kinetics/SLOWFAST_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "8"};
    QTest::newRow("i3d") << "Kinetics/I3D_8x8_R50.yaml" << QStringList{"DATA.NUM_FRAMES", "4"};
    QTest::newRow("x3d") << "Kinetics/X3D_XS.yaml" << QStringList{"X3D.DIM_C5", "64", "DATA.NUM_FRAMES", "4"};
  }
  void bfloat16AutocastStaysCloseToFp32() {
    const auto c = tinyConfigFromTestData();
    auto net = models::buildVideoNet(c);
    net->eval();  // BN on running statistics: the two passes see the same model
    const auto x = inputs(c, 2, 64);
    torch::Tensor ref;
    {
      torch::NoGradGuard noGrad;
      ref = net->forward(x);
    }
    torch::Tensor out;
    {
      precision::AutocastGuard guard(true, precision::AutocastDevice::CPU, precision::AutocastType::BFloat16);
      out = net->forward(x);
    }
    QVERIFY(torch::isfinite(out).all().item<bool>());
    // Class probabilities: bfloat16 keeps about 3 significant digits; measured 0.0003-0.0005.
    const double maxError = (out.to(torch::kFloat) - ref).abs().max().item<double>();
    qInfo("%s: bfloat16 autocast, max abs difference of class probabilities vs fp32: %.4f", QTest::currentDataTag(), maxError);
    QVERIFY2(maxError < 0.01, std::to_string(maxError).c_str());
    // Training under autocast: finite loss and gradients for every parameter.
    net->train();
    net->zero_grad();
    torch::Tensor logits;
    {
      precision::AutocastGuard guard(true, precision::AutocastDevice::CPU, precision::AutocastType::BFloat16);
      logits = net->forward(x);
    }
    torch::nn::functional::cross_entropy(logits.to(torch::kFloat), torch::tensor({0, 1})).backward();
    for (const auto& p : net->named_parameters()) {
      QVERIFY2(p.value().grad().defined(), p.key().c_str());
      QVERIFY2(torch::isfinite(p.value().grad()).all().item<bool>(), p.key().c_str());
      QCOMPARE(p.value().grad().scalar_type(), torch::kFloat);  // master weights stay float32
    }
  }

  void unsupportedRequestsNameTheKey() {
    try {
      models::buildVideoNet(load("Kinetics/MVITv2_S_16x4.yaml"));
      QFAIL("MViT should not build yet");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).rfind("MODEL.MODEL_NAME: ", 0) == 0, e.what());
    }
    try {
      models::buildVideoNet(load("Kinetics/SLOW_8x8_R50.yaml", {"NONLOCAL.GROUP", "[[2], [1], [1], [1]]"}));
      QFAIL("groups should be refused");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).rfind("NONLOCAL.GROUP: ", 0) == 0, e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestVideoModels)
#include "tst_videomodels.moc"
