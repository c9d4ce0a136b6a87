// The Trainer's recipe options: mixup, multi-view test clip counts, TensorBoard, the head
// activation at evaluation, gradient accumulation and non-finite losses.
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardReader.h"
#include "runlog/TensorBoardWriter.h"
#include "train/Tester.h"
#include "train/Trainer.h"

#include "support/DemoTraining.h"

using namespace amp;

class TestTrainerRecipes : public testsupport::DemoTrainingSuite {
  Q_OBJECT

 private slots:
  void initTestCase() {
    std::string error;
    QVERIFY2(makeDemoData(&error), error.c_str());
  }

  // MIXUP.*: PROB 0 without smoothing trains as without mixup (same draws of everything
  // else); PROB 1 changes every step's loss; the run log says what it does.
  void mixupChangesTheBatchesAndTheTargets() {
    auto losses = [&](const std::string& name, std::vector<std::string> ov) -> std::vector<double> {
      const std::string out = dir_.path().toStdString() + "/" + name;
      ov.insert(ov.end(), {"TEST.ENABLE", "False", "TRAIN.MIXED_PRECISION", "False"});
      train::Trainer t(demoConfig(out, ov), "demo.yaml");
      std::vector<double> l;
      t.setEventSink([&](const runlog::MetricEvent& e) {
        if (e.kind == runlog::kind::kTrain && std::isfinite(*e.value("top1_err")))
          l.push_back(*e.value("loss"));
      });
      std::string error;
      if (!t.start(&error)) qFatal("%s", error.c_str());
      t.wait();
      if (t.state() != train::TrainerState::Finished)
        qFatal("%s: %s", name.c_str(), t.error().c_str());
      return l;
    };
    const auto plain = losses("run-nomix", {});
    const auto off = losses("run-mix-off", {"MIXUP.ENABLE", "True", "MIXUP.PROB", "0.0",
                                            "MIXUP.LABEL_SMOOTH_VALUE", "0.0"});
    const auto on = losses("run-mix-on", {"MIXUP.ENABLE", "True"});
    QCOMPARE(plain.size(), size_t(4));
    QCOMPARE(off.size(), plain.size());
    for (size_t i = 0; i < off.size();
         ++i)  // soft one-hot cross entropy vs. the class-index form: rounding only
      QVERIFY2(std::abs(off[i] - plain[i]) < 1e-5,
               qPrintable(QString("%1 vs %2").arg(off[i]).arg(plain[i])));
    QCOMPARE(on.size(), plain.size());
    for (size_t i = 0; i < on.size(); ++i) QVERIFY(on[i] != plain[i]);
    std::ifstream log(runlog::RunDirectory(dir_.path().toStdString() + "/run-mix-on").logPath());
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    QVERIFY2(text.find("mixup: ALPHA 0.8") != std::string::npos, text.c_str());
    // A batch of one clip cannot be mixed with its reverse: refused at start, naming the key.
    train::Trainer one(
        demoConfig(dir_.path().toStdString() + "/run-mix-1",
                   {"MIXUP.ENABLE", "True", "TRAIN.BATCH_SIZE", "1", "X3D.BN_LIN5", "False"}),
        "demo.yaml");
    std::string error;
    QVERIFY(!one.start(&error));
    QVERIFY2(error.rfind("MIXUP.ENABLE", 0) == 0, error.c_str());
  }

  // TEST.NUM_TEMPORAL_CLIPS: one multi-view test per entry, as test_net.py.
  void testsOncePerTemporalClipCount() {
    const std::string out = dir_.path().toStdString() + "/run-clips";
    const auto c =
        demoConfig(out, {"TEST.NUM_TEMPORAL_CLIPS", "[1, 3]", "TRAIN.MIXED_PRECISION", "False"});
    train::Trainer t(c, "demo.yaml");
    std::vector<std::pair<double, double>> tests;  // temporal clips, views per video
    t.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kTest)
        tests.emplace_back(*e.value("temporal_clips"), *e.value("views_per_video"));
    });
    std::string error;
    QVERIFY2(t.start(&error), error.c_str());
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Finished);
    const double crops = static_cast<double>(c.getInt("TEST.NUM_SPATIAL_CROPS"));
    QCOMPARE(tests, (std::vector<std::pair<double, double>>{{1.0, crops}, {3.0, 3 * crops}}));
    QCOMPARE(train::temporalClipCounts(demoConfig(out)),
             std::vector<int>{static_cast<int>(c.getInt("TEST.NUM_ENSEMBLE_VIEWS"))});
    QVERIFY_EXCEPTION_THROWN(
        train::temporalClipCounts(demoConfig(out, {"TEST.NUM_TEMPORAL_CLIPS", "[2, 0]"})),
        std::invalid_argument);
  }

  // TENSORBOARD.ENABLE: PySlowFast's tags at its steps, the metrics log's values; a resumed start
  // adds a file; a folder that cannot be made stops only the files.
  void tensorBoardGetsPySlowFastsScalarsAtItsSteps() {
    const std::string out = dir_.path().toStdString() + "/run-tensorboard";
    const std::vector<std::string> keys = {
        "TENSORBOARD.ENABLE", "True",  "TRAIN.MIXED_PRECISION", "False",
        "TEST.ENABLE",        "False", "TRAIN.BATCH_SIZE",      "3"};
    auto train = [&](int epochs) {
      auto ov = keys;
      ov.insert(ov.end(), {"SOLVER.MAX_EPOCH", std::to_string(epochs)});
      train::Trainer t(demoConfig(out, ov), "demo.yaml");
      std::string error;
      QVERIFY2(t.start(&error), error.c_str());
      t.wait();
      QCOMPARE(t.state(), train::TrainerState::Finished);
    };
    train(1);
    const std::string tbDir = out + "/runs-kinetics";  // PySlowFast's default: runs-<TRAIN.DATASET>
    if (const auto unsupported = runlog::tensorBoardSupport()) {
      // A build configured with AMPSTUDIO_WITH_TENSORBOARD OFF: the run trains and says why it
      // wrote none.
      QVERIFY(!std::filesystem::exists(tbDir));
      int said = 0;
      for (const auto& e : runlog::MetricsReader::readAll(runlog::RunDirectory(out).metricsPath()))
        said += e.kind == runlog::kind::kEvent && e.name == "tensorboard" &&
                e.message.find(*unsupported) != std::string::npos;
      QCOMPARE(said, 1);
      return;
    }
    train(2);  // resumes (TRAIN.AUTO_RESUME) for its second epoch: a second events file, as
               // SummaryWriter makes
    std::vector<std::string> files;
    for (const auto& f : std::filesystem::directory_iterator(tbDir))
      files.push_back(f.path().string());
    std::sort(files.begin(), files.end());
    QCOMPARE(files.size(), std::size_t{2});
    std::map<std::pair<std::string, std::int64_t>, double>
        tb;  // (tag, step) -> value over both files
    for (const auto& f : files) {
      const auto read = runlog::readTensorBoardFile(f);
      QVERIFY2(read.error.empty(), read.error.c_str());
      QVERIFY(read.events.size() > 1);
      QCOMPARE(read.events.front().file_version, std::string("brain.Event:2"));
      for (const auto& e : read.events)
        for (const auto& s : e.scalars)
          QVERIFY2(tb.emplace(std::make_pair(s.tag, e.step), s.value).second, s.tag.c_str());
    }

    // Training: one value per tag and step, PySlowFast's global_step = data_size * cur_epoch +
    // cur_iter (5 steps of 3 of the 16 clips an epoch: the metrics log's step - 1), equal to its
    // values as floats.
    const auto events = runlog::MetricsReader::readAll(runlog::RunDirectory(out).metricsPath());
    int trainSteps = 0;
    std::vector<double> valTop1;
    for (const auto& e : events) {
      if (e.kind == runlog::kind::kVal) valTop1.push_back(*e.value("top1_err"));
      if (e.kind != runlog::kind::kTrain) continue;
      ++trainSteps;
      for (const auto& [tag, key] :
           std::vector<std::pair<std::string, std::string>>{{"Train/loss", "loss"},
                                                            {"Train/lr", "lr"},
                                                            {"Train/Top1_err", "top1_err"},
                                                            {"Train/Top5_err", "top5_err"}}) {
        const auto it = tb.find({tag, e.step - 1});
        QVERIFY2(it != tb.end(), (tag + " at " + std::to_string(e.step - 1)).c_str());
        QCOMPARE(it->second, static_cast<double>(static_cast<float>(*e.value(key))));
      }
    }
    QCOMPARE(trainSteps, 10);
    QVERIFY(!tb.count({"AMP/loss_scale", 0}));  // FP32: no scaler, no loss scale
    // Validation: each batch's errors at len(val_loader) * cur_epoch + cur_iter; the batches
    // (TRAIN.BATCH_SIZE, as PySlowFast's validation loader: 5 of 3 of the 16 clips and one of 1)
    // pool to the epoch's error.
    QCOMPARE(valTop1.size(), std::size_t{2});
    std::ifstream list(dataDir() + "/val.csv");
    int clips = 0;
    for (std::string line; std::getline(list, line);) clips += !line.empty();
    const int batches = (clips + 2) / 3;
    for (int epoch = 0; epoch < 2; ++epoch) {
      double wrong = 0;
      for (int i = 0; i < batches; ++i) {
        const auto it = tb.find({"Val/Top1_err", std::int64_t{batches} * epoch + i});
        QVERIFY2(it != tb.end(), std::to_string(batches * epoch + i).c_str());
        QVERIFY(tb.count({"Val/Top5_err", std::int64_t{batches} * epoch + i}));
        wrong += it->second / 100.0 * (i + 1 < batches ? 3 : clips - 3 * (batches - 1));
      }
      QVERIFY2(std::abs(100.0 * wrong / clips - valTop1[epoch]) < 1e-3,
               std::to_string(100.0 * wrong / clips).c_str());
    }
    std::size_t tags = 0;
    for (const auto& [key, value] : tb) tags += key.first.rfind("Val/", 0) == 0;
    QCOMPARE(tags, std::size_t(2 * 2 * batches));

    // A folder that cannot be made (a file in the way): said once, and the run trains on.
    const std::string blocked = dir_.path().toStdString() + "/run-tensorboard-blocked";
    std::filesystem::create_directories(blocked);
    std::ofstream(blocked + "/tb") << "a file";
    auto ov = keys;
    ov.insert(ov.end(), {"TENSORBOARD.LOG_DIR", "tb/events"});
    train::Trainer t(demoConfig(blocked, ov), "demo.yaml");
    std::string error;
    QVERIFY2(t.start(&error), error.c_str());
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Finished);
    int said = 0, steps = 0;
    for (const auto& e :
         runlog::MetricsReader::readAll(runlog::RunDirectory(blocked).metricsPath())) {
      steps += e.kind == runlog::kind::kTrain;
      if (e.kind == runlog::kind::kEvent && e.name == "tensorboard") {
        ++said;
        QVERIFY2(e.message.find(blocked + "/tb/events") != std::string::npos, e.message.c_str());
      }
    }
    QCOMPARE(said, 1);
    QCOMPARE(steps, 5);

    // With a gradient scaler (AMP.SCALER on: bfloat16 on the CPU) the loss scale too, every step.
    const std::string scaled = dir_.path().toStdString() + "/run-tensorboard-scaler";
    train::Trainer s(
        demoConfig(scaled, {"TENSORBOARD.ENABLE", "True", "TRAIN.MIXED_PRECISION", "True",
                            "AMP.SCALER", "on", "TEST.ENABLE", "False", "TRAIN.BATCH_SIZE", "3"}),
        "demo.yaml");
    QVERIFY2(s.start(&error), error.c_str());
    s.wait();
    QCOMPARE(s.state(), train::TrainerState::Finished);
    std::vector<std::string> scaledFiles;
    for (const auto& f : std::filesystem::directory_iterator(scaled + "/runs-kinetics"))
      scaledFiles.push_back(f.path().string());
    QCOMPARE(scaledFiles.size(), std::size_t{1});
    std::map<std::int64_t, double> scale;
    for (const auto& e : runlog::readTensorBoardFile(scaledFiles.front()).events)
      for (const auto& v : e.scalars)
        if (v.tag == "AMP/loss_scale") scale[e.step] = v.value;
    QCOMPARE(scale.size(), std::size_t{5});
    for (const auto& e : runlog::MetricsReader::readAll(runlog::RunDirectory(scaled).metricsPath()))
      if (e.kind == runlog::kind::kTrain)
        QCOMPARE(scale.at(e.step - 1),
                 static_cast<double>(static_cast<float>(*e.value("loss_scale"))));
  }

  // MODEL.HEAD_ACT acts at evaluation only (training is the same): the validation loss is the
  // cross entropy of the softmax probabilities or of the logits (none), the same number for an X3D
  // whose head sees one position; a sigmoid head logs no loss, and the same accuracy.
  void validationLossFollowsTheHeadActivation() {
    auto runWith = [&](const char* act) {
      const std::string out = dir_.path().toStdString() + "/run-head-" + act;
      train::Trainer t(demoConfig(out, {"MODEL.HEAD_ACT", act, "TRAIN.MIXED_PRECISION", "False",
                                        "TEST.ENABLE", "False"}),
                       "demo.yaml");
      std::string error;
      if (!t.start(&error)) qFatal("%s", error.c_str());
      t.wait();
      std::optional<runlog::MetricEvent> val;
      for (const auto& e : runlog::MetricsReader::readAll(runlog::RunDirectory(out).metricsPath()))
        if (e.kind == runlog::kind::kVal) val = e;
      if (!val) qFatal("no validation in %s", out.c_str());
      return *val;
    };
    const auto softmax = runWith("softmax"), none = runWith("none"), sigmoid = runWith("sigmoid");
    QVERIFY(softmax.value("loss") && none.value("loss"));
    QVERIFY2(
        std::abs(*softmax.value("loss") - *none.value("loss")) <= 1e-4 * *softmax.value("loss"),
        (std::to_string(*softmax.value("loss")) + " vs " + std::to_string(*none.value("loss")))
            .c_str());
    QVERIFY(*softmax.value("loss") > 0);
    QVERIFY(!sigmoid.value("loss"));
    QCOMPARE(none.value("top1_err"), softmax.value("top1_err"));
    QCOMPARE(sigmoid.value("top1_err"), softmax.value("top1_err"));
  }

  void gradientAccumulationTakesFewerLargerSteps() {
    const std::string out = dir_.path().toStdString() + "/run-accum";
    train::Trainer t(demoConfig(out, {"SOLVER.GRAD_ACCUM_STEPS", "2"}), "demo.yaml");
    std::vector<long> clipsPerStep;  // written on the engine thread, read after wait()
    t.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kTrain)
        clipsPerStep.push_back(std::lround(*e.value("clips_per_s") * *e.value("iter_time_s")));
    });
    std::string error;
    QVERIFY(t.start(&error));
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Finished);
    QCOMPARE(clipsPerStep,
             (std::vector<long>{8, 8}));  // 16 clips: two optimizer steps of 2 x 4 clips
  }

  void nonFiniteLossStopsFp32AndRepeatedSkipsStopAmp() {
    // A learning rate of 3e38 (near float32's largest) blows the weights up in the first update;
    // the next loss is NaN.
    const std::string fp32 = dir_.path().toStdString() + "/run-nan-fp32";
    train::Trainer a(demoConfig(fp32, {"TRAIN.MIXED_PRECISION", "False", "SOLVER.OPTIMIZING_METHOD",
                                       "sgd", "SOLVER.BASE_LR", "3e38", "SOLVER.WARMUP_START_LR",
                                       "3e38", "SOLVER.MAX_EPOCH", "3"}),
                     "demo.yaml");
    std::string error;
    QVERIFY(a.start(&error));
    a.wait();
    QCOMPARE(a.state(), train::TrainerState::Failed);
    QVERIFY2(a.error().rfind("diverged: the loss is", 0) == 0 &&
                 a.error().find("FP32") != std::string::npos,
             a.error().c_str());
    QCOMPARE(runlog::RunDirectory(fp32).readMetadata()->status, runlog::RunStatus::Failed);

    const std::string amp = dir_.path().toStdString() + "/run-nan-amp";
    train::Trainer b(demoConfig(amp, {"AMP.SCALER", "on", "AMP.MAX_SKIPPED_STEPS", "3",
                                      "SOLVER.OPTIMIZING_METHOD", "sgd", "SOLVER.BASE_LR", "3e38",
                                      "SOLVER.WARMUP_START_LR", "3e38", "SOLVER.MAX_EPOCH", "3"}),
                     "demo.yaml");
    std::atomic<int> backoffs{0}, named{0};
    b.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kEvent && e.name == "scaler_backoff") {
        ++backoffs;
        // The weights are NaN after the first update, so every gradient is: the first layer in
        // backward order is the head's projection.
        if (e.message.find("; first in head.projection") != std::string::npos &&
            e.layer == "head.projection")
          ++named;
      }
    });
    QVERIFY(b.start(&error));
    b.wait();
    QCOMPARE(b.state(), train::TrainerState::Failed);
    QVERIFY2(b.error().find("AMP.MAX_SKIPPED_STEPS 3") != std::string::npos, b.error().c_str());
    QCOMPARE(backoffs.load(), 4);  // skipped steps are normal under AMP until the limit
    QCOMPARE(named.load(), 4);

    // bfloat16 runs no scaler: a NaN loss has nothing to skip either and stops the run, saying why.
    const std::string bf16 = dir_.path().toStdString() + "/run-nan-bf16";
    train::Trainer d(demoConfig(bf16, {"AMP.DTYPE", "bfloat16", "AMP.SCALER", "auto",
                                       "SOLVER.OPTIMIZING_METHOD", "sgd", "SOLVER.BASE_LR", "3e38",
                                       "SOLVER.WARMUP_START_LR", "3e38", "SOLVER.MAX_EPOCH", "3"}),
                     "demo.yaml");
    QVERIFY(d.start(&error));
    d.wait();
    QCOMPARE(d.state(), train::TrainerState::Failed);
    QVERIFY2(d.error().rfind("diverged: the loss is", 0) == 0 &&
                 d.error().find("autocast without a loss scaler") != std::string::npos,
             d.error().c_str());
  }
};

QTEST_GUILESS_MAIN(TestTrainerRecipes)
#include "tst_trainerrecipes.moc"
