#include <QtTest>

#include "configfile/ConfigLoader.h"
#include "multigrid/Schedule.h"
#include "multigrid/TrainingSteps.h"

#include "support/Configs.h"

using namespace amp;

namespace {

config::Config load(const char* file, const std::vector<std::string>& overrides = {}) {
  return testsupport::loadConfigOrDie(std::string(AMPSTUDIO_TEST_DATA_DIR) + "/multigrid/" + file,
                                      overrides);
}

// The demo's stepwise multigrid pair, written out: X3D-sized clips of 8 frames at 64 px, batch 8
// on one CPU process, SOLVER.STEPS [0, 6], MAX_EPOCH 8, the default long-cycle factors.
config::Config demo(const std::vector<std::string>& more = {}) {
  std::vector<std::string> o = {"NUM_GPUS",
                                "0",
                                "DIST.CPU_PROCESSES",
                                "1",
                                "TRAIN.BATCH_SIZE",
                                "8",
                                "DATA.NUM_FRAMES",
                                "8",
                                "DATA.TRAIN_CROP_SIZE",
                                "64",
                                "DATA.TRAIN_JITTER_SCALES",
                                "[64, 72]",
                                "DATA.SAMPLING_RATE",
                                "2",
                                "SOLVER.LR_POLICY",
                                "steps_with_relative_lrs",
                                "SOLVER.STEPS",
                                "[0, 6]",
                                "SOLVER.LRS",
                                "[1, 0.1]",
                                "SOLVER.MAX_EPOCH",
                                "8"};
  o.insert(o.end(), more.begin(), more.end());
  auto r = config::ConfigLoader().loadText("", "demo.yaml", ".", o);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}

multigrid::StepShape shape(std::int64_t clips, std::int64_t frames, std::int64_t crop,
                           const char* bn = "batchnorm", std::int64_t count = 1) {
  multigrid::StepShape s;
  s.clips = clips;
  s.frames = frames;
  s.crop = crop;
  s.norm_type = bn;
  s.bn_count = count;
  return s;
}

// One phase's expected epochs and per-epoch steps per shape.
void checkPhase(const multigrid::PhaseSteps& p, int phase, std::int64_t start, std::int64_t end,
                const std::vector<multigrid::ShapeSteps>& perEpoch) {
  const QByteArray where = "phase " + QByteArray::number(phase);
  QVERIFY2(p.phase == phase, where);
  QVERIFY2(p.start_epoch == start && p.end_epoch == end,
           where + " epochs " + QByteArray::number(static_cast<qlonglong>(p.start_epoch)) + "-" +
               QByteArray::number(static_cast<qlonglong>(p.end_epoch)));
  QVERIFY2(p.per_epoch.size() == perEpoch.size(),
           where + " shapes " + QByteArray::number(static_cast<int>(p.per_epoch.size())));
  for (size_t i = 0; i < perEpoch.size(); ++i) {
    QVERIFY2(p.per_epoch[i].shape == perEpoch[i].shape,
             where + " shape " + p.per_epoch[i].shape.text().c_str());
    QVERIFY2(p.per_epoch[i].steps == perEpoch[i].steps,
             where + " " + p.per_epoch[i].shape.text().c_str() + ": " +
                 QByteArray::number(static_cast<qlonglong>(p.per_epoch[i].steps)));
  }
}

}  // namespace

// Expected steps worked out by hand from the schedules tst_multigridschedule checks and from the
// loader's epoch (ShortCycleBatchSampler's batches in cycle order, drop_last, DistributedSampler's
// padding to a multiple of the world size).
class TestTrainingSteps : public QObject {
  Q_OBJECT
 private slots:
  // Long cycles of the demo, 800 training clips, one process. Phases (multigrid schedule):
  //   0: epochs 0-6, batch 64 of 2 x 45, sub_batchnorm 8  -> 800 // 64 = 12 steps an epoch
  //   1: 6-9,  32 of 4 x 45, sub_batchnorm 4               -> 25
  //   2: 9-10, 16 of 4 x 64, sub_batchnorm 2               -> 50
  //   3: 10-11 and the fine-tune phase 11-12, 8 of 8 x 64   -> 100 each
  //   6 x 12 + 3 x 25 + 50 + 100 + 100 = 397 steps (what bench multigrid's runs counted);
  //   the plain run: 8 epochs x 800 // 8 = 800.
  void demoLongCycles() {
    const auto c = demo({"MULTIGRID.LONG_CYCLE", "True"});
    const auto s = multigrid::buildSchedule(c);
    const auto mg = multigrid::multigridRunSteps(c, s, 800);
    QCOMPARE(mg.samples_per_process, std::int64_t{800});
    QCOMPARE(mg.phases.size(), size_t{5});
    checkPhase(mg.phases[0], 0, 0, 6, {{shape(64, 2, 45, "sub_batchnorm", 8), 12}});
    checkPhase(mg.phases[1], 1, 6, 9, {{shape(32, 4, 45, "sub_batchnorm", 4), 25}});
    checkPhase(mg.phases[2], 2, 9, 10, {{shape(16, 4, 64, "sub_batchnorm", 2), 50}});
    checkPhase(mg.phases[3], 3, 10, 11, {{shape(8, 8, 64), 100}});
    checkPhase(mg.phases[4], 4, 11, 12, {{shape(8, 8, 64), 100}});
    QCOMPARE(mg.totalSteps(), std::int64_t{397});
    const auto plain = multigrid::plainRunSteps(c, 800);
    QCOMPARE(plain.phases.size(), size_t{1});
    checkPhase(plain.phases[0], -1, 0, 8, {{shape(8, 8, 64), 100}});
    QCOMPARE(plain.totalSteps(), std::int64_t{800});

    // The shapes to time: each once, largest batch first; the plain run's is the last phases'.
    const auto shapes = multigrid::distinctShapes({&plain, &mg});
    QCOMPARE(shapes.size(), size_t{4});
    QVERIFY(shapes[0] == shape(64, 2, 45, "sub_batchnorm", 8) && shapes[3] == shape(8, 8, 64));
    QCOMPARE(QString::fromStdString(shapes[0].text()), QString("64 x 2 x 45, sub_batchnorm 8"));
    QCOMPARE(QString::fromStdString(shapes[3].text()), QString("8 x 8 x 64, batchnorm"));

    // Priced per shape: 0.3 s a step with sub-batch norm, 0.2 s without.
    auto price = [](const multigrid::StepShape& sh) {
      return sh.norm_type == "sub_batchnorm" ? 0.3 : 0.2;
    };
    QVERIFY(qFuzzyCompare(multigrid::RunSteps::phaseSeconds(mg.phases[1], price), 3 * 25 * 0.3));
    QVERIFY(qFuzzyCompare(mg.seconds(price), (72 + 75 + 50) * 0.3 + 200 * 0.2));
    QVERIFY(qFuzzyCompare(plain.seconds(price), 800 * 0.2));
  }

  // Short cycles alone: the schedule multiplies MAX_EPOCH by EPOCH_FACTOR (8 x 1.5 = 12) and keeps
  // the configured batch norm. Crops round(0.5 x 64) = 32, round(0.7071 x 64) = 45 and 64 with
  // batches 8 x round((64/32)^2) = 32, 8 x round((64/45.25)^2) = 16 and 8: 56 clips a cycle,
  // 800 // 56 = 14 cycles (784 clips), the 16 left are less than the next 32: 42 steps an epoch,
  // 504 over the run (bench multigrid's short-cycle run took 504).
  void demoShortCyclesKeepTheConfiguredBatchNorm() {
    const auto c = demo({"MULTIGRID.SHORT_CYCLE", "True"});
    const auto mg = multigrid::multigridRunSteps(c, multigrid::buildSchedule(c), 800);
    QCOMPARE(mg.phases.size(), size_t{1});
    checkPhase(mg.phases[0], 0, 0, 12,
               {{shape(32, 8, 32), 14}, {shape(16, 8, 45), 14}, {shape(8, 8, 64), 14}});
    QCOMPARE(mg.totalSteps(), std::int64_t{504});
    const auto sub = demo(
        {"MULTIGRID.SHORT_CYCLE", "True", "BN.NORM_TYPE", "sub_batchnorm", "BN.NUM_SPLITS", "2"});
    const auto subSteps = multigrid::multigridRunSteps(sub, multigrid::buildSchedule(sub), 800);
    QVERIFY(subSteps.phases[0].per_epoch[0].shape == shape(32, 8, 32, "sub_batchnorm", 2));
    // Two training clips per video (AUG.NUM_SAMPLE 2): the same steps, twice the clips in each.
    const auto two = demo({"MULTIGRID.SHORT_CYCLE", "True", "AUG.NUM_SAMPLE", "2"});
    const auto twoSteps = multigrid::multigridRunSteps(two, multigrid::buildSchedule(two), 800);
    checkPhase(twoSteps.phases[0], 0, 0, 12,
               {{shape(64, 8, 32), 14}, {shape(32, 8, 45), 14}, {shape(16, 8, 64), 14}});
  }

  // A short-cycle batch multiplier that rounds to 0 is one clip, as the loader clamps it:
  // SHORT_CYCLE_FACTORS [0.5, 1.0] in phase 0 (S = round(64 x 0.7071) = 45, 64 clips): crop 32
  // takes 64 x round((45/32)^2) = 128 clips, crop 64 takes 64 x round((45/64)^2 = 0.49) = 0 -> 1,
  // the phase's own 45 takes 64: 193 a cycle, 800 // 193 = 4 cycles (772), 28 left < 128.
  void zeroShortCycleBatchIsOneClip() {
    const auto c = demo({"MULTIGRID.LONG_CYCLE", "True", "MULTIGRID.SHORT_CYCLE", "True",
                         "MULTIGRID.SHORT_CYCLE_FACTORS", "[0.5, 1.0]"});
    const auto mg = multigrid::multigridRunSteps(c, multigrid::buildSchedule(c), 800);
    checkPhase(mg.phases[0], 0, mg.phases[0].start_epoch, mg.phases[0].end_epoch,
               {{shape(128, 2, 32, "sub_batchnorm", 8), 4},
                {shape(1, 2, 64, "sub_batchnorm", 8), 4},
                {shape(64, 2, 45, "sub_batchnorm", 8), 4}});
  }

  // sync_batchnorm over more devices than the machine trains with becomes plain batch norm (as
  // phaseConfig does): BN_BASE_SIZE 16 on one process gives phase 3's 8 clips a factor of 0.5, a
  // sync group of 2 > 1. Over two CPU processes with BN_BASE_SIZE 8, phase 3 has 4 clips per
  // process, a group of 2 that the machine has: it stays.
  void syncBatchNormAsThePhaseTrainsIt() {
    const auto one = demo({"MULTIGRID.LONG_CYCLE", "True", "MULTIGRID.BN_BASE_SIZE", "16"});
    const auto s1 = multigrid::buildSchedule(one);
    QCOMPARE(QString::fromStdString(s1.phases[3].bn.norm_type), QString("sync_batchnorm"));
    const auto r1 = multigrid::multigridRunSteps(one, s1, 800);
    checkPhase(r1.phases[3], 3, 10, 11, {{shape(8, 8, 64), 100}});
    const auto two = demo(
        {"MULTIGRID.LONG_CYCLE", "True", "MULTIGRID.BN_BASE_SIZE", "8", "DIST.CPU_PROCESSES", "2"});
    const auto r2 = multigrid::multigridRunSteps(two, multigrid::buildSchedule(two), 800);
    QCOMPARE(r2.samples_per_process, std::int64_t{400});
    checkPhase(r2.phases[3], 3, 10, 11, {{shape(4, 8, 64, "sync_batchnorm", 2), 100}});
  }

  // PySlowFast's Kinetics SlowFast 8x8 stepwise multigrid, 8 GPUs: 240,000 clips are 30,000 per
  // process. Phase 0 (epochs 0-73): short-cycle batches 128 at 112 px, 64 at 158, 64 at 158 (the
  // short factor 0.7071 and the phase's own crop both give 158): 256 clips a cycle, 30000 // 256 =
  // 117 cycles (29,952), the 48 left are less than 128: 117 steps of 128 x 8 x 112 and 234 of
  // 64 x 8 x 158, all with sub_batchnorm 8. Phase 3 (142-158): 32 at 112, 16 at 158, 8 at 224
  // with 32 frames, 56 a cycle: 535 cycles (29,960), then one more batch of 32 (8 left): 536, 535,
  // 535. The plain run: 239 epochs of 30000 // 8 = 3750 steps.
  void kineticsShortAndLongCycles() {
    const auto c = load("SLOWFAST_8x8_R50_stepwise_multigrid.yaml");
    const auto s = multigrid::buildSchedule(c);
    const auto mg = multigrid::multigridRunSteps(c, s, 240000);
    QCOMPARE(mg.samples_per_process, std::int64_t{30000});
    QCOMPARE(mg.phases.size(), size_t{13});
    checkPhase(mg.phases[0], 0, 0, 73,
               {{shape(128, 8, 112, "sub_batchnorm", 8), 117},
                {shape(64, 8, 158, "sub_batchnorm", 8), 234}});
    checkPhase(mg.phases[3], 3, 142, 158,
               {{shape(32, 32, 112), 536}, {shape(16, 32, 158), 535}, {shape(8, 32, 224), 535}});
    // 100 more clips per process (240,800 / 8 = 30,100): 148 left after the 117 cycles, so one
    // more batch of 128 fits and the next 64 does not.
    const auto more = multigrid::multigridRunSteps(c, s, 240800);
    checkPhase(more.phases[0], 0, 0, 73,
               {{shape(128, 8, 112, "sub_batchnorm", 8), 118},
                {shape(64, 8, 158, "sub_batchnorm", 8), 234}});
    // The plain run of the same config (the cycles off): 8 clips of 32 x 224 per GPU.
    auto plainCfg = load("SLOWFAST_8x8_R50_stepwise_multigrid.yaml",
                         {"MULTIGRID.LONG_CYCLE", "False", "MULTIGRID.SHORT_CYCLE", "False"});
    const auto plain = multigrid::plainRunSteps(plainCfg, 240000);
    checkPhase(plain.phases[0], -1, 0, 239, {{shape(8, 32, 224), 3750}});
    QCOMPARE(plain.totalSteps(), std::int64_t{239 * 3750});
    // Every shape the two runs train at: phase 0's two, phase 1's 64 x 16 x 112 and 32 x 16 x 158
    // (sub_batchnorm 4), phase 2's 64 x 16 x 112, 32 x 16 x 158 and 16 x 16 x 224 (sub_batchnorm
    // 2), phase 3's three with batchnorm (the plain run's among them): 10.
    QCOMPARE(multigrid::distinctShapes({&plain, &mg}).size(), size_t{10});
  }

  // DistributedSampler pads the list to a multiple of the world size: 800 clips over 3
  // processes are 267 each. A phase that rounds to no epochs is not trained (SSv2's phase 7).
  void paddingAndEmptyPhases() {
    QCOMPARE(multigrid::samplesPerProcess(800, 3), std::int64_t{267});
    QCOMPARE(multigrid::samplesPerProcess(800, 1), std::int64_t{800});
    QCOMPARE(multigrid::samplesPerProcess(7, 8), std::int64_t{1});
    const auto c = load("SLOWFAST_16x8_R50_multigrid.yaml");
    const auto s = multigrid::buildSchedule(c);
    QCOMPARE(s.phases.size(), size_t{9});
    const auto mg = multigrid::multigridRunSteps(c, s, 168913);
    QCOMPARE(mg.phases.size(), size_t{8});
    for (const auto& p : mg.phases)
      QVERIFY2(p.phase != 7 && p.epochs() > 0, QByteArray::number(p.phase));
    QCOMPARE(mg.samples_per_process, std::int64_t{(168913 + 7) / 8});
    // Too few clips for a single batch: no steps (the command says so).
    QCOMPARE(multigrid::plainRunSteps(demo(), 7).totalSteps(), std::int64_t{0});
  }
};

QTEST_GUILESS_MAIN(TestTrainingSteps)
#include "tst_trainingsteps.moc"
