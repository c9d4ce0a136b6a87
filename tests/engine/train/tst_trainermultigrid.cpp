// The Trainer under MULTIGRID.*: long cycles (shapes, schedule, resume at a phase change) and
// short cycles.
#include <QtTest>

#include <cmath>
#include <filesystem>

#include "configfile/ConfigLoader.h"
#include "runlog/RunDirectory.h"
#include "train/Trainer.h"

#include "support/Configs.h"
#include "support/DemoTraining.h"

using namespace amp;

class TestTrainerMultigrid : public testsupport::DemoTrainingSuite {
  Q_OBJECT

 private slots:
  void initTestCase() {
    std::string error;
    QVERIFY2(makeDemoData(&error), error.c_str());
  }

  // Multigrid long cycles: two phases (4 frames at batch 8 with sub batch norm in 2 splits, then
  // the full 8 frames at batch 4), the schedule's learning rates, a checkpoint and an evaluation
  // at each phase end; a run stopped at the shape change resumes into the right phase and
  // continues bit-exactly as the run that was not stopped.
  void multigridLongCycleChangesShapesAndResumesExactly() {
    const auto mg = testsupport::joined(
        testsupport::tinyLongCycle(),
        {"SOLVER.LR_POLICY", "steps_with_relative_lrs", "SOLVER.STEPS", "[0, 2]", "SOLVER.LRS",
         "[1, 0.1]", "SOLVER.MAX_EPOCH", "3", "SOLVER.WARMUP_EPOCHS", "0", "TEST.ENABLE", "False"});
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
};

QTEST_GUILESS_MAIN(TestTrainerMultigrid)
#include "tst_trainermultigrid.moc"
