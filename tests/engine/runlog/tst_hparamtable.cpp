// The hyperparameter table: the keys that differ between runs, their values as numbers where
// they are numbers, the log axis a learning-rate sweep asks for, and the results the runs have.
#include <QtTest>

#include <cmath>

#include "runlog/HParamTable.h"
#include "support/Configs.h"

using namespace amp;

class TestHParamTable : public QObject {
  Q_OBJECT
 private slots:
  void numbersAsTheConfigShowsThem() {
    QCOMPARE(runlog::hparamNumber("0.1"), std::optional<double>(0.1));
    QCOMPARE(runlog::hparamNumber("1e-04"), std::optional<double>(1e-4));
    QCOMPARE(runlog::hparamNumber("-3"), std::optional<double>(-3));
    QCOMPARE(runlog::hparamNumber("True"), std::optional<double>(1));
    QCOMPARE(runlog::hparamNumber("False"), std::optional<double>(0));
    for (const char* no : {"", "[8, 8]", "slowfast", "0.1x", "nan", "inf", "1e999"})
      QVERIFY2(!runlog::hparamNumber(no), no);
  }

  void aSweepsKeysAndResults() {
    const std::string yaml = testsupport::repoConfig("Kinetics/X3D_XS.yaml");
    const auto a = testsupport::loadConfigOrDie(
        yaml, {"SOLVER.BASE_LR", "0.1", "TRAIN.MIXED_PRECISION", "True"});
    const auto b = testsupport::loadConfigOrDie(
        yaml, {"SOLVER.BASE_LR", "0.001", "TRAIN.MIXED_PRECISION", "False"});
    const auto c = testsupport::loadConfigOrDie(
        yaml, {"SOLVER.BASE_LR", "0.01", "MODEL.ARCH", "x3d", "TRAIN.MIXED_PRECISION", "True"});
    runlog::RunSummary sa, sb;
    sa.bestValTop1 = 61.5;
    sa.peakMemoryBytes = 2.0 * 1024 * 1024 * 1024;
    sa.steps = 100;
    sa.skippedSteps = 3;
    sb.bestValTop1 = 58.0;
    sb.steps = 100;
    const auto t = runlog::HParamTable::build(
        {{"a", &a, sa}, {"b", &b, sb}, {"c", &c, {}}, {"broken", nullptr, {}}});
    QCOMPARE(t.runCount(), 4);
    QCOMPARE(t.runName(3), std::string("broken"));
    // MODEL.ARCH is x3d in all three: not a difference. Schema order.
    QCOMPARE(t.keys(), (std::vector<std::string>{"TRAIN.MIXED_PRECISION", "SOLVER.BASE_LR"}));
    const int lr = 1, amp = 0;
    QCOMPARE(t.value(1, lr), std::string("0.001"));
    QCOMPARE(t.number(2, lr), std::optional<double>(0.01));
    QCOMPARE(t.value(3, lr), std::string());  // no config: shown empty, left out of the axes
    QVERIFY(!t.number(3, lr));
    QVERIFY(t.numericKey(lr));
    QVERIFY(t.logScaleKey(lr));    // 0.001 .. 0.1: two decades
    QVERIFY(t.numericKey(amp));    // True/False as 1/0
    QVERIFY(!t.logScaleKey(amp));  // 0 is not on a log axis
    QCOMPARE(t.number(1, amp), std::optional<double>(0));
    // Results some run has, in order; the others are not columns.
    QStringList ids;
    for (const auto& m : t.metrics()) ids << QString::fromStdString(m.id);
    QCOMPARE(ids, (QStringList{"best_top1", "peak_memory", "skipped_steps"}));
    QCOMPARE(t.metricValue(0, t.metricIndex("best_top1")), std::optional<double>(61.5));
    QCOMPARE(t.metricValue(0, t.metricIndex("peak_memory")), std::optional<double>(2.0));
    QCOMPARE(t.metricValue(1, t.metricIndex("skipped_steps")), std::optional<double>(0));
    QVERIFY(!t.metricValue(2, t.metricIndex("best_top1")));
    QCOMPARE(t.metricIndex("test_map"), -1);
  }

  void oneDecadeIsLinear() {
    const std::string yaml = testsupport::repoConfig("Kinetics/X3D_XS.yaml");
    const auto a = testsupport::loadConfigOrDie(yaml, {"SOLVER.BASE_LR", "0.1"});
    const auto b = testsupport::loadConfigOrDie(yaml, {"SOLVER.BASE_LR", "0.02"});
    const auto t = runlog::HParamTable::build({{"a", &a, {}}, {"b", &b, {}}});
    QCOMPARE(t.keys().size(), std::size_t{1});
    QVERIFY(t.numericKey(0));
    QVERIFY(!t.logScaleKey(0));
    QVERIFY(t.metrics().empty());
  }
};

QTEST_GUILESS_MAIN(TestHParamTable)
#include "tst_hparamtable.moc"
