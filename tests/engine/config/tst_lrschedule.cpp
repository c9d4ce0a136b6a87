#include <QtTest>

#include "config/LrSchedule.h"
#include "configfile/ConfigLoader.h"

using namespace amp;

namespace {
config::LrSchedule schedule(const std::vector<std::string>& overrides) {
  auto r = config::ConfigLoader().loadText("", "lr.yaml", ".", overrides);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return config::LrSchedule(r.config);
}
bool near(double a, double b) {
  return std::abs(a - b) < 1e-9;
}
}  // namespace

// Expected values worked out by hand from lr_policy.py's formulas.
class TestLrSchedule : public QObject {
  Q_OBJECT
 private slots:
  void cosine() {
    auto s = schedule(
        {"SOLVER.BASE_LR", "0.1", "SOLVER.COSINE_END_LR", "0.0", "SOLVER.MAX_EPOCH", "10"});
    QVERIFY(near(s.at(0), 0.1));
    QVERIFY(near(s.at(5), 0.05));
    QVERIFY(near(s.at(2.5), 0.1 * (std::cos(M_PI / 4) + 1) / 2));  // 0.0853553...
    QVERIFY(near(s.at(10), 0.0));
  }

  void cosineWithWarmup() {
    auto s = schedule({"SOLVER.BASE_LR", "0.1", "SOLVER.MAX_EPOCH", "10", "SOLVER.WARMUP_EPOCHS",
                       "2.0", "SOLVER.WARMUP_START_LR", "0.01"});
    const double endOfWarmup = 0.1 * (std::cos(M_PI * 0.2) + 1) / 2;  // 0.0904508
    QVERIFY(near(s.at(0), 0.01));
    QVERIFY(near(s.at(1), 0.01 + (endOfWarmup - 0.01) / 2));  // 0.0502254
    QVERIFY(near(s.at(2), endOfWarmup));
    auto after =
        schedule({"SOLVER.BASE_LR", "0.1", "SOLVER.MAX_EPOCH", "10", "SOLVER.WARMUP_EPOCHS", "2.0",
                  "SOLVER.WARMUP_START_LR", "0.01", "SOLVER.COSINE_AFTER_WARMUP", "True"});
    QVERIFY(near(after.at(2), 0.1));   // the peak right after warmup
    QVERIFY(near(after.at(6), 0.05));  // cos(pi * 4 / 8)
    QVERIFY(near(after.at(1), 0.055));
  }

  void stepsWithRelativeLrs() {
    auto s = schedule({"SOLVER.LR_POLICY", "steps_with_relative_lrs", "SOLVER.BASE_LR", "0.1",
                       "SOLVER.STEPS", "[0, 4, 8]", "SOLVER.LRS", "[1, 0.1, 0.01]",
                       "SOLVER.MAX_EPOCH", "10"});
    QVERIFY(near(s.at(0), 0.1));
    QVERIFY(near(s.at(3.99), 0.1));
    QVERIFY(near(s.at(4), 0.01));
    QVERIFY(near(s.at(9.99), 0.001));
  }

  // get_step_index's corners: before STEPS[0] Python's LRS[-1]; more rates than steps are unused.
  void stepsWithRelativeLrsAsPySlowFastIndexes() {
    auto late = schedule({"SOLVER.LR_POLICY", "steps_with_relative_lrs", "SOLVER.BASE_LR", "1.0",
                          "SOLVER.STEPS", "[2, 6]", "SOLVER.LRS", "[0.5, 0.25, 0.125]",
                          "SOLVER.MAX_EPOCH", "10"});
    QVERIFY(near(late.at(0), 0.125));  // LRS[-1]
    QVERIFY(near(late.at(2), 0.5));
    QVERIFY(near(late.at(6), 0.25));
    QVERIFY(near(late.at(9.99), 0.25));
    auto longer = schedule({"SOLVER.LR_POLICY", "steps_with_relative_lrs", "SOLVER.BASE_LR", "1.0",
                            "SOLVER.STEPS", "[0, 4]", "SOLVER.LRS", "[1, 0.1, 0.01, 0.001]",
                            "SOLVER.MAX_EPOCH", "8"});
    QVERIFY(near(longer.at(7.9), 0.1));
    QVERIFY(near(longer.at(8), 0.1));  // past MAX_EPOCH: the loop ran out, index len(STEPS) - 1
  }

  // The config check: fewer rates than the steps training reaches is an error, more is fine.
  void lrsCountIsCheckedAgainstTheStepsReached() {
    auto check = [](const std::string& steps, const std::string& lrs) {
      return config::ConfigLoader()
          .loadText("", "lr.yaml", ".",
                    {"SOLVER.LR_POLICY", "steps_with_relative_lrs", "SOLVER.STEPS", steps,
                     "SOLVER.LRS", lrs, "SOLVER.MAX_EPOCH", "10"})
          .ok();
    };
    QVERIFY(check("[0, 4, 8]", "[1, 0.1, 0.01, 0.001]"));
    QVERIFY(check("[0, 4, 12]", "[1, 0.1]"));  // step 12 is never reached
    QVERIFY(!check("[0, 4, 8]", "[1, 0.1]"));
    QVERIFY(!check("[2, 4]", "[]"));
  }

  void scales() {
    auto s = schedule({"SOLVER.BASE_LR", "0.1", "SOLVER.MAX_EPOCH", "10", "SOLVER.LR_SCALE", "0.6",
                       "SOLVER.WARMUP_EPOCHS", "1.0", "SOLVER.WARMUP_START_LR", "0.01"});
    QVERIFY(near(s.at(0), 0.006));  // the whole schedule, warmup included
    QVERIFY(near(s.at(5), 0.03));
    auto shards = schedule({"SOLVER.BASE_LR", "0.1", "SOLVER.MAX_EPOCH", "10", "NUM_SHARDS", "4",
                            "SOLVER.BASE_LR_SCALE_NUM_SHARDS", "True", "TRAIN.BATCH_SIZE", "64"});
    QVERIFY(near(shards.at(0), 0.4));
  }
};

QTEST_APPLESS_MAIN(TestLrSchedule)
#include "tst_lrschedule.moc"
