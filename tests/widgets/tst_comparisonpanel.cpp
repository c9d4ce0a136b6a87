// Comparing recorded runs: both curves on every chart, the summary's ratios against the chosen
// baseline, and a config diff with only the keys that differ.
#include <QtTest>

#include <QScrollBar>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <fstream>

#include "ComparisonPanel.h"
#include "CurveLegend.h"
#include "HParamsView.h"
#include "MetricChart.h"
#include "ParallelCoordinates.h"
#include "PerClassView.h"
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

  // The Per class tab: two Charades runs' per_class lines (written here as the trainer writes
  // them) side by side, the differences against the baseline, the classes that moved most
  // first; a single-label run recorded without per-class lines is named as having none.
  void perClassTabComparesRunsClassByClass() {
    QTemporaryDir dir;
    const QString fp32 = dir.path() + "/fp32", amp = dir.path() + "/amp",
                  k400 = dir.path() + "/k400";
    const std::string yaml = "DATA:\n  MULTI_LABEL: True\n";
    recordMultiLabelRun(fp32, "charades-fp32", "fp32", 2.0, 400, 0.30, 0.40, yaml);
    recordMultiLabelRun(amp, "charades-amp", "bf16", 3.0, 200, 0.352, 0.413, yaml);
    recordRun(k400, "k400-fp32", "fp32", 2.0, 400, 20, "TRAIN:\n  MIXED_PRECISION: False\n");
    const auto append = [](const QString& run, const std::string& line) {
      std::ofstream(run.toStdString() + "/metrics.jsonl", std::ios::app) << line << "\n";
    };
    // fp32's first validation is superseded by its second: the tab shows the newest.
    append(
        fp32,
        R"({"v":1,"kind":"per_class","step":10,"epoch":1,"split":"val","metric":"ap","classes":[0,1,2,3],"class_values":[0.1,0.1,0.1,"nan"],"positives":[10,20,5,0]})");
    append(
        fp32,
        R"({"v":1,"kind":"per_class","step":20,"epoch":2,"split":"val","metric":"ap","classes":[0,1,2,3],"class_values":[0.5,0.8,0.3,"nan"],"positives":[10,20,5,0]})");
    append(
        amp,
        R"({"v":1,"kind":"per_class","step":20,"epoch":2,"split":"val","metric":"ap","classes":[0,1,2,3],"class_values":[0.52,0.7,0.31,"nan"],"positives":[10,20,5,0]})");

    widgets::ComparisonPanel panel;
    panel.setRuns({fp32, amp, k400});
    widgets::PerClassView* view = panel.perClassView();
    QVERIFY(view);
    QAbstractItemModel* m = view->model();
    QCOMPARE(m->rowCount(), 4);
    const auto text = [m](int row, int col) { return m->index(row, col).data().toString(); };
    const auto header = [m](int col) { return m->headerData(col, Qt::Horizontal).toString(); };
    const int ampAp = widgets::PerClassView::kFirstRunColumn + 1;
    const int ampDiff = view->diffColumn(1);
    QCOMPARE(header(widgets::PerClassView::kFirstRunColumn), QString("AP charades-fp32"));
    QCOMPARE(header(ampAp), QString("AP charades-amp"));
    QCOMPARE(header(ampDiff), QString("Δ charades-amp"));
    QCOMPARE(view->diffColumn(0), -1);  // the baseline has no difference column
    // By the largest absolute difference: class 1 (-10 points), 0 (+2), 2 (+1), then 3 (none).
    QStringList order;
    for (int r = 0; r < 4; ++r) order << text(r, widgets::PerClassView::kClassColumn);
    QCOMPARE(order, (QStringList{"1", "0", "2", "3"}));
    QCOMPARE(text(0, widgets::PerClassView::kFirstRunColumn), QString("80.00"));
    QCOMPARE(text(0, ampAp), QString("70.00"));
    QCOMPARE(text(0, ampDiff), QString("-10.00"));
    QCOMPARE(text(1, ampDiff), QString("+2.00"));
    QCOMPARE(text(0, view->largestDiffColumn()), QString("10.00"));
    QCOMPARE(text(0, widgets::PerClassView::kPositivesColumn), QString("20"));
    QCOMPARE(text(3, ampDiff), QString("–"));  // no AP in either run
    QVERIFY(std::isnan(m->index(3, ampAp).data(Qt::UserRole).toDouble()));
    QCOMPARE(text(0, view->diffColumn(2)), QString("–"));  // the Kinetics run has none
    QVERIFY2(view->note().contains("Run k400-fp32 has no per-class figures"),
             qPrintable(view->note()));
    QVERIFY(!view->note().contains("charades"));

    // Against the AMP run as baseline the signs turn and the order stays.
    panel.setBaseline(1);
    QCOMPARE(text(0, widgets::PerClassView::kClassColumn), QString("1"));
    QCOMPARE(text(0, view->diffColumn(0)), QString("+10.00"));
    QCOMPARE(text(1, view->diffColumn(0)), QString("-2.00"));
  }

  // A sweep grouped by precision: each group one colour, its mean and a band (± 1 std, or
  // min-max) on every chart, a summary row per group with mean ± std and the ratio of its mean to
  // the baseline group's; a run without validations does not count towards the val figures.
  void groupsOfRunsWithMeansAndBands() {
    QTemporaryDir dir;
    const QString a = dir.path() + "/a", b = dir.path() + "/b", c = dir.path() + "/c",
                  d = dir.path() + "/d";
    const std::string lr1 = "SOLVER:\n  BASE_LR: 0.1\n", lr05 = "SOLVER:\n  BASE_LR: 0.05\n";
    recordRun(a, "a", "fp32", 2.0, 400, 20, lr1);
    recordRun(b, "b", "fp32", 4.0, 500, 30, lr1);
    recordRun(c, "c", "bf16", 3.0, 200, 25, lr05);
    testsupport::recordRunWith(d, "d", "bf16", 3.0, 300, lr05, 1.0, {});  // never validated
    widgets::ComparisonPanel panel;
    panel.setRuns({a, b, c, d});
    QCOMPARE(panel.groupKeys(), (QStringList{"precision", "SOLVER.BASE_LR"}));
    QVERIFY(panel.setGroupBy({"precision"}));
    QCOMPARE(panel.groups().size(), std::size_t(2));
    QCOMPARE(panel.groups()[0].label, QString("precision=bf16"));
    QCOMPARE(panel.groups()[1].members, (std::vector<std::size_t>{0, 1}));
    QVERIFY(panel.groups()[0].color != panel.groups()[1].color);

    widgets::MetricChart* memory = panel.chart("peak_memory");
    const auto seriesNamed = [](widgets::MetricChart* chart, const QString& name) {
      for (int i = 0; i < chart->seriesCount(); ++i)
        if (chart->seriesGraph(i)->name() == name) return i;
      return -1;
    };
    // Per group: band low, band high, mean; only the means in the legend and the tracker.
    QCOMPARE(memory->seriesCount(), 6);
    QCOMPARE(memory->legend->itemCount(), 2);
    const int fp32 = seriesNamed(memory, "precision=fp32");
    QVERIFY(fp32 >= 0);
    QCOMPARE(memory->seriesGraph(fp32)->pen().color(), panel.groups()[1].color);
    QCOMPARE(memory->seriesGraph(fp32)->data()->at(0)->value, 450.0);  // (400 + 500) / 2
    const int low = seriesNamed(memory, "precision=fp32 (band low)");
    const double std = std::sqrt(2 * 50.0 * 50.0);  // sample std of 400 and 500
    QVERIFY(std::abs(memory->seriesGraph(low)->data()->at(0)->value - (450.0 - std)) < 1e-9);
    QCOMPARE(memory->valuesAt(10).size(), 2);
    panel.setBand(widgets::ComparisonPanel::Band::MinMax);
    QCOMPARE(
        memory->seriesGraph(seriesNamed(memory, "precision=fp32 (band low)"))->data()->at(0)->value,
        400.0);
    // The val chart's bf16 mean is c's alone (d has no validation).
    widgets::MetricChart* top1 = panel.chart("val_top1");
    QCOMPARE(top1->seriesGraph(seriesNamed(top1, "precision=bf16"))->data()->at(0)->value, 75.0);

    QTableWidget* t = panel.summaryTable();
    QCOMPARE(t->rowCount(), 2);
    auto cell = [t](int row, const QString& column) {
      for (int col = 0; col < t->columnCount(); ++col)
        if (t->horizontalHeaderItem(col)->text() == column) return t->item(row, col)->text();
      return QString("no column %1").arg(column);
    };
    QCOMPARE(cell(0, "Group"), QString("precision=bf16 (baseline)"));
    QCOMPARE(cell(0, "Runs"), QString("2"));
    QCOMPARE(cell(0, "Best val top-1"), QString("75.0 % [n=1]"));
    QCOMPARE(cell(1, "Best val top-1"), QString("75.0 % ± 7.1 % (1.00×)"));  // 80 and 70
    QCOMPARE(cell(0, "Peak memory"), QString("250 MiB ± 71 MiB"));
    QCOMPARE(cell(1, "Peak memory"), QString("450 MiB ± 71 MiB (1.80×)"));
    QCOMPARE(cell(1, "Iterations/s"), QString("3.00 ± 1.41 (1.00×)"));
    QVERIFY(panel.summaryMarkdown().startsWith("| Group | Runs | Best val top-1 |"));
    panel.setBaseline(1);
    QCOMPARE(cell(0, "Peak memory"), QString("250 MiB ± 71 MiB (0.56×)"));

    // Member runs, thin under the mean, named on hover but not in the legend or the tracker.
    panel.setShowMembers(true);
    QCOMPARE(memory->seriesCount(), 10);
    const int memberA = seriesNamed(memory, "a");
    QCOMPARE(memory->seriesRole(memberA), widgets::MetricChart::Role::Member);
    QCOMPARE(memory->legend->itemCount(), 2);
    // Two keys: one group per combination present (bf16 runs all have 0.05, fp32 ones 0.1).
    QVERIFY(panel.setGroupBy({"SOLVER.BASE_LR", "precision"}));
    QCOMPARE(panel.groups().size(), std::size_t(2));
    QCOMPARE(panel.groups()[0].label, QString("BASE_LR=0.05, precision=bf16"));
    QString error;
    QVERIFY(!panel.setGroupBy({"NO.SUCH_KEY"}, &error));
    QVERIFY2(error.contains("NO.SUCH_KEY") && error.contains("SOLVER.BASE_LR"), qPrintable(error));
    QCOMPARE(panel.groups().size(), std::size_t(2));  // unchanged
    // None: a curve per run again, as before grouping.
    QVERIFY(panel.setGroupBy({}));
    QCOMPARE(memory->seriesCount(), 4);
    QCOMPARE(memory->seriesGraph(0)->name(), QString("a"));
    QCOMPARE(t->rowCount(), 4);
    QCOMPARE(cell(0, "Run"), QString("a (baseline)"));
  }

  // The Hyperparameters tab: the keys that differ against the results; brushing a learning rate
  // on its parallel plot draws only those runs (their groups when grouped) and names them.
  void hyperparametersSelectRuns() {
    QTemporaryDir dir;
    const QString a = dir.path() + "/a", b = dir.path() + "/b", c = dir.path() + "/c";
    recordRun(a, "a", "fp32", 2.0, 400, 20, "SOLVER:\n  BASE_LR: 0.1\n");
    recordRun(b, "b", "bf16", 4.0, 500, 30, "SOLVER:\n  BASE_LR: 0.1\n");
    recordRun(c, "c", "bf16", 3.0, 200, 25, "SOLVER:\n  BASE_LR: 0.001\n");
    widgets::ComparisonPanel panel;
    panel.setRuns({a, b, c});
    widgets::HParamsView* hp = panel.hparamsView();
    const auto& keys = hp->table().keys();
    const auto lr = std::find(keys.begin(), keys.end(), "SOLVER.BASE_LR");
    QVERIFY(lr != keys.end());
    const int axis = static_cast<int>(lr - keys.begin());
    QVERIFY(hp->table().logScaleKey(axis));  // 0.001 .. 0.1
    QCOMPARE(hp->tableView()->model()->rowCount(), 3);
    QVERIFY(hp->table().metricIndex("best_top1") >= 0);
    QSignalSpy selected(&panel, &widgets::ComparisonPanel::runsSelected);
    hp->parallel()->setBrush(axis, 0.9, 1.0);  // BASE_LR 0.1: a and b
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).toStringList(), (QStringList{a, b}));
    QVERIFY(panel.curveLegend()->entryVisible(0) && panel.curveLegend()->entryVisible(1));
    QVERIFY(!panel.curveLegend()->entryVisible(2));
    QVERIFY(panel.setGroupBy({"precision"}));  // groups bf16 (b, c) and fp32 (a)
    panel.showOnlyRuns({2});
    QVERIFY(panel.curveLegend()->entryVisible(0));   // bf16 holds c
    QVERIFY(!panel.curveLegend()->entryVisible(1));  // fp32
    hp->parallel()->clearBrush(axis);
    QVERIFY(panel.curveLegend()->entryVisible(0) && panel.curveLegend()->entryVisible(1));
  }

  // The loss chart's smoothing: weight 0 draws the logged values; 0.5 TensorBoard's de-biased
  // average ((0.5 * 0.5 * 1.95 + 0.5 * 1.9) / 0.75 at the second step); time-weighted, a run
  // that logs every step is smoothed exactly as without (its spacing is the unit).
  void smoothingWeightAndTimeWeighting() {
    QTemporaryDir dir;
    const QString a = dir.path() + "/a", b = dir.path() + "/b";
    recordRun(a, "a", "fp32", 1.0, 100, 20, "SOLVER:\n  BASE_LR: 0.1\n");
    recordRun(b, "b", "fp32", 1.0, 100, 20, "SOLVER:\n  BASE_LR: 0.2\n");
    widgets::ComparisonPanel panel;
    panel.setRuns({a, b});
    widgets::MetricChart* loss = panel.chart("train_loss");
    panel.setSmoothing(0.0, false);
    QVERIFY(qFuzzyCompare(loss->seriesGraph(0)->data()->at(1)->value, 1.9));
    panel.setSmoothing(0.5, false);
    const double expected = (0.5 * 0.5 * 1.95 + 0.5 * 1.9) / 0.75;
    QVERIFY(std::abs(loss->seriesGraph(0)->data()->at(1)->value - expected) < 1e-12);
    panel.setSmoothing(0.5, true);
    QVERIFY(std::abs(loss->seriesGraph(0)->data()->at(1)->value - expected) < 1e-12);
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
