// MODEL.DETACH_FINAL_FC, PySlowFast's linear probe: the ResNet and MViT heads detach the
// projection's input, so an optimizer step (weight decay and momentum on) moves the projection
// and nothing else; without it the backbone learns too.
#include <QtTest>

#include <map>

#include "models/VideoModels.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"

#include "support/Configs.h"

using namespace amp;

namespace {

// A tiny Slow R50 or MViTv2-S on the CPU, SGD with momentum and weight decay, in FP32.
config::Config tinyModel(const QString& model, bool detach) {
  const std::vector<std::string> solver = {"SOLVER.OPTIMIZING_METHOD",
                                           "sgd",
                                           "SOLVER.MOMENTUM",
                                           "0.9",
                                           "SOLVER.WEIGHT_DECAY",
                                           "1e-3",
                                           "TRAIN.MIXED_PRECISION",
                                           "False",
                                           "NUM_GPUS",
                                           "0",
                                           "MODEL.NUM_CLASSES",
                                           "5",
                                           "MODEL.DETACH_FINAL_FC",
                                           detach ? "True" : "False"};
  if (model == "mvit")
    return testsupport::loadConfigOrDie(
        testsupport::repoConfig("Kinetics/MVITv2_S_16x4.yaml"),
        testsupport::joined(testsupport::joined(testsupport::tinyMViT(), solver),
                            {"MVIT.DROPPATH_RATE", "0.0"}));
  return testsupport::loadConfigOrDie(
      testsupport::repoConfig("Kinetics/SLOW_8x8_R50.yaml"),
      testsupport::joined({"RESNET.WIDTH_PER_GROUP", "8", "DATA.TRAIN_CROP_SIZE", "64",
                           "DATA.NUM_FRAMES", "4", "TRAIN.BATCH_SIZE", "4"},
                          solver));
}

// The names of the parameters one training step of `c`'s model changed.
std::vector<std::string> changedByOneStep(const config::Config& c) {
  torch::manual_seed(3);
  auto net = models::buildVideoNet(c);
  auto optimizer = train::buildOptimizer(c, *net);
  train::setLearningRate(*optimizer, 0.5);
  train::TrainStep step(c, *net, *optimizer, train::PrecisionPolicy::forced(c, "fp32"));
  train::trainingMode(*net, c);
  std::map<std::string, torch::Tensor> before;
  for (const auto& p : net->named_parameters()) before[p.key()] = p.value().detach().clone();
  const auto out = step.run({train::randomMicroBatch(c, 4, torch::kCPU, false)});
  if (!out.stepped) qFatal("the step was skipped");
  std::vector<std::string> changed;
  for (const auto& p : net->named_parameters())
    if (!torch::equal(p.value(), before.at(p.key()))) changed.push_back(p.key());
  return changed;
}

}  // namespace

class TestLinearProbe : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { torch::set_num_threads(2); }

  void onlyTheProjectionLearns_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("slow") << "slow";
    QTest::newRow("mvit") << "mvit";
  }
  // Bit-identical, not close: the backbone gets no gradient at all, so the optimizer skips it
  // (no weight decay, no momentum), as PyTorch's does for a parameter whose grad is None.
  void onlyTheProjectionLearns() {
    QFETCH(QString, model);
    const auto changed = changedByOneStep(tinyModel(model, true));
    QCOMPARE(changed, (std::vector<std::string>{"head.projection.weight", "head.projection.bias"}));
  }

  void withoutItTheBackboneLearns_data() { onlyTheProjectionLearns_data(); }
  void withoutItTheBackboneLearns() {
    QFETCH(QString, model);
    const auto changed = changedByOneStep(tinyModel(model, false));
    const std::string first =
        model == "mvit" ? "patch_embed.proj.weight" : "s1.pathway0_stem.conv.weight";
    QVERIFY2(std::find(changed.begin(), changed.end(), first) != changed.end(), first.c_str());
    QVERIFY(changed.size() > 10);
  }
};

QTEST_APPLESS_MAIN(TestLinearProbe)
#include "tst_linearprobe.moc"
