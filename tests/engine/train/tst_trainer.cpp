#include <QtTest>

#include <QTemporaryDir>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "configfile/ConfigLoader.h"
#include "data/DemoDataGenerator.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardWriter.h"
#include "train/Tester.h"
#include "train/Trainer.h"

using namespace amp;

class TestTrainer : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::string data_;

  config::Config demoConfig(const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> ov = {"DATA.PATH_TO_DATA_DIR",
                                   data_,
                                   "DATA.PATH_PREFIX",
                                   data_,
                                   "OUTPUT_DIR",
                                   out,
                                   "TRAIN.BATCH_SIZE",
                                   "4",
                                   "SOLVER.MAX_EPOCH",
                                   "1",
                                   "DATA_LOADER.NUM_WORKERS",
                                   "1",
                                   "X3D.DIM_C5",
                                   "32",
                                   "LOG_PERIOD",
                                   "1"};
    ov.insert(ov.end(), extra.begin(), extra.end());
    auto r = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml", ov);
    if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
    return r.config;
  }

 private slots:
  void initTestCase() {
    data_ = dir_.path().toStdString() + "/data";
    data::DemoDataOptions o;
    o.out_dir = data_;
    o.clips_per_class = 2;  // 16 train clips: 4 steps of 4
    o.frames = 24;
    data::DemoDataSummary s;
    std::string error;
    QVERIFY2(data::generateDemoData(o, s, &error), error.c_str());
  }

  void runsAnEpochAndWritesTheRunDirectory() {
    const std::string out = dir_.path().toStdString() + "/run-ok";
    // BN.USE_PRECISE_STATS: one recomputation before the epoch's checkpoint and validation, over
    // min(BN.NUM_BATCHES_PRECISE, batches per epoch) = 3 batches
    train::Trainer t(
        demoConfig(out, {"BN.USE_PRECISE_STATS", "True", "BN.NUM_BATCHES_PRECISE", "3"}),
        "demo.yaml");
    std::atomic<int> trainEvents{0}, valEvents{0}, testEvents{0}, preciseBn{0}, preciseBatches{0};
    t.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kTrain) ++trainEvents;
      if (e.kind == runlog::kind::kVal) ++valEvents;
      if (e.kind == runlog::kind::kTest) ++testEvents;
      if (e.kind == runlog::kind::kEvent && e.name == "precise_bn") {
        ++preciseBn;
        preciseBatches = static_cast<int>(e.value("batches").value_or(-1));
      }
    });
    std::string error;
    QVERIFY2(t.start(&error), error.c_str());
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Finished);
    QCOMPARE(trainEvents.load(), 4);
    QCOMPARE(valEvents.load(), 1);
    QCOMPARE(testEvents.load(),
             1);  // TEST.ENABLE (the demo's True): the multi-view test ends the run
    QCOMPARE(preciseBn.load(), 1);
    QCOMPARE(preciseBatches.load(), 3);
    runlog::RunDirectory run(out);
    auto meta = run.readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, runlog::RunStatus::Finished);
    QCOMPARE(meta->precision, std::string("bf16"));  // auto on the CPU
    QVERIFY(std::filesystem::exists(run.configPath()));
    const auto events = runlog::MetricsReader::readAll(run.metricsPath());
    std::vector<std::int64_t> steps;
    for (const auto& e : events)
      if (e.kind == runlog::kind::kTrain) {
        steps.push_back(e.step);
        for (const char* key :
             {"loss", "lr", "loss_scale", "grad_norm", "top1_err", "clips_per_s", "mem_rss_bytes"})
          QVERIFY2(e.value(key), key);
        QVERIFY(std::isfinite(*e.value("loss")));
      }
    QCOMPARE(steps, (std::vector<std::int64_t>{1, 2, 3, 4}));
    QVERIFY(std::filesystem::exists(
        out + "/checkpoints/checkpoint_epoch_00001.pyth"));  // TRAIN.CHECKPOINT_PERIOD 1
  }

  void stopTakesEffectWithinAnIteration() {
    const std::string out = dir_.path().toStdString() + "/run-stop";
    train::Trainer t(demoConfig(out, {"SOLVER.MAX_EPOCH", "50"}), "demo.yaml");
    std::atomic<int> steps{0};
    t.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kTrain && ++steps == 2) t.stop();
    });
    std::string error;
    QVERIFY(t.start(&error));
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Stopped);
    QCOMPARE(steps.load(), 2);  // no further step after the request
    QCOMPARE(runlog::RunDirectory(out).readMetadata()->status, runlog::RunStatus::Stopped);
    // The stop saved where it was: 2 of the first epoch's 4 steps.
    QVERIFY(
        std::filesystem::exists(out + "/checkpoints/checkpoint_epoch_00000_step_00000002.pyth"));
  }

  void resumeAfterStopContinuesTheStepsAndTheLog() {
    const std::string out = dir_.path().toStdString() + "/run-resume";
    {
      train::Trainer t(demoConfig(out, {"SOLVER.MAX_EPOCH", "2"}), "demo.yaml");
      std::atomic<int> steps{0};
      t.setEventSink([&](const runlog::MetricEvent& e) {
        if (e.kind == runlog::kind::kTrain && ++steps == 6) t.stop();  // inside the second epoch
      });
      std::string error;
      QVERIFY(t.start(&error));
      t.wait();
      QCOMPARE(t.state(), train::TrainerState::Stopped);
    }
    train::Trainer t(demoConfig(out, {"SOLVER.MAX_EPOCH", "2"}),
                     "demo.yaml");  // TRAIN.AUTO_RESUME is on
    std::vector<std::int64_t> resumedSteps;
    std::vector<runlog::MetricEvent> vals;
    t.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kTrain) resumedSteps.push_back(e.step);
      if (e.kind == runlog::kind::kVal) vals.push_back(e);
    });
    std::string error;
    QVERIFY(t.start(&error));
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Finished);
    QCOMPARE(resumedSteps, (std::vector<std::int64_t>{7, 8}));  // the same count, not from 1
    QCOMPARE(vals.size(), std::size_t{1});
    QCOMPARE(vals[0].epoch, 2.0);

    // Started again after its end, the run trains nothing and, as PySlowFast's train_net, evaluates
    // its last checkpoint once: the same errors, at the last step and epoch.
    {
      train::Trainer again(demoConfig(out, {"SOLVER.MAX_EPOCH", "2"}), "demo.yaml");
      std::vector<runlog::MetricEvent> trained, validated;
      again.setEventSink([&](const runlog::MetricEvent& e) {
        if (e.kind == runlog::kind::kTrain) trained.push_back(e);
        if (e.kind == runlog::kind::kVal) validated.push_back(e);
      });
      QVERIFY(again.start(&error));
      again.wait();
      QCOMPARE(again.state(), train::TrainerState::Finished);
      QVERIFY(trained.empty());
      QCOMPARE(validated.size(), std::size_t{1});
      QCOMPARE(validated[0].step, std::int64_t{8});
      QCOMPARE(validated[0].epoch, 2.0);
      QCOMPARE(validated[0].values.at("top1_err"), vals[0].values.at("top1_err"));
      QCOMPARE(validated[0].values.at("loss"), vals[0].values.at("loss"));
    }
    std::vector<std::int64_t> logged;
    bool sawResumed = false;
    for (const auto& e : runlog::MetricsReader::readAll(runlog::RunDirectory(out).metricsPath())) {
      if (e.kind == runlog::kind::kTrain) logged.push_back(e.step);
      if (e.kind == runlog::kind::kEvent && e.name == "resumed" && e.step == 6) sawResumed = true;
    }
    QVERIFY(sawResumed);
    QCOMPARE(logged,
             (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));  // one log, no duplicates
    QCOMPARE(runlog::RunDirectory(out).readMetadata()->status, runlog::RunStatus::Finished);
  }

  // Multigrid long cycles: two phases (4 frames at batch 8 with sub batch norm in 2 splits, then
  // the full 8 frames at batch 4), the schedule's learning rates, a checkpoint and an evaluation
  // at each phase end; a run stopped at the shape change resumes into the right phase and
  // continues bit-exactly as the run that was not stopped.
  void multigridLongCycleChangesShapesAndResumesExactly() {
    const std::vector<std::string> mg = {"MULTIGRID.LONG_CYCLE",
                                         "True",
                                         "MULTIGRID.LONG_CYCLE_FACTORS",
                                         "[[0.5, 1], [1, 1]]",
                                         "MULTIGRID.BN_BASE_SIZE",
                                         "4",
                                         "MULTIGRID.EPOCH_FACTOR",
                                         "1.0",
                                         "SOLVER.LR_POLICY",
                                         "steps_with_relative_lrs",
                                         "SOLVER.STEPS",
                                         "[0, 2]",
                                         "SOLVER.LRS",
                                         "[1, 0.1]",
                                         "SOLVER.MAX_EPOCH",
                                         "3",
                                         "SOLVER.WARMUP_EPOCHS",
                                         "0",
                                         "TEST.ENABLE",
                                         "False"};
    struct Seen {
      std::vector<runlog::MetricEvent> shapes, train, val;
      std::int64_t totalSteps = 0;
    };
    auto run = [&](const std::string& out, Seen& seen, bool stopAtSecondShape) {
      train::Trainer t(demoConfig(out, mg), "demo.yaml");
      t.setEventSink([&](const runlog::MetricEvent& e) {
        if (e.kind == runlog::kind::kTrain) seen.train.push_back(e);
        if (e.kind == runlog::kind::kVal) seen.val.push_back(e);
        if (e.kind == runlog::kind::kEvent && e.name == "shape_change") {
          seen.shapes.push_back(e);
          if (stopAtSecondShape && e.value("phase").value_or(0) > 0) t.stop();
        }
      });
      std::string error;
      if (!t.start(&error)) qFatal("%s", error.c_str());
      t.wait();
      seen.totalSteps = t.progress().totalSteps();
      return t.state();
    };
    const std::string whole = dir_.path().toStdString() + "/run-mg",
                      split = dir_.path().toStdString() + "/run-mg-stop";
    Seen a;
    QCOMPARE(run(whole, a, false), train::TrainerState::Finished);
    // Phase 0 (epochs 0-1): 4 frames, batch 8 = 2 steps of the 16 clips, 2 sub-BN splits; phase 1
    // is empty; the fine-tune phase (epoch 2) at the full shape: batch 4, 4 steps.
    QCOMPARE(a.shapes.size(), size_t(2));
    QCOMPARE(*a.shapes[0].value("frames"), 4.0);
    QCOMPARE(*a.shapes[0].value("crop"), 64.0);
    QCOMPARE(*a.shapes[0].value("batch_size"), 8.0);
    QCOMPARE(*a.shapes[0].value("bn_splits"), 2.0);
    QCOMPARE(*a.shapes[0].value("max_sampling_rate"), 4.0);  // DATA.SAMPLING_RATE 2 x (8 // 4)
    QCOMPARE(*a.shapes[1].value("frames"), 8.0);
    QCOMPARE(*a.shapes[1].value("batch_size"), 4.0);
    QCOMPARE(*a.shapes[1].value("bn_splits"), 1.0);
    QCOMPARE(a.shapes[1].step, std::int64_t{4});
    QCOMPARE(a.train.size(), size_t(8));
    QCOMPARE(a.totalSteps, std::int64_t{8});  // the phases' own steps per epoch, not 3 epochs x 4
    for (const auto& shape : a.shapes)
      QCOMPARE(*shape.value("run_steps"), 8.0);  // what a launched run's progress reads
    // SOLVER.LRS rewritten: GAMMA^stage x B = 2 in phase 0, 0.1 in the fine-tune phase.
    QVERIFY(std::abs(*a.train[0].value("lr") - 0.012) < 1e-12);
    QVERIFY(std::abs(*a.train[7].value("lr") - 0.0006) < 1e-12);
    QCOMPARE(a.val.size(), size_t(3));  // MULTIGRID.EVAL_FREQ 3: each epoch of these short phases
    for (int e : {1, 2, 3})
      QVERIFY(std::filesystem::exists(whole + "/checkpoints/checkpoint_epoch_0000" +
                                      std::to_string(e) + ".pyth"));
    // The run directory keeps the config as written, not the rewritten one.
    const auto saved = config::ConfigLoader().loadFile(runlog::RunDirectory(whole).configPath());
    QVERIFY(saved.ok());
    QCOMPARE(saved.config.getInt("SOLVER.MAX_EPOCH"), std::int64_t{3});
    QCOMPARE(saved.config.getIntList("DATA.TRAIN_JITTER_SCALES"),
             (std::vector<std::int64_t>{64, 72}));
    QVERIFY(saved.config.getBool("MULTIGRID.LONG_CYCLE"));

    Seen b1, b2;
    QCOMPARE(run(split, b1, true), train::TrainerState::Stopped);
    QCOMPARE(b1.train.size(), size_t(4));
    QCOMPARE(run(split, b2, false), train::TrainerState::Finished);
    QCOMPARE(b2.shapes.size(), size_t(1));  // resumed straight into the fine-tune phase
    QCOMPARE(*b2.shapes[0].value("frames"), 8.0);
    QCOMPARE(b2.train.size(), size_t(4));
    QCOMPARE(b2.totalSteps, std::int64_t{8});
    // The log's time runs on across the restart: it counts the run's seconds, not the process's.
    QVERIFY(b2.train.front().time_s > b1.train.back().time_s);
    for (size_t i = 0; i < 4; ++i) {
      QCOMPARE(b2.train[i].step, a.train[4 + i].step);
      QCOMPARE(*b2.train[i].value("loss"), *a.train[4 + i].value("loss"));  // bit-exact
    }
    QCOMPARE(*b2.val.back().value("top1_err"), *a.val.back().value("top1_err"));
    QCOMPARE(*b2.val.back().value("loss"), *a.val.back().value("loss"));
  }

  // Multigrid short cycles on one device: iterations cycle through crops 32, 45 and 64
  // (SHORT_CYCLE_FACTORS 0.5, 0.7071 of 64) with 4x, 2x and 1x the batch of 2 clips.
  void multigridShortCycleCyclesBatchesAndCrops() {
    const std::string out = dir_.path().toStdString() + "/run-mg-short";
    train::Trainer t(demoConfig(out, {"MULTIGRID.SHORT_CYCLE", "True", "TRAIN.BATCH_SIZE", "2",
                                      "TEST.ENABLE", "False"}),
                     "demo.yaml");
    std::vector<int> clips;
    std::string message;
    t.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kTrain)
        clips.push_back(
            static_cast<int>(std::lround(*e.value("clips_per_s") * *e.value("iter_time_s"))));
      if (e.kind == runlog::kind::kEvent && e.name == "shape_change") message = e.message;
    });
    std::string error;
    QVERIFY2(t.start(&error), error.c_str());
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Finished);
    QCOMPARE(clips,
             (std::vector<int>{8, 4, 2}));  // 14 of the 16 clips; the next batch of 8 does not fit
    QVERIFY2(message.find("short cycle crop:batch 32:8 45:4 64:2") != std::string::npos,
             message.c_str());
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
    std::ifstream list(data_ + "/val.csv");
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

  void learnsTheDirectionOfMotion() {
    // The demo's recipe on a two-class slice of its data (moving right vs moving left, 240 train
    // clips): nothing but the direction of motion tells them apart, and 120 steps must beat
    // chance (50%) clearly. Measured: 0-5% validation error.
    const std::string data = dir_.path().toStdString() + "/lr-data";
    data::DemoDataOptions o;
    o.out_dir = data;
    o.clips_per_class = 30;
    o.seed = 11;
    data::DemoDataSummary summary;
    std::string error;
    QVERIFY2(data::generateDemoData(o, summary, &error), error.c_str());
    for (const char* split : {"train", "val"}) {  // keep labels 0 and 1
      std::ifstream in(data + "/" + split + ".csv");
      std::string all, line;
      while (std::getline(in, line))
        if (line.size() > 2 &&
            (line.substr(line.size() - 2) == " 0" || line.substr(line.size() - 2) == " 1"))
          all += line + "\n";
      std::ofstream(data + "/" + split + ".csv") << all;
    }
    const std::string out = dir_.path().toStdString() + "/run-learn";
    train::Trainer t(demoConfig(out, {"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data,
                                      "MODEL.NUM_CLASSES", "2", "TRAIN.BATCH_SIZE", "8",
                                      "SOLVER.MAX_EPOCH", "16", "X3D.DIM_C5", "256",
                                      "DATA_LOADER.NUM_WORKERS", "2", "TRAIN.EVAL_PERIOD", "4"}),
                     "demo.yaml");
    std::vector<double> losses, valErrors;
    t.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind == runlog::kind::kEpoch) losses.push_back(*e.value("loss"));
      if (e.kind == runlog::kind::kVal) valErrors.push_back(*e.value("top1_err"));
    });
    QVERIFY(t.start(&error));
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Finished);
    QCOMPARE(losses.size(), size_t(16));
    qInfo("epoch losses %.3f -> %.3f, val top-1 errors %.1f %.1f %.1f %.1f", losses.front(),
          losses.back(), valErrors[0], valErrors[1], valErrors[2], valErrors[3]);
    QVERIFY(losses.back() < 0.6 * losses.front());
    QVERIFY2(valErrors.back() <= 25.0, std::to_string(valErrors.back()).c_str());
  }

  void aBrokenDatasetFailsWithAReason() {
    const std::string out = dir_.path().toStdString() + "/run-fail";
    train::Trainer t(demoConfig(out, {"DATA.PATH_TO_DATA_DIR", "/nowhere"}), "demo.yaml");
    std::string error;
    QVERIFY(t.start(&error));
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Failed);
    QVERIFY2(t.error().find("/nowhere") != std::string::npos, t.error().c_str());
    auto meta = runlog::RunDirectory(out).readMetadata();
    QCOMPARE(meta->status, runlog::RunStatus::Failed);
    QCOMPARE(meta->error, t.error());
  }

  // The run's config.yaml (what `train --cfg OUTPUT_DIR/config.yaml` and the Runs dock rerun)
  // that cannot be written fails the run with its path before any step, instead of a run whose
  // recorded config is missing.
  void anUnwritableConfigYamlFailsTheRun() {
    const std::string out = dir_.path().toStdString() + "/run-config-in-the-way";
    std::filesystem::create_directories(out + "/config.yaml/in-the-way");
    train::Trainer t(demoConfig(out), "demo.yaml");
    std::string error;
    QVERIFY(t.start(&error));
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Failed);
    QVERIFY2(t.error().find(out + "/config.yaml") != std::string::npos, t.error().c_str());
    QCOMPARE(t.progress().step, std::int64_t{0});
    const auto meta = runlog::RunDirectory(out).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, runlog::RunStatus::Failed);
  }

  void aLibTorchErrorIsOneMessage() {
    // One clip through the batch-normalised X3D head fails inside LibTorch (the validator refuses
    // this config; set here behind its back): the run says LibTorch's message, not its backtrace.
    const std::string out = dir_.path().toStdString() + "/run-torch-error";
    config::Config c = demoConfig(out);
    c.setOrThrow("TRAIN.BATCH_SIZE", 1);
    train::Trainer t(c, "demo.yaml");
    std::string error;
    QVERIFY(t.start(&error));
    t.wait();
    QCOMPARE(t.state(), train::TrainerState::Failed);
    QVERIFY2(t.error().find("Expected more than 1 value per channel") != std::string::npos,
             t.error().c_str());
    QVERIFY2(
        t.error().find("frame #") == std::string::npos && t.error().find('\n') == std::string::npos,
        t.error().c_str());
    QCOMPARE(runlog::RunDirectory(out).readMetadata()->error, t.error());
  }

  // PySlowFast tasks the studio does not run are refused at start naming the key, before the run
  // directory is created, instead of training a different task.
  void otherTasksAreRefusedAtStart_data() {
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<QString>("key");
    QTest::newRow("detection") << QStringList{"DETECTION.ENABLE", "True"} << "DETECTION.ENABLE";
    QTest::newRow("multi-label") << QStringList{"DATA.MULTI_LABEL", "True"} << "DATA.MULTI_LABEL";
    QTest::newRow("ssv2") << QStringList{"TRAIN.DATASET", "ssv2"} << "TRAIN.DATASET: 'ssv2'";
    QTest::newRow("charades test")
        << QStringList{"TEST.DATASET", "charades"} << "TEST.DATASET: 'charades'";
    QTest::newRow("ssl") << QStringList{"TASK", "ssl"} << "TASK: 'ssl'";
    QTest::newRow("masked") << QStringList{"MASK.ENABLE", "True"} << "MASK.ENABLE";
    QTest::newRow("contrastive") << QStringList{"MODEL.MODEL_NAME", "ContrastiveModel"}
                                 << "MODEL.MODEL_NAME: 'ContrastiveModel'";
    QTest::newRow("maskfeat") << QStringList{"MODEL.MODEL_NAME", "MaskMViT"}
                              << "MODEL.MODEL_NAME: 'MaskMViT'";
  }
  void otherTasksAreRefusedAtStart() {
    QFETCH(QStringList, overrides);
    QFETCH(QString, key);
    const std::string out = dir_.path().toStdString() + "/run-task";
    std::vector<std::string> ov;
    for (const auto& o : overrides) ov.push_back(o.toStdString());
    train::Trainer t(demoConfig(out, ov), "demo.yaml");
    std::string error;
    QVERIFY(!t.start(&error));
    QVERIFY2(QString::fromStdString(error).startsWith(key), error.c_str());
    QVERIFY(!std::filesystem::exists(out));
    QVERIFY(!train::unsupportedTask(demoConfig(out, {"TRAIN.DATASET", "Kinetics"}),
                                    true));  // PySlowFast capitalises
  }

  void unwritableOutputIsRefusedAtStart() {
    train::Trainer t(demoConfig("/proc/ampstudio-no"), "demo.yaml");
    std::string error;
    QVERIFY(!t.start(&error));
    QVERIFY2(error.rfind("OUTPUT_DIR: ", 0) == 0, error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestTrainer)
#include "tst_trainer.moc"
