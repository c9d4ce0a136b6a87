// Comparing recorded runs: both curves on every chart, the summary's ratios against the chosen
// baseline, and a config diff with only the keys that differ.
#include <QtTest>

#include <QScrollBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <fstream>

#include "ComparisonPanel.h"
#include "MetricChart.h"
#include "support/RecordedRun.h"

using namespace amp;

using testsupport::recordMultiLabelRun;
using testsupport::recordRun;

class TestComparisonPanel : public QObject {
  Q_OBJECT
 private slots:
  void twoRunsSideBySide() {
    QTemporaryDir dir;
    const QString fp32 = dir.path() + "/fp32", amp = dir.path() + "/amp";
    recordRun(fp32, "demo-fp32", "fp32", 2.0, 400, 20,
              "TRAIN:\n  MIXED_PRECISION: False\nSOLVER:\n  BASE_LR: 0.1\n");
    recordRun(amp, "demo-amp", "bf16", 3.0, 200, 25,
              "TRAIN:\n  MIXED_PRECISION: True\nSOLVER:\n  BASE_LR: 0.1\n  LR_SCALE: 0.6\n");
    widgets::ComparisonPanel panel;
    panel.setRuns({fp32, amp});
    for (widgets::MetricChart* c : panel.charts()) {
      QCOMPARE(c->seriesCount(), 2);
      QVERIFY2(c->pointCount(0) > 0 && c->pointCount(1) > 0, qPrintable(c->title()));
      QCOMPARE(c->seriesGraph(0)->name(), QString("demo-fp32"));
      QVERIFY(c->seriesGraph(0)->pen().color() !=
              c->seriesGraph(1)->pen().color());  // one colour per run
    }
    // Neither run scaled its loss: the loss-scale chart says so rather than show two flat lines.
    widgets::MetricChart* scale = panel.chart("loss_scale");
    QVERIFY(scale);
    QCOMPARE(scale->title(), QString("Loss scale"));
    QVERIFY2(scale->note().contains("No run scaled its loss"), qPrintable(scale->note()));
    const QString fp16 = dir.path() + "/fp16";
    recordRun(fp16, "demo-fp16", "fp16", 3.0, 200, 25, "TRAIN:\n  MIXED_PRECISION: True\n",
              65536.0);
    panel.setRuns({fp32, fp16});
    QVERIFY(scale->note().isEmpty());
    panel.setRuns({fp32, amp});
    // Aligned by relative time, the faster AMP run ends earlier.
    panel.setAlign(widgets::ComparisonPanel::Align::Time);
    QCOMPARE(panel.charts()[0]->seriesGraph(0)->data()->at(19)->key, 10.0);
    QCOMPARE(panel.charts()[0]->seriesGraph(1)->data()->at(19)->key, 20.0 / 3.0);

    QTableWidget* t = panel.summaryTable();
    QCOMPARE(t->rowCount(), 2);
    auto cell = [t](int row, const QString& column) {
      for (int c = 0; c < t->columnCount(); ++c)
        if (t->horizontalHeaderItem(c)->text() == column) return t->item(row, c)->text();
      return QString("no column %1").arg(column);
    };
    QCOMPARE(cell(0, "Run"), QString("demo-fp32 (baseline)"));
    QCOMPARE(cell(0, "Peak memory"), QString("400 MiB"));
    QCOMPARE(cell(1, "Peak memory"), QString("200 MiB (0.50×)"));
    QCOMPARE(cell(1, "Iterations/s"), QString("3.00 (1.50×)"));
    QCOMPARE(cell(1, "Best val top-1"), QString("75.0 % (0.94×)"));
    QCOMPARE(cell(1, "Final loss"), QString("1.0000 (1.00×)"));
    QCOMPARE(cell(1, "Precision"), QString("bf16"));
    panel.setBaseline(1);
    QCOMPARE(cell(0, "Peak memory"), QString("400 MiB (2.00×)"));
    QCOMPARE(cell(1, "Run"), QString("demo-amp (baseline)"));
    QVERIFY(panel.summaryMarkdown().startsWith("| Run | Precision | Best val top-1 |"));
    QVERIFY(panel.summaryMarkdown().contains("| demo-fp32 | fp32 |"));

    QTableWidget* d = panel.diffTable();
    QCOMPARE(d->columnCount(), 3);
    QCOMPARE(d->rowCount(), 2);
    QCOMPARE(d->item(0, 0)->text(), QString("TRAIN.MIXED_PRECISION"));
    QCOMPARE(d->item(0, 1)->text(), QString("False"));
    QCOMPARE(d->item(0, 2)->text(), QString("True"));
    QCOMPARE(d->item(1, 0)->text(), QString("SOLVER.LR_SCALE"));
    QCOMPARE(d->item(1, 2)->text(), QString("0.6"));
  }

  // Two benchmarks' runs of one name are told apart by their folders in the legends, the
  // baseline choice and the summary.
  void runsOfOneNameAreToldApart() {
    QTemporaryDir dir;
    const QString a = dir.path() + "/bench-a/plain-fp32", b = dir.path() + "/bench-b/plain-fp32",
                  c = dir.path() + "/bench-b/amp";
    recordRun(a, "", "fp32", 2.0, 400, 20, "TRAIN:\n  MIXED_PRECISION: False\n");
    recordRun(b, "", "fp32", 2.0, 400, 20, "TRAIN:\n  MIXED_PRECISION: False\n");
    recordRun(c, "", "bf16", 3.0, 200, 25, "TRAIN:\n  MIXED_PRECISION: True\n");
    widgets::ComparisonPanel panel;
    panel.setRuns({a, b, c});
    const auto* chart = panel.charts().front();
    QCOMPARE(chart->seriesGraph(0)->name(), QString("bench-a/plain-fp32"));
    QCOMPARE(chart->seriesGraph(1)->name(), QString("bench-b/plain-fp32"));
    QCOMPARE(chart->seriesGraph(2)->name(), QString("amp"));  // a unique name stays as it is
    QCOMPARE(panel.summaryTable()->item(1, 0)->text(), QString("bench-b/plain-fp32"));
  }

  // Five runs in a window of ordinary size: the summary shows every row without scrolling,
  // and each run's colour differs from the others'.
  void theSummaryShowsEveryRunsRow() {
    QTemporaryDir dir;
    QStringList runs;
    for (int i = 0; i < 5; ++i) {
      runs << dir.path() + QString("/run%1").arg(i);
      recordRun(runs.back(), "", "fp32", 1.0 + i, 400, 20, "TRAIN:\n  MIXED_PRECISION: False\n");
    }
    widgets::ComparisonPanel panel;
    panel.resize(1400, 900);
    panel.setRuns(runs);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QTableWidget* t = panel.summaryTable();
    QCOMPARE(t->rowCount(), 5);
    QVERIFY(t->verticalScrollBar()->maximum() == 0);
    QVERIFY2(t->rowViewportPosition(4) + t->rowHeight(4) <= t->viewport()->height(),
             qPrintable(QString("%1 + %2 > %3")
                            .arg(t->rowViewportPosition(4))
                            .arg(t->rowHeight(4))
                            .arg(t->viewport()->height())));
    QSet<QRgb> colours;
    for (int i = 0; i < 5; ++i)
      colours.insert(panel.charts().front()->seriesGraph(i)->pen().color().rgb());
    QCOMPARE(colours.size(), 5);
  }

  // Multi-label runs (Charades) are judged by mean average precision: a "val_map" chart (val
  // `map` in percent) where single-label runs have "val_top1", and mAP columns in the summary
  // with ratios as for top-1 (higher is better). A mix shows both.
  void multiLabelRunsCompareMeanAveragePrecision() {
    QTemporaryDir dir;
    const QString fp32 = dir.path() + "/charades-fp32", amp = dir.path() + "/charades-amp",
                  kinetics = dir.path() + "/kinetics";
    const std::string yaml = "DATA:\n  MULTI_LABEL: True\n";
    recordMultiLabelRun(fp32, "charades-fp32", "fp32", 2.0, 400, 0.30, 0.40, yaml);
    recordMultiLabelRun(amp, "charades-amp", "bf16", 3.0, 200, 0.352, 0.413, yaml);
    recordRun(kinetics, "kinetics", "fp32", 2.0, 400, 25, "SOLVER:\n  BASE_LR: 0.1\n");
    widgets::ComparisonPanel panel;
    panel.setRuns({fp32, amp});
    QVERIFY(!panel.chart("val_top1"));
    widgets::MetricChart* map = panel.chart("val_map");
    QVERIFY(map);
    QCOMPARE(map->title(), QString("Val mAP"));
    QCOMPARE(panel.charts().size(), std::size_t(6));  // in top-1's place, not beside it
    QCOMPARE(panel.charts()[1], map);
    QCOMPARE(map->seriesCount(), 2);
    QCOMPARE(map->seriesGraph(1)->name(), QString("charades-amp"));
    QCOMPARE(map->pointCount(1), std::size_t(2));
    QVERIFY(qFuzzyCompare(map->seriesGraph(1)->data()->at(1)->value, 41.3));
    QVERIFY2(map->valuesAt(20).contains("charades-amp: 41.3%"),
             qPrintable(map->valuesAt(20).join(" | ")));

    QTableWidget* t = panel.summaryTable();
    auto cell = [t](int row, const QString& column) {
      for (int c = 0; c < t->columnCount(); ++c)
        if (t->horizontalHeaderItem(c)->text() == column) return t->item(row, c)->text();
      return QString("no column %1").arg(column);
    };
    QCOMPARE(cell(0, "Best val mAP"), QString("40.0 %"));
    QCOMPARE(cell(1, "Best val mAP"), QString("41.3 % (1.03×)"));
    QCOMPARE(cell(1, "Final val mAP"), QString("41.3 % (1.03×)"));
    QCOMPARE(cell(1, "Best val top-1"), QString("no column Best val top-1"));
    QVERIFY(
        panel.summaryMarkdown().startsWith("| Run | Precision | Best val mAP | Final val mAP |"));

    // A multi-label run beside a single-label one: both charts, both pairs of columns, each run's
    // figure in its own (no ratio across the two).
    panel.setRuns({kinetics, amp});
    QVERIFY(panel.chart("val_top1") && panel.chart("val_map"));
    QCOMPARE(panel.charts().size(), std::size_t(7));
    QCOMPARE(cell(0, "Best val top-1"), QString("75.0 %"));
    QCOMPARE(cell(1, "Best val top-1"), QString("–"));
    QCOMPARE(cell(0, "Best val mAP"), QString("–"));
    QCOMPARE(cell(1, "Best val mAP"), QString("41.3 %"));
    QCOMPARE(panel.chart("val_map")->pointCount(0), std::size_t(0));
    QCOMPARE(panel.chart("val_top1")->pointCount(1), std::size_t(0));

    // And back to single-label runs alone: as before.
    panel.setRuns({kinetics, kinetics});
    QVERIFY(!panel.chart("val_map"));
    QCOMPARE(panel.charts().size(), std::size_t(6));
    QCOMPARE(panel.charts()[1], panel.chart("val_top1"));
    QVERIFY(panel.summaryMarkdown().startsWith("| Run | Precision | Best val top-1 |"));
  }

  void anUnreadableRunIsNamedNotHidden() {
    QTemporaryDir dir;
    const QString good = dir.path() + "/good", bad = dir.path() + "/bad";
    recordRun(good, "good", "fp32", 1.0, 100, 10, "SOLVER:\n  BASE_LR: 0.1\n");
    QDir().mkpath(bad);
    widgets::ComparisonPanel panel;
    panel.setRuns({good, bad});
    QCOMPARE(panel.summaryTable()->rowCount(), 2);
    QVERIFY(panel.summaryTable()
                ->item(1, panel.summaryTable()->columnCount() - 1)
                ->text()
                .contains("run.json"));
  }
};

QTEST_MAIN(TestComparisonPanel)
#include "tst_comparisonpanel.moc"
