// The side legend of Compare: checkboxes show and hide entries, the filter narrows the list and
// All / None act on what it lists, hovering an entry is told; in the panel, beyond six curves the
// legends leave the plots for this list, and unchecking a run hides its curves on every chart.
#include <QtTest>

#include <QLineEdit>
#include <QListWidget>
#include <QTemporaryDir>

#include "ComparisonCharts.h"
#include "ComparisonPanel.h"
#include "CurveLegend.h"
#include "MetricChart.h"
#include "support/RecordedRun.h"

using namespace amp;

class TestCurveLegend : public QObject {
  Q_OBJECT
 private slots:
  void visibilityAndFilter() {
    widgets::CurveLegend legend;
    legend.setEntries({{"BASE_LR=0.1, precision=fp32", "3 runs", Qt::blue},
                       {"BASE_LR=0.1, precision=bf16", "3 runs", Qt::red},
                       {"BASE_LR=0.05, precision=bf16", "2 runs", Qt::green, false}});
    QCOMPARE(legend.count(), 3);
    QVERIFY(legend.entryVisible(0) && !legend.entryVisible(2));
    QCOMPARE(legend.list()->item(2)->checkState(), Qt::Unchecked);
    QSignalSpy changed(&legend, &widgets::CurveLegend::visibilityChanged);
    legend.list()->item(0)->setCheckState(Qt::Unchecked);  // as a click does
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toInt(), 0);
    QCOMPARE(changed.at(0).at(1).toBool(), false);
    QVERIFY(!legend.entryVisible(0));

    legend.filterBox()->setText("bf16");
    QVERIFY(!legend.entryListed(0));
    QVERIFY(legend.entryListed(1) && legend.entryListed(2));
    legend.setListedVisible(true);  // "All": only the two listed
    QVERIFY(!legend.entryVisible(0));
    QVERIFY(legend.entryVisible(1) && legend.entryVisible(2));
    legend.filterBox()->setText("LR=0.05");
    legend.setListedVisible(false);  // "None"
    QVERIFY(legend.entryVisible(1) && !legend.entryVisible(2));
    legend.filterBox()->clear();
    for (int i = 0; i < 3; ++i) QVERIFY(legend.entryListed(i));

    QSignalSpy hovered(&legend, &widgets::CurveLegend::hovered);
    emit legend.list()->itemEntered(legend.list()->item(1));
    QCOMPARE(hovered.count(), 1);
    QCOMPARE(hovered.at(0).at(0).toInt(), 1);
  }

  // Seven runs: a side list instead of legends in the plots; unchecking a run hides its curve on
  // every chart (and the chart refits without it); hovering its entry emphasises it.
  void thePanelsSideLegend() {
    QTemporaryDir dir;
    QStringList runs;
    for (int i = 0; i < 7; ++i) {
      runs << dir.path() + QString("/run%1").arg(i);
      testsupport::recordRun(runs.back(), QString("run%1").arg(i).toStdString(), "fp32", 1.0 + i,
                             100.0 * (i + 1), 20, "TRAIN:\n  MIXED_PRECISION: False\n");
    }
    widgets::ComparisonPanel panel;
    panel.setRuns(runs.mid(0, 3));
    QVERIFY(panel.curveLegend()->isHidden());
    QVERIFY(panel.chart("peak_memory")->inPlotLegend());
    panel.setRuns(runs);
    widgets::CurveLegend* legend = panel.curveLegend();
    QVERIFY(!legend->isHidden());
    QCOMPARE(legend->count(), 7);
    widgets::MetricChart* memory = panel.chart("peak_memory");
    QVERIFY(!memory->inPlotLegend());
    QVERIFY(!memory->legend->visible());
    QVERIFY(memory->yAxis->range().upper >= 700);
    legend->setEntryVisible(6, false);  // the 700 MiB run
    for (widgets::MetricChart* c : panel.charts()) QVERIFY(!c->seriesGraph(6)->visible());
    QVERIFY(memory->seriesGraph(5)->visible());
    QVERIFY2(memory->yAxis->range().upper < 700,
             qPrintable(QString::number(memory->yAxis->range().upper)));
    panel.reload();  // a live run's reload keeps what was hidden
    QVERIFY(!memory->seriesGraph(6)->visible());
    QVERIFY(!panel.curveLegend()->entryVisible(6));
    emit legend->list()->itemEntered(legend->list()->item(2));
    QCOMPARE(memory->seriesGraph(2)->pen().widthF(), 2.5);
    QVERIFY(memory->seriesGraph(0)->pen().color().alpha() <= 40);
  }
};

QTEST_MAIN(TestCurveLegend)
#include "tst_curvelegend.moc"
