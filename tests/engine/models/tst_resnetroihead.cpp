// The detection head (PySlowFast's ResNetRoIHead) and the ResNet / SlowFast models built with
// DETECTION.ENABLE from PySlowFast's AVA configs: state-dict names and shapes, the head's pooling
// against its pieces, forward and backward with boxes.
#include <QtTest>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "models/ModelFactory.h"
#include "models/ResNetRoIHead.h"
#include "models/VideoModels.h"
#include "support/Configs.h"

using namespace amp;

namespace {

// Tiny widths, frames and crop from the same keys as the full models (SlowFast's Fast pathway
// needs WIDTH_PER_GROUP / BETA_INV >= 1). The crop of 64 gives res5 features of 4 x 4 at AVA's
// stride 16.
config::Config tinyAva(const std::string& name, std::vector<std::string> extra = {}) {
  std::vector<std::string> ov = {"RESNET.WIDTH_PER_GROUP",
                                 "8",
                                 "DATA.TRAIN_CROP_SIZE",
                                 "64",
                                 "MODEL.NUM_CLASSES",
                                 "5",
                                 "DATA.NUM_FRAMES",
                                 "8",
                                 "NUM_GPUS",
                                 "0"};
  ov.insert(ov.end(), extra.begin(), extra.end());
  return testsupport::loadConfigOrDie(testsupport::repoConfig("AVA/" + name + ".yaml"), ov);
}

std::vector<torch::Tensor> clips(const config::Config& c, int64_t n) {
  const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t t = c.getInt("DATA.NUM_FRAMES"), crop = c.getInt("DATA.TRAIN_CROP_SIZE");
  const bool slowfast = c.getString("MODEL.ARCH") == "slowfast";
  std::vector<torch::Tensor> x;
  for (size_t p = 0; p < channels.size(); ++p)
    x.push_back(torch::randn(
        {n, channels[p], slowfast && p == 0 ? t / c.getInt("SLOWFAST.ALPHA") : t, crop, crop}));
  return x;
}

// Boxes in the 64-pixel crop: two in clip 1, one in clip 0, one over the border.
torch::Tensor someBoxes() {
  return torch::tensor({{1.0F, 0.0F, 0.0F, 64.0F, 64.0F},
                        {0.0F, 5.0F, 5.0F, 40.0F, 60.0F},
                        {1.0F, 30.0F, 10.0F, 50.0F, 30.0F},
                        {0.0F, 48.0F, -8.0F, 80.0F, 20.0F}});
}

}  // namespace

class TestResNetRoIHead : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    torch::manual_seed(0);
    torch::set_num_threads(2);
  }

  // PySlowFast's ResNetRoIHead has one module with parameters, `projection` (its pools and
  // ROIAlign have none), and strides and dilations change no weight's shape. So the AVA models'
  // state dicts are those of the Kinetics models with the same backbone (the reference keys
  // dumped from PySlowFast, tests/data/reference) with an 80-class projection: derived by reading
  // head_helper.py and video_model_builder.py, not dumped from PySlowFast with DETECTION.ENABLE.
  void stateDictMatchesPySlowFast_data() {
    QTest::addColumn<QString>("ava");
    QTest::addColumn<QString>("kinetics");
    QTest::addColumn<int>("headIn");
    QTest::newRow("slowfast") << "SLOWFAST_32x2_R50_SHORT"
                              << "SLOWFAST_8x8_R50" << 2304;
    QTest::newRow("slow") << "SLOW_8x8_R50_SHORT"
                          << "SLOW_8x8_R50" << 2048;
  }
  void stateDictMatchesPySlowFast() {
    QFETCH(QString, ava);
    QFETCH(QString, kinetics);
    QFETCH(int, headIn);
    const std::string ref = std::string(AMPSTUDIO_TEST_DATA_DIR) +
                            "/reference/pyslowfast-state-dicts/" + kinetics.toStdString() + ".keys";
    std::ifstream in(ref);
    QVERIFY2(in, ref.c_str());
    std::string header, line;
    std::getline(in, header);
    std::vector<std::string> expected;
    const std::string d = std::to_string(headIn);
    while (std::getline(in, line)) {
      if (line == "head.projection.weight 400x" + d) line = "head.projection.weight 80x" + d;
      if (line == "head.projection.bias 400") line = "head.projection.bias 80";
      expected.push_back(line);
    }
    const auto cfg = testsupport::loadConfigOrDie(
        testsupport::repoConfig("AVA/" + ava.toStdString() + ".yaml"), {"NUM_GPUS", "0"});
    const auto m = models::summarizeModel(cfg, false);
    QCOMPARE(m.state.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)  // names, shapes and order
      QCOMPARE(m.state[i].name + " " + models::shapeText(m.state[i].shape), expected[i]);
    // The reference's count with 80 instead of 400 classes.
    const auto at = header.find(" parameters");
    const int64_t kineticsCount = std::stoll(header.substr(header.rfind(' ', at - 1) + 1));
    QCOMPARE(m.parameters, kineticsCount - 400 * (headIn + 1) + 80 * (headIn + 1));
  }

  // Tiny models: the detection model is the classification one but for its head, which is the
  // projection alone; AVA's res5 keeps stride 16 by a stride of 1 and a dilation of 2.
  void tinyDetectionModelsHaveTheRoIHead_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("slowfast") << "SLOWFAST_32x2_R50_SHORT";
    QTest::newRow("slow") << "SLOW_8x8_R50_SHORT";
  }
  void tinyDetectionModelsHaveTheRoIHead() {
    QFETCH(QString, name);
    const auto det = models::summarizeModel(tinyAva(name.toStdString()), false);
    const auto cls =
        models::summarizeModel(tinyAva(name.toStdString(), {"DETECTION.ENABLE", "False"}), false);
    QCOMPARE(det.state.size(), cls.state.size());
    std::vector<std::string> head;
    for (size_t i = 0; i < det.state.size(); ++i) {
      QCOMPARE(det.state[i].name, cls.state[i].name);
      QCOMPARE(det.state[i].shape, cls.state[i].shape);
      if (det.state[i].name.rfind("head.", 0) == 0) head.push_back(det.state[i].name);
    }
    QCOMPARE(head, (std::vector<std::string>{"head.projection.weight", "head.projection.bias"}));
    auto net = models::buildVideoNet(tinyAva(name.toStdString()));
    QVERIFY(net->detection());
    std::set<std::string> children;
    for (const auto& c : net->named_modules("", /*include_self=*/false)) children.insert(c.key());
    for (const char* m : {"head.s0_tpool", "head.s0_roi", "head.s0_spool", "head.dropout"})
      QVERIFY2(children.count(m), m);
    QCOMPARE(children.count("head.s1_roi"), size_t(name.startsWith("SLOWFAST") ? 1 : 0));
    auto* b = net->named_modules()["s5.pathway0_res0.branch2.b"]->as<torch::nn::Conv3dImpl>();
    QVERIFY(b != nullptr);
    QCOMPARE(torch::IntArrayRef(*b->options.stride()).vec(), (std::vector<int64_t>{1, 1, 1}));
    QCOMPARE(torch::IntArrayRef(*b->options.dilation()).vec(), (std::vector<int64_t>{1, 2, 2}));
  }

  // The head against its pieces: the temporal average, RoIAlign (adaptive, aligned, boxes at
  // 1 / scale), the maximum over the bins, the pathways concatenated in order, the projection and
  // the activation, which applies in training too.
  void headPoolsEachBoxFromItsClip() {
    models::RoIHeadArgs a;
    a.dim_in = {3, 2};
    a.num_classes = 4;
    a.pool_size = {{2, 1, 1}, {4, 1, 1}};
    a.resolution = {{2, 2}, {3, 3}};
    a.scale_factor = {4, 8};
    a.act = "sigmoid";
    models::ResNetRoIHead head(a);
    const std::vector<torch::Tensor> x = {torch::randn({2, 3, 2, 6, 6}),
                                          torch::randn({2, 2, 4, 3, 3})};
    const auto boxes =
        torch::tensor({{1.0F, 0.0F, 0.0F, 24.0F, 24.0F}, {0.0F, 4.0F, 8.0F, 20.0F, 22.0F}});
    std::vector<torch::Tensor> parts;
    for (size_t p = 0; p < 2; ++p)
      parts.push_back(
          models::roiAlign(x[p].mean(2), boxes, a.resolution[p], 1.0 / a.scale_factor[p], 0, true)
              .amax({2, 3}));
    const auto& fc = *head->named_children()["projection"]->as<torch::nn::LinearImpl>();
    const auto expected =
        torch::sigmoid(torch::nn::functional::linear(torch::cat(parts, 1), fc.weight, fc.bias));
    for (bool training : {true, false}) {
      head->train(training);
      const auto out = head(x, boxes);
      QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{2, 4}));
      QVERIFY(torch::allclose(out, expected, 1e-5, 1e-6));
    }
    a.act = "softmax";
    a.dropout_rate = 0.5;
    models::ResNetRoIHead soft(a);
    soft->eval();  // dropout off: rows are distributions
    QVERIFY(torch::allclose(soft(x, boxes).sum(1), torch::ones({2}), 1e-5, 1e-6));
    // A temporal pool that leaves more than one frame is a wrong DATA.NUM_FRAMES.
    QVERIFY_EXCEPTION_THROWN(
        head(std::vector<torch::Tensor>{torch::randn({2, 3, 4, 6, 6}), x[1]}, boxes),
        std::invalid_argument);
  }

  void forwardBackwardWithBoxes_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("slowfast") << "SLOWFAST_32x2_R50_SHORT";
    QTest::newRow("slow") << "SLOW_8x8_R50_SHORT";
  }
  void forwardBackwardWithBoxes() {
    QFETCH(QString, name);
    const auto c = tinyAva(name.toStdString());
    auto net = models::buildVideoNet(c);
    const auto x = clips(c, 2);
    const auto boxes = someBoxes();
    net->train();
    const auto out = net->forward(x, boxes);
    QCOMPARE(out.sizes().vec(), (std::vector<int64_t>{4, 5}));
    // HEAD_ACT sigmoid applies in training: the AVA configs' bce takes these probabilities.
    QVERIFY(out.gt(0).all().item<bool>() && out.lt(1).all().item<bool>());
    const auto targets = torch::randint(0, 2, {4, 5}).to(torch::kFloat);
    torch::binary_cross_entropy(out, targets).backward();
    for (const char* p :
         {"head.projection.weight", "s1.pathway0_stem.conv.weight",
          "s5.pathway0_res2.branch2.c_bn.weight"}) {  // c gets none: c_bn starts at 0
      const auto g = net->named_parameters()[p].grad();
      QVERIFY2(g.defined() && torch::isfinite(g).all().item<bool>(), p);
      QVERIFY2(g.abs().sum().item<float>() > 0, p);
    }
    net->eval();
    torch::NoGradGuard noGrad;
    const auto scores = net->forward(x, boxes);
    QCOMPARE(scores.sizes().vec(), (std::vector<int64_t>{4, 5}));
    // Each box is scored from its own clip: the boxes of clip 1 alone give the same rows.
    const auto clip1 = torch::tensor({{0.0F, 0.0F, 0.0F, 64.0F, 64.0F}});
    const std::vector<torch::Tensor> only1 = [&] {
      std::vector<torch::Tensor> v;
      for (const auto& t : x) v.push_back(t.slice(0, 1, 2));
      return v;
    }();
    QVERIFY(torch::allclose(net->forward(only1, clip1)[0], scores[0], 1e-4, 1e-5));
    // Boxes are what a detection model scores.
    QVERIFY_EXCEPTION_THROWN(net->forward(x), std::logic_error);
  }

  // PySlowFast counts a detection model's FLOPs on one box; so does the summary.
  void summaryRunsOneBox() {
    const auto m = models::summarizeModel(tinyAva("SLOW_8x8_R50_SHORT"), true);
    QCOMPARE(m.output_shape, (std::vector<int64_t>{1, 5}));
    QVERIFY(m.macs > 0);
  }

  void otherModelsRefuseDetection() {
    auto cls = models::buildVideoNet(tinyAva("SLOW_8x8_R50_SHORT", {"DETECTION.ENABLE", "False"}));
    QVERIFY(!cls->detection());
    QVERIFY_EXCEPTION_THROWN(cls->forward(clips(tinyAva("SLOW_8x8_R50_SHORT"), 1), someBoxes()),
                             std::logic_error);
    const auto x3d = testsupport::loadConfigOrDie(testsupport::repoConfig("Kinetics/X3D_XS.yaml"),
                                                  {"DETECTION.ENABLE", "True", "NUM_GPUS", "0"});
    QVERIFY_EXCEPTION_THROWN(models::buildVideoNet(x3d), std::invalid_argument);
  }
};

QTEST_GUILESS_MAIN(TestResNetRoIHead)
#include "tst_resnetroihead.moc"
