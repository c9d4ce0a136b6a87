// The Trainer on PySlowFast's self-supervised evaluation recipes (configs/contrastive_ssl's
// linear_k400 and finetune_ucf): MODEL.FROZEN_BN through epochs, validations and precise BN;
// TASK ssl_eval_*: checkpoint names, the start from the pre-training run's checkpoint in the same
// folder (epoch reset, TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN) and auto-resume of the run's own.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>

#include "checkpoint/TorchFile.h"
#include "models/VideoModels.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "train/Checkpoint.h"
#include "train/Trainer.h"

#include "support/DemoTraining.h"

using namespace amp;
namespace fs = std::filesystem;

namespace {

using State = std::map<std::string, torch::Tensor>;

State modelState(const std::string& path) {
  State out;
  const auto ck = checkpoint::loadTorchFile(path).toGenericDict();
  for (const auto& e : ck.at("model_state").toGenericDict())
    out[e.key().toStringRef()] = e.value().toTensor();
  return out;
}

// The weights of a pre-training run as PySlowFast's contrastive model keeps them: the video
// model under "backbone.".
struct PreTrainedModel : torch::nn::Module {
  explicit PreTrainedModel(std::shared_ptr<models::VideoNetImpl> net) {
    register_module("backbone", std::move(net));
  }
};

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

  // linear_k400's start: OUTPUT_DIR holds the pre-training run's ssl_checkpoint_epoch_00005.pyth
  // (names under "backbone."); TASK ssl_eval_k400 with TRAIN.AUTO_RESUME loads it with the
  // prefix cleared and the epoch count reset, trains from epoch 0 and writes its own
  // ssl_eval_k400_checkpoint_* files, which the test and the next start use.
  void sslEvaluationStartsFromThePreTrainingCheckpoint() {
    const std::string out = dir_.path().toStdString() + "/run-linear-k400";
    const std::vector<std::string> recipe = {
        "TASK", "ssl_eval_k400", "TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN", "[\"backbone.\"]",
        // lr 0 and frozen batch norm: the weights after training are exactly the ones loaded
        "SOLVER.LR_POLICY", "steps_with_relative_lrs", "SOLVER.STEPS", "[0]", "SOLVER.LRS", "[0.0]",
        "SOLVER.WARMUP_EPOCHS", "0.0", "MODEL.FROZEN_BN", "True", "TRAIN.MIXED_PRECISION", "False"};
    const auto cfg = demoConfig(out, recipe);
    {
      torch::manual_seed(123);  // not the trainer's initialisation
      auto net = models::buildVideoNet(cfg);
      torch::NoGradGuard noGrad;
      for (auto& b : net->named_buffers())
        if (b.key().find("running_mean") != std::string::npos) b.value().normal_();
      PreTrainedModel pre(net);
      train::CheckpointInfo info;
      info.epochs_done = 5;
      info.task = "ssl";
      QCOMPARE(
          fs::path(train::saveCheckpoint(out, pre, nullptr, nullptr, info)).filename().string(),
          std::string("ssl_checkpoint_epoch_00005.pyth"));
    }
    const std::string preTrained = out + "/checkpoints/ssl_checkpoint_epoch_00005.pyth";
    {
      train::Trainer t(cfg, "linear.yaml");
      std::string error;
      QVERIFY2(t.start(&error), error.c_str());
      t.wait();
      QVERIFY2(t.state() == train::TrainerState::Finished, t.error().c_str());
    }
    const std::string own = out + "/checkpoints/ssl_eval_k400_checkpoint_epoch_00001.pyth";
    QVERIFY(fs::exists(own));
    QVERIFY(!fs::exists(out + "/checkpoints/checkpoint_epoch_00001.pyth"));
    const State loaded = modelState(own), saved = modelState(preTrained);
    QCOMPARE(loaded.size(), saved.size());
    for (const auto& [key, value] : saved) {
      QVERIFY2(key.rfind("backbone.", 0) == 0, key.c_str());
      const std::string name = key.substr(9);
      QVERIFY2(loaded.count(name) && torch::equal(loaded.at(name), value), name.c_str());
    }
    auto events = runlog::MetricsReader::readAll(runlog::RunDirectory(out).metricsPath());
    const auto* init = findEvent(events, "initialised");
    QVERIFY(init);
    QVERIFY2(init->message.find(preTrained) != std::string::npos &&
                 init->message.find("epoch count reset") != std::string::npos,
             init->message.c_str());
    const runlog::MetricEvent* first = nullptr;
    for (const auto& e : events)
      if (!first && e.kind == runlog::kind::kTrain) first = &e;
    QVERIFY(first);
    QCOMPARE(first->step, std::int64_t(1));
    QVERIFY(first->epoch <= 1.0);  // in epoch 0, not 5
    const auto* testing = findEvent(events, "testing");
    QVERIFY(testing);
    QVERIFY2(testing->message.find(own) != std::string::npos, testing->message.c_str());

    // Started again for a second epoch: the run's own checkpoint, not the pre-training one.
    {
      auto more = recipe;
      more.insert(more.end(), {"SOLVER.MAX_EPOCH", "2", "TEST.ENABLE", "False"});
      train::Trainer t(demoConfig(out, more), "linear.yaml");
      std::string error;
      QVERIFY2(t.start(&error), error.c_str());
      t.wait();
      QVERIFY2(t.state() == train::TrainerState::Finished, t.error().c_str());
    }
    events = runlog::MetricsReader::readAll(runlog::RunDirectory(out).metricsPath());
    const runlog::MetricEvent* resumed = nullptr;
    for (const auto& e : events)
      if (e.kind == runlog::kind::kEvent && e.name == "resumed") resumed = &e;
    QVERIFY(resumed);
    QVERIFY2(resumed->message.find(own) != std::string::npos, resumed->message.c_str());
    QVERIFY(fs::exists(out + "/checkpoints/ssl_eval_k400_checkpoint_epoch_00002.pyth"));
  }

  // PySlowFast's train_net resumes without TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN (it clears names
  // of the initial checkpoint only): a pattern that occurs in the run's own names must not break
  // its resume.
  void resumingKeepsTheRunsOwnNames() {
    const std::string out = dir_.path().toStdString() + "/run-clear-resume";
    for (const char* epochs : {"1", "2"}) {
      train::Trainer t(demoConfig(out, {"TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN", "[\"s1.\"]",
                                        "SOLVER.MAX_EPOCH", epochs, "TEST.ENABLE", "False"}),
                       "demo.yaml");
      std::string error;
      QVERIFY2(t.start(&error), error.c_str());
      t.wait();
      QVERIFY2(t.state() == train::TrainerState::Finished, t.error().c_str());
    }
    QVERIFY(fs::exists(out + "/checkpoints/checkpoint_epoch_00002.pyth"));
  }

  // OUTPUT_DIR holds checkpoints, but none of the pre-training (PySlowFast's load_checkpoint
  // gets None there and fails): the run stops naming TASK and the file it looked for.
  void sslEvaluationWithoutAPreTrainingCheckpointFailsSaying() {
    const std::string out = dir_.path().toStdString() + "/run-no-ssl";
    fs::create_directories(out + "/checkpoints");
    std::ofstream(out + "/checkpoints/checkpoint_epoch_00003.pyth") << "another run's";
    train::Trainer t(demoConfig(out, {"TASK", "ssl_eval_k400", "TEST.ENABLE", "False"}),
                     "linear.yaml");
    std::string error;
    QVERIFY2(t.start(&error), error.c_str());
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Failed);
    QVERIFY2(t.error().find("TASK") != std::string::npos &&
                 t.error().find("ssl_checkpoint_epoch_*.pyth") != std::string::npos,
             t.error().c_str());
  }
};

QTEST_GUILESS_MAIN(TestTrainerSsl)
#include "tst_trainerssl.moc"
