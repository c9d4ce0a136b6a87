// The Trainer on PySlowFast's self-supervised evaluation recipes (configs/contrastive_ssl's
// linear_k400 and finetune_ucf): MODEL.FROZEN_BN through epochs, validations and precise BN.
#include <QtTest>

#include <map>

#include "checkpoint/TorchFile.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "train/Trainer.h"

#include "support/DemoTraining.h"

using namespace amp;

namespace {

using State = std::map<std::string, torch::Tensor>;

State modelState(const std::string& path) {
  State out;
  const auto ck = checkpoint::loadTorchFile(path).toGenericDict();
  for (const auto& e : ck.at("model_state").toGenericDict())
    out[e.key().toStringRef()] = e.value().toTensor();
  return out;
}

const runlog::MetricEvent* findEvent(const std::vector<runlog::MetricEvent>& events,
                                     const std::string& name) {
  for (const auto& e : events)
    if (e.kind == runlog::kind::kEvent && e.name == name) return &e;
  return nullptr;
}

}  // namespace

class TestTrainerSsl : public testsupport::DemoTrainingSuite {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    std::string error;
    QVERIFY2(makeDemoData(&error), error.c_str());
  }

  // PySlowFast's frozen_bn_stats at every epoch's start: over two epochs, with a validation and
  // a precise-BN pass between them (each switches the model's mode), the running statistics stay
  // at their initial 0 and 1 and count no batch, while the batch norms' weights and biases learn.
  void frozenBatchNormKeepsItsStatisticsAndLearnsItsWeights() {
    auto finalState = [&](const std::string& name, const char* frozen) {
      const std::string out = dir_.path().toStdString() + "/" + name;
      train::Trainer t(
          demoConfig(out, {"MODEL.FROZEN_BN", frozen, "SOLVER.MAX_EPOCH", "2",
                           "BN.USE_PRECISE_STATS", "True", "BN.NUM_BATCHES_PRECISE", "2",
                           "TRAIN.MIXED_PRECISION", "False", "TEST.ENABLE", "False"}),
          "demo.yaml");
      std::string error;
      if (!t.start(&error)) qFatal("%s", error.c_str());
      t.wait();
      if (t.state() != train::TrainerState::Finished) qFatal("%s", t.error().c_str());
      const auto events = runlog::MetricsReader::readAll(runlog::RunDirectory(out).metricsPath());
      return std::make_pair(modelState(out + "/checkpoints/checkpoint_epoch_00002.pyth"),
                            findEvent(events, "precise_bn") != nullptr);
    };
    const auto [frozen, frozenPrecise] = finalState("run-frozen-bn", "True");
    int norms = 0, learnedWeights = 0, learnedBiases = 0;
    for (const auto& [key, value] : frozen) {
      const auto dot = key.rfind(".running_mean");
      if (dot == std::string::npos) continue;
      const std::string bn = key.substr(0, dot);
      ++norms;
      QVERIFY2(torch::equal(value, torch::zeros_like(value)), key.c_str());
      QVERIFY2(torch::equal(frozen.at(bn + ".running_var"), torch::ones_like(value)), bn.c_str());
      QCOMPARE(frozen.at(bn + ".num_batches_tracked").item<std::int64_t>(), std::int64_t(0));
      learnedWeights += !torch::equal(frozen.at(bn + ".weight"), torch::ones_like(value));
      learnedBiases += !torch::equal(frozen.at(bn + ".bias"), torch::zeros_like(value));
    }
    QVERIFY(norms > 10);
    QVERIFY2(learnedWeights > norms / 2 && learnedBiases > norms / 2,
             qPrintable(QString("%1 weights, %2 biases of %3 batch norms moved")
                            .arg(learnedWeights)
                            .arg(learnedBiases)
                            .arg(norms)));
    QVERIFY(!frozenPrecise);  // nothing left in training mode for precise BN to recompute

    const auto [plain, plainPrecise] = finalState("run-live-bn", "False");
    QVERIFY(plainPrecise);
    int moved = 0;
    for (const auto& [key, value] : plain)
      if (key.find(".running_mean") != std::string::npos)
        moved += !torch::equal(value, torch::zeros_like(value));
    QCOMPARE(moved, norms);
  }
};

QTEST_GUILESS_MAIN(TestTrainerSsl)
#include "tst_trainerssl.moc"
