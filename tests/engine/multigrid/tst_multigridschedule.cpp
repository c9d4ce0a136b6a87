#include <QtTest>

#include <cmath>
#include <limits>

#include <stdexcept>

#include "configfile/ConfigLoader.h"
#include "multigrid/Schedule.h"

#include "support/Configs.h"

using namespace amp;

namespace {

config::Config load(const char* file, const std::vector<std::string>& overrides = {}) {
  return testsupport::loadConfigOrDie(std::string(AMPSTUDIO_TEST_DATA_DIR) + "/multigrid/" + file,
                                      overrides);
}

config::Config fromOverrides(const std::vector<std::string>& overrides) {
  auto r = config::ConfigLoader().loadText("", "mg.yaml", ".", overrides);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}

const char* kKinetics = "SLOWFAST_8x8_R50_stepwise_multigrid.yaml";
const char* kSsv2 = "SLOWFAST_16x8_R50_multigrid.yaml";

// One expected phase row: stage, B, T, S, start, end, batch, per device, long-cycle sampling
// rate, BN type and its count (splits or sync devices), relative LR at the start.
struct Row {
  int stage;
  std::int64_t b, t, s, start, end, batch, perDevice, lcsr;
  const char* bn;
  std::int64_t bnCount;
  double lr;
};

void checkRows(const multigrid::Schedule& s, const std::vector<Row>& rows) {
  QCOMPARE(s.phases.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& p = s.phases[i];
    const auto& r = rows[i];
    const QByteArray where = "phase " + QByteArray::number(static_cast<int>(i));
    QVERIFY2(p.index == static_cast<int>(i) && p.lr_stage == r.stage, where);
    QVERIFY2(p.b == r.b && p.t == r.t && p.s == r.s, where);
    QVERIFY2(p.start_epoch == r.start && p.end_epoch == r.end, where);
    QVERIFY2(p.batch_size == r.batch && p.per_device_batch == r.perDevice, where);
    QVERIFY2(p.long_cycle_sampling_rate == r.lcsr && p.sampling_rate == 2, where);
    QVERIFY2(p.bn.norm_type == r.bn, where + " bn " + p.bn.norm_type.c_str());
    const std::int64_t count =
        p.bn.norm_type == "sub_batchnorm" ? p.bn.num_splits : p.bn.num_sync_devices;
    if (p.bn.norm_type != "batchnorm") QVERIFY2(count == r.bnCount, where);
    QVERIFY2(!p.lrs.empty() && qFuzzyCompare(p.lrs.front().relative_lr, r.lr), where);
    QVERIFY2(p.fine_tune == (i + 1 == rows.size()), where);
  }
}

void compareList(const std::vector<double>& got, const std::vector<double>& want) {
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    QVERIFY2(qFuzzyCompare(1 + got[i], 1 + want[i]), QByteArray::number(static_cast<int>(i)));
}

// The schedule's own checks, also where the config validator would object first.
std::string errorOf(const std::vector<std::string>& overrides) {
  try {
    multigrid::buildSchedule(config::ConfigLoader().loadText("", "mg.yaml", ".", overrides).config);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Expected values worked out by hand from slowfast/utils/multigrid.py (get_long_cycle_schedule,
// init_multigrid, update_long_cycle), multigrid_helper.py (ShortCycleBatchSampler) and
// kinetics.py (short-cycle crop and jitter scale); checked beforehand with plain python3.
class TestMultigridSchedule : public QObject {
  Q_OBJECT
 private slots:
  void pythonRounding() {
    QCOMPARE(multigrid::pyRound(358.5), std::int64_t{358});  // half to even, as Python's round
    QCOMPARE(multigrid::pyRound(85.5), std::int64_t{86});
    QCOMPARE(multigrid::pyRound(8.0397), std::int64_t{8});
    // No integer holds these: said as a config error, never cast (fuzzing found the cast).
    for (double v : {std::numeric_limits<double>::infinity(), std::nan(""), 1e300}) {
      bool thrown = false;
      try {
        (void)multigrid::pyRound(v);
      } catch (const std::invalid_argument& e) {
        thrown = QString(e.what()).startsWith("MULTIGRID.LONG_CYCLE_FACTORS: ");
      }
      QVERIFY2(thrown, std::to_string(v).c_str());
    }
    QCOMPARE(multigrid::pyRound(2.5000001), std::int64_t{3});
  }

  // Kinetics SLOWFAST_8x8_R50_stepwise_multigrid: T0 32, S0 224, TRAIN.BATCH_SIZE 64, 8 GPUs,
  // STEPS [0, 94, 154, 196], MAX_EPOCH 239, EPOCH_FACTOR 1.5, short and long cycles.
  //   default_size = 32 x 224^2 = 1605632
  //   long-cycle factors (0.25, .7071) (0.5, .7071) (0.5, 1) (1, 1) -> base (T, S):
  //     (8, 158) (16, 158) (16, 224) (32, 224)   [round(224 x 0.70711) = round(158.39) = 158]
  //   with short crops 224 x 0.5 = 112 and 224 x 0.70711 = 158.39 (not rounded there):
  //     B = round(default_size / (T S^2)):  T=8:  16, 8, 8 (1605632/(8x24964) = 8.04)  avg 32/3
  //                                          T=16 S=158: 8, 4, 4 avg 16/3;  T=16 S=224: 8, 4, 2 avg
  //                                          14/3 T=32: 4, 2, 1 avg 7/3;  sum avg = 23
  //   stage epochs 94, 60, 42 split by avg/23: stage 0: 94x(32/3)/23
  //   = 43.594, 21.797, 19.072, 9.536 iterations per shape = stage epochs / 23: (94+60+42)/23
  //   = 8.5217 -> iter_saving = 196/8.5217 = 5.75 fine-tune: (239 - 196) / 5.75 x 7/3 = 17.449
  //   epochs at (1, 32, 224) raw sum = 196 (every stage keeps its epochs) + 17.449 = 213.449 x =
  //   239 x 1.5 / 213.449 = 1.67956; cumulative epochs x x rounded (half to even):
  //     73.22 109.83 141.86 157.88 | 204.61 227.98 248.43 258.65 | 291.37 307.72 322.04 329.19 |
  //     358.5
  //     -> 73 110 142 158 | 205 228 248 259 | 291 308 322 329 | 358
  //   batch = B x 64, per device /8; BN: (B x 64 / 8) / 8 = B -> sub_batchnorm B splits, B=1
  //   batchnorm long-cycle sampling rate = 2 x (32 // T): T=8 -> 8, T=16 -> 4, T=32 -> 2 LRS =
  //   0.1^stage x B; the fine-tune phase starts at the repeated 0.01 and drops to 0.001 at
  //   STEPS[-1] = (329 + 358) // 2 = 343.
  void kineticsStepwise() {
    const auto s = multigrid::buildSchedule(load(kKinetics));
    QVERIFY(s.long_cycle && s.short_cycle);
    checkRows(s, {
                     {0, 8, 8, 158, 0, 73, 512, 64, 8, "sub_batchnorm", 8, 8.0},
                     {0, 4, 16, 158, 73, 110, 256, 32, 4, "sub_batchnorm", 4, 4.0},
                     {0, 2, 16, 224, 110, 142, 128, 16, 4, "sub_batchnorm", 2, 2.0},
                     {0, 1, 32, 224, 142, 158, 64, 8, 2, "batchnorm", 1, 1.0},
                     {1, 8, 8, 158, 158, 205, 512, 64, 8, "sub_batchnorm", 8, 0.8},
                     {1, 4, 16, 158, 205, 228, 256, 32, 4, "sub_batchnorm", 4, 0.4},
                     {1, 2, 16, 224, 228, 248, 128, 16, 4, "sub_batchnorm", 2, 0.2},
                     {1, 1, 32, 224, 248, 259, 64, 8, 2, "batchnorm", 1, 0.1},
                     {2, 8, 8, 158, 259, 291, 512, 64, 8, "sub_batchnorm", 8, 0.08},
                     {2, 4, 16, 158, 291, 308, 256, 32, 4, "sub_batchnorm", 4, 0.04},
                     {2, 2, 16, 224, 308, 322, 128, 16, 4, "sub_batchnorm", 2, 0.02},
                     {2, 1, 32, 224, 322, 329, 64, 8, 2, "batchnorm", 1, 0.01},
                     {3, 1, 32, 224, 329, 358, 64, 8, 2, "batchnorm", 1, 0.01},
                 });
    compareList(s.steps, {0, 73, 110, 142, 158, 205, 228, 248, 259, 291, 308, 322, 329, 343});
    compareList(s.lrs, {8, 4, 2, 1, 0.8, 0.4, 0.2, 0.1, 0.08, 0.04, 0.02, 0.01, 0.01, 0.001});
    QCOMPARE(s.max_epoch, std::int64_t{358});
    const auto& ft = s.phases.back();
    QCOMPARE(ft.lrs.size(), size_t{2});
    QCOMPARE(ft.lrs[1].from_epoch, 343.0);
    QVERIFY(qFuzzyCompare(ft.lrs[1].relative_lr, 0.001));
    // avg B per phase: 32/3, 16/3, 14/3, 7/3 (fine-tune 7/3).
    QVERIFY(qFuzzyCompare(s.phases[0].avg_b, 32.0 / 3));
    QVERIFY(qFuzzyCompare(s.phases[2].avg_b, 14.0 / 3));
    QVERIFY(qFuzzyCompare(s.iter_saving, 5.75));
    // Overall: epochs per phase / avg B, summed: 73/(32/3) + 37/(16/3) + 32/(14/3) + 16/(7/3)
    //   + 47/(32/3) + 23/(16/3) + 20/(14/3) + 11/(7/3) + 32/(32/3) + 17/(16/3) + 14/(14/3)
    //   + 7/(7/3) + 29/(7/3) = 69.830357; 239 / 69.830357 = 3.4225802.
    QVERIFY(qAbs(s.multigrid_iterations_epochs - 69.830357) < 1e-6);
    QVERIFY(qAbs(s.overall_saving - 3.4225802) < 1e-6);
    QVERIFY(s.notes.size() == 1);  // only the note that the configured LRS are replaced
  }

  // Short-cycle shapes of a phase: crops round(0.5 x 224) = 112, round(158.39) = 158, then the
  // phase's S; batch multipliers round((S / (f x 224))^2): S=158: (158/112)^2 = 1.99 -> 2,
  // (158/158.39)^2 = 0.995 -> 1; S=224: 4, 2. Jitter min 256 x crop / 224: 128, 181 (180.57), 256.
  void kineticsShortCycles() {
    const auto s = multigrid::buildSchedule(load(kKinetics));
    const auto& p0 = s.phases[0];  // (8, 8, 158), 64 clips per device
    QCOMPARE(p0.short_cycle.size(), size_t{3});
    QCOMPARE(p0.short_cycle[0].crop, std::int64_t{112});
    QCOMPARE(p0.short_cycle[0].batch_mult, std::int64_t{2});
    QCOMPARE(p0.short_cycle[0].schedule_b, std::int64_t{16});
    QCOMPARE(p0.short_cycle[1].crop, std::int64_t{158});
    QCOMPARE(p0.short_cycle[1].batch_mult, std::int64_t{1});
    QCOMPARE(p0.short_cycle[2].crop, std::int64_t{158});
    QCOMPARE(p0.short_cycle[2].schedule_b, std::int64_t{8});
    QCOMPARE(p0.jitter_min_scale, std::int64_t{181});
    const auto& p3 = s.phases[3];  // (1, 32, 224), 8 per device
    QCOMPARE(p3.short_cycle[0].batch_mult, std::int64_t{4});
    QCOMPARE(p3.short_cycle[1].batch_mult, std::int64_t{2});
    // Iterations cycle 0, 1, 2, 0 ... from the start of every epoch.
    auto st = multigrid::shortCycleStep(p3, 0);
    QVERIFY(st.cycle_index == 0 && st.crop == 112 && st.per_device_batch == 32 &&
            st.jitter_min_scale == 128);
    st = multigrid::shortCycleStep(p3, 1);
    QVERIFY(st.cycle_index == 1 && st.crop == 158 && st.per_device_batch == 16 &&
            st.jitter_min_scale == 181);
    st = multigrid::shortCycleStep(p3, 5);
    QVERIFY(st.cycle_index == 2 && st.crop == 224 && st.per_device_batch == 8 &&
            st.jitter_min_scale == 256);
    QCOMPARE(multigrid::shortCycleStep(p3, 6).cycle_index, 0);
    // len: 1000 clips / mean(32, 16, 8) = 1000 / 18.667 = 53.57 -> 53 (drop_last), 54.
    QCOMPARE(multigrid::iterationsPerEpoch(p3, 1000, true), std::int64_t{53});
    QCOMPARE(multigrid::iterationsPerEpoch(p3, 1000, false), std::int64_t{54});
    // Phases by epoch (get_current_long_cycle_shape): the first phase ending after the epoch.
    QCOMPARE(multigrid::phaseAtEpoch(s, 0).index, 0);
    QCOMPARE(multigrid::phaseAtEpoch(s, 72).index, 0);
    QCOMPARE(multigrid::phaseAtEpoch(s, 73).index, 1);
    QCOMPARE(multigrid::phaseAtEpoch(s, 357).index, 12);
    QCOMPARE(multigrid::phaseAtEpoch(s, 400).index, 12);
  }

  // is_eval_epoch with the schedule and EVAL_FREQ 3: phase 0 (0-73) every 73 // 3 + 1 = 25
  // epochs counted back from 72: 72, 47, 22; phase 1 (73-110): 37 // 3 + 1 = 13: 109, 96, 83.
  void kineticsEvalEpochs() {
    const auto s = multigrid::buildSchedule(load(kKinetics));
    std::vector<std::int64_t> got;
    for (std::int64_t e = 0; e < 110; ++e)
      if (multigrid::isPhaseEvalEpoch(s, e, 3, 10)) got.push_back(e);
    QCOMPARE(got, (std::vector<std::int64_t>{22, 47, 72, 83, 96, 109}));
    QVERIFY(multigrid::isPhaseEvalEpoch(s, 357, 3, 10));  // the last epoch
  }

  // SSv2 SLOWFAST_16x8_R50_multigrid: T0 64, S0 224, TRAIN.BATCH_SIZE 16, 8 GPUs,
  // STEPS [0, 14, 18], MAX_EPOCH 22.
  //   base (T, S): (16, 158) (32, 158) (32, 224) (64, 224); B and avg B as for Kinetics
  //   (default_size doubles with T0): 8, 4, 2, 1 and 32/3, 16/3, 14/3, 7/3, sum 23.
  //   stage 0 (14 epochs): 6.4928, 3.2464, 2.8406, 1.4203; stage 1 (4): 1.8551, 0.9275, 0.8116,
  //   0.4058 iter_saving = 18 / (18/23) = 5.75; fine-tune (22 - 18) / 5.75 x 7/3 = 1.6232 x = 22
  //   x 1.5 / (18 + 1.6232) = 1.68168; cumulative: 10.92 16.38 21.16 23.54 | 26.66 28.22 29.59
  //   30.27 | 33.0 -> 11 16 21 24 | 27 28 30 30 | 33: phase 7 rounds to nothing (30-30).
  //   BN: (B x 16 / 8) / 8 = B/4: B=8 sub 2, B=4 batchnorm, B=2 sync int(1/0.5) = 2, B=1 sync 4.
  //   STEPS[-1] = (30 + 33) // 2 = 31.
  void ssv2() {
    const auto s = multigrid::buildSchedule(load(kSsv2));
    checkRows(s, {
                     {0, 8, 16, 158, 0, 11, 128, 16, 8, "sub_batchnorm", 2, 8.0},
                     {0, 4, 32, 158, 11, 16, 64, 8, 4, "batchnorm", 1, 4.0},
                     {0, 2, 32, 224, 16, 21, 32, 4, 4, "sync_batchnorm", 2, 2.0},
                     {0, 1, 64, 224, 21, 24, 16, 2, 2, "sync_batchnorm", 4, 1.0},
                     {1, 8, 16, 158, 24, 27, 128, 16, 8, "sub_batchnorm", 2, 0.8},
                     {1, 4, 32, 158, 27, 28, 64, 8, 4, "batchnorm", 1, 0.4},
                     {1, 2, 32, 224, 28, 30, 32, 4, 4, "sync_batchnorm", 2, 0.2},
                     {1, 1, 64, 224, 30, 30, 16, 2, 2, "sync_batchnorm", 4, 0.1},
                     {2, 1, 64, 224, 30, 33, 16, 2, 2, "sync_batchnorm", 4, 0.1},
                 });
    compareList(s.steps, {0, 11, 16, 21, 24, 27, 28, 30, 30, 31});
    compareList(s.lrs, {8, 4, 2, 1, 0.8, 0.4, 0.2, 0.1, 0.1, 0.01});
    QCOMPARE(s.max_epoch, std::int64_t{33});
    QVERIFY(qFuzzyCompare(s.iter_saving, 5.75));
    // 11/(32/3) + 5/(16/3) + 5/(14/3) + 3/(7/3) + 3/(32/3) + 1/(16/3) + 2/(14/3) + 0 + 3/(7/3)
    //   = 6.5089286; 22 / 6.5089286 = 3.3799726.
    QVERIFY(qAbs(s.overall_saving - 3.3799726) < 1e-6);
    QCOMPARE(multigrid::phaseAtEpoch(s, 29).index, 6);
    QCOMPARE(multigrid::phaseAtEpoch(s, 30).index, 8);  // the empty phase 7 is never trained
  }

  // Long cycles alone (PySlowFast fails: all_shapes[-1][2] of a one-shape list). The fine-tune
  // phase takes the last long-cycle shape (1, 32, 224). Kinetics settings:
  //   B = avg B = 8, 4, 2, 1 (sum 15); stage 0: 94 x 8/15 = 50.133, 25.067, 12.533, 6.267 ...
  //   iter_saving = 196 / (196 x 4 / 15) = 3.75; fine-tune 43 / 3.75 x 1 = 11.467
  //   x = 358.5 / (196 + 11.467) = 1.72799; cumulative: 86.63 129.94 151.60 162.43 | 217.73 245.37
  //   259.20 266.11 | 304.82 324.17 333.85 338.69 | 358.5 -> 87 130 152 162 | 218 245 259 266 |
  //   305 324 334 339 | 358; STEPS[-1] = (339 + 358) // 2 = 348.
  void longCycleOnly() {
    const auto s = multigrid::buildSchedule(load(kKinetics, {"MULTIGRID.SHORT_CYCLE", "False"}));
    QVERIFY(s.long_cycle && !s.short_cycle);
    checkRows(s, {
                     {0, 8, 8, 158, 0, 87, 512, 64, 8, "sub_batchnorm", 8, 8.0},
                     {0, 4, 16, 158, 87, 130, 256, 32, 4, "sub_batchnorm", 4, 4.0},
                     {0, 2, 16, 224, 130, 152, 128, 16, 4, "sub_batchnorm", 2, 2.0},
                     {0, 1, 32, 224, 152, 162, 64, 8, 2, "batchnorm", 1, 1.0},
                     {1, 8, 8, 158, 162, 218, 512, 64, 8, "sub_batchnorm", 8, 0.8},
                     {1, 4, 16, 158, 218, 245, 256, 32, 4, "sub_batchnorm", 4, 0.4},
                     {1, 2, 16, 224, 245, 259, 128, 16, 4, "sub_batchnorm", 2, 0.2},
                     {1, 1, 32, 224, 259, 266, 64, 8, 2, "batchnorm", 1, 0.1},
                     {2, 8, 8, 158, 266, 305, 512, 64, 8, "sub_batchnorm", 8, 0.08},
                     {2, 4, 16, 158, 305, 324, 256, 32, 4, "sub_batchnorm", 4, 0.04},
                     {2, 2, 16, 224, 324, 334, 128, 16, 4, "sub_batchnorm", 2, 0.02},
                     {2, 1, 32, 224, 334, 339, 64, 8, 2, "batchnorm", 1, 0.01},
                     {3, 1, 32, 224, 339, 358, 64, 8, 2, "batchnorm", 1, 0.01},
                 });
    compareList(s.steps, {0, 87, 130, 152, 162, 218, 245, 259, 266, 305, 324, 334, 339, 348});
    QCOMPARE(s.max_epoch, std::int64_t{358});
    QVERIFY(qFuzzyCompare(s.iter_saving, 3.75));
    QVERIFY(s.phases[0].short_cycle.empty());
    // 87/8 + 43/4 + 22/2 + 10 + 56/8 + 27/4 + 14/2 + 7 + 39/8 + 19/4 + 10/2 + 5 + 19 = 109
    QVERIFY(qFuzzyCompare(s.overall_saving, 239.0 / 109.0));
    QVERIFY(!s.notes.empty() && s.notes.front().find("PySlowFast fails") != std::string::npos);
    // Every iteration of a phase has its base shape.
    const auto st = multigrid::shortCycleStep(s.phases[0], 1);
    QVERIFY(st.cycle_index == 2 && st.crop == 158 && st.per_device_batch == 64);
  }

  // Short cycles alone (Charades multigrid's solver): STEPS [0, 41, 49] x 1.5 = 61.5, 73.5 ->
  // int() 61, 73 (Python's round would give 62, 74); MAX_EPOCH 57 x 1.5 = 85.5 -> 85. One phase at
  // (1, 64, 224); shapes 112 x4, 158 x2, 224 x1 (avg B 7/3): 57 / (85 / (7/3)) = 1.5647059.
  void shortCycleOnly() {
    const auto c =
        load(kSsv2, {"MULTIGRID.LONG_CYCLE", "False", "SOLVER.STEPS", "[0, 41, 49]",
                     "SOLVER.MAX_EPOCH", "57", "DATA.TRAIN_JITTER_SCALES", "[256, 340]"});
    const auto s = multigrid::buildSchedule(c);
    QVERIFY(!s.long_cycle && s.short_cycle);
    compareList(s.steps, {0, 61, 73});
    compareList(s.lrs, {1, 0.1, 0.01, 0.001, 0.0001, 0.00001});  // unchanged
    QCOMPARE(s.max_epoch, std::int64_t{85});
    QCOMPARE(s.phases.size(), size_t{1});
    const auto& p = s.phases[0];
    QVERIFY(p.b == 1 && p.t == 64 && p.s == 224 && p.start_epoch == 0 && p.end_epoch == 85);
    QVERIFY(p.batch_size == 16 && p.per_device_batch == 2 && p.long_cycle_sampling_rate == 0);
    QCOMPARE(p.bn.norm_type, std::string("sync_batchnorm"));  // the config's own BN is kept
    QCOMPARE(p.bn.num_sync_devices, std::int64_t{4});
    QCOMPARE(p.short_cycle[0].batch_mult, std::int64_t{4});
    QCOMPARE(p.short_cycle[1].batch_mult, std::int64_t{2});
    QCOMPARE(p.short_cycle[1].jitter_min_scale, std::int64_t{181});
    QCOMPARE(p.lrs.size(), size_t{3});
    QCOMPARE(p.lrs[1].from_epoch, 61.0);
    QVERIFY(qFuzzyCompare(s.overall_saving, 57.0 / (85.0 * 3 / 7)));
    QCOMPARE(s.iter_saving, 1.0);
  }

  void neitherCycle() {
    const auto s = multigrid::buildSchedule(fromOverrides({"SOLVER.MAX_EPOCH", "10"}));
    QVERIFY(!s.long_cycle && !s.short_cycle);
    QCOMPARE(s.phases.size(), size_t{1});
    QCOMPARE(s.max_epoch, std::int64_t{10});
    QCOMPARE(s.phases[0].end_epoch, std::int64_t{10});
    QCOMPARE(s.overall_saving, 1.0);
    QCOMPARE(s.phases[0].jitter_min_scale, std::int64_t{256});
  }

  void errorsNameTheKey() {
    const std::vector<std::string> on = {
        "MULTIGRID.LONG_CYCLE", "True",           "SOLVER.LR_POLICY", "steps_with_relative_lrs",
        "SOLVER.LRS",           "[1, 0.1, 0.01]", "SOLVER.MAX_EPOCH", "20"};
    auto with = [&](std::vector<std::string> more) {
      more.insert(more.begin(), on.begin(), on.end());
      return errorOf(more);
    };
    auto e = with({"SOLVER.STEPS", "[0, 10]", "MULTIGRID.LONG_CYCLE_FACTORS", "[[0.5, 1], [1]]"});
    QVERIFY2(e.rfind("MULTIGRID.LONG_CYCLE_FACTORS: entry 1", 0) == 0 &&
                 e.find("pair") != std::string::npos,
             e.c_str());
    e = with({"SOLVER.STEPS", "[0, 10]", "MULTIGRID.LONG_CYCLE_FACTORS", "[]"});
    QVERIFY2(e.rfind("MULTIGRID.LONG_CYCLE_FACTORS:", 0) == 0, e.c_str());
    e = with({"SOLVER.STEPS", "[0, 10]", "MULTIGRID.LONG_CYCLE_FACTORS", "[[0.5, 0]]"});
    QVERIFY2(
        e.rfind("MULTIGRID.LONG_CYCLE_FACTORS:", 0) == 0 && e.find("above 0") != std::string::npos,
        e.c_str());
    e = with({"SOLVER.STEPS", "[5, 10]"});
    QVERIFY2(e.rfind("SOLVER.STEPS:", 0) == 0 && e.find("starting with 0") != std::string::npos,
             e.c_str());
    e = with({"SOLVER.STEPS", "[]"});
    QVERIFY2(e.rfind("SOLVER.STEPS:", 0) == 0, e.c_str());
    e = with({"SOLVER.STEPS", "[0, 12, 8]"});
    QVERIFY2(e.rfind("SOLVER.STEPS: must not decrease", 0) == 0, e.c_str());
    e = with({"SOLVER.STEPS", "[0, 25]"});
    QVERIFY2(e.rfind("SOLVER.MAX_EPOCH: 20 is before the last SOLVER.STEPS entry 25", 0) == 0,
             e.c_str());
    e = errorOf({"MULTIGRID.SHORT_CYCLE", "True", "MULTIGRID.SHORT_CYCLE_FACTORS", "[0.5]"});
    QVERIFY2(e.rfind("MULTIGRID.SHORT_CYCLE_FACTORS: needs exactly two", 0) == 0, e.c_str());
    QVERIFY(with({"SOLVER.STEPS", "[0, 10]"}).empty());
  }
};

QTEST_APPLESS_MAIN(TestMultigridSchedule)
#include "tst_multigridschedule.moc"
