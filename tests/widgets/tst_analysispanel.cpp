// The Analysis tab driven offscreen over analysis files written as the trainer writes them: the
// evaluations and groupings offered, the worst class and the most confused pair first, a click on
// a cell listing its mistakes, the heat map at 400 classes (names that fit, zoom until every name
// and share shows), exports, and what it says for runs without or with damaged files.
#include <QtTest>

#include <qcustomplot.h>
#include <QAbstractItemModel>
#include <QAction>
#include <QFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <string>

#include "AnalysisPanel.h"
#include "ConfusionHeatMap.h"
#include "MistakesTable.h"
#include "metrics/ConfusionRecord.h"

using namespace amp;
using widgets::AnalysisPanel;

namespace {
// Walk 4/4 right; run 2 of 4 (both taken for walk); swim 1 of 2 (taken for run); fly no samples.
metrics::ConfusionRecord record(const std::string& split) {
  metrics::ConfusionRecord r;
  r.split = split;
  r.unit = split == "test" ? "video" : "clip";
  r.matrix = metrics::ConfusionMatrix(4);
  r.names = {"walk", "run", "swim", "fly"};
  r.subset = std::vector<int>{1, 2};
  r.parents = {{"legs", {0, 1}}, {"air", {3}}};
  for (int i = 0; i < 4; ++i) metrics::addSample(r, "w.mp4", 0, 0, 0.9, 0.9, 1);
  for (int i = 0; i < 2; ++i) metrics::addSample(r, "r.mp4", 1, 1, 0.8, 0.8, 1);
  metrics::addSample(r, "run_1.mp4", 1, 0, 0.7, 0.2, 2);
  metrics::addSample(r, "run_2.mp4", 1, 0, 0.6, 0.3, 2);
  metrics::addSample(r, "s.mp4", 2, 2, 0.9, 0.9, 1);
  metrics::addSample(r, "swim_1.mp4", 2, 1, 0.5, 0.4, 2);
  return r;
}

void write(const QTemporaryDir& dir, const metrics::ConfusionRecord& r, int epoch) {
  std::string error;
  if (!metrics::writeConfusionRecord(
          r, metrics::confusionFilePath(dir.path().toStdString(), r.split, epoch), &error))
    qFatal("%s", error.c_str());
}

QString text(QAbstractItemModel* m, int row, int col) {
  return m->index(row, col).data().toString();
}
}  // namespace

class TestAnalysisPanel : public QObject {
  Q_OBJECT
 private slots:
  void showsTheTestsMatrixWorstClassAndConfusedPairFirst() {
    QTemporaryDir dir;
    write(dir, record("test"), 0);
    write(dir, record("val"), 3);
    AnalysisPanel panel;
    QVERIFY(panel.showRun(dir.path()));
    QCOMPARE(panel.evaluations(), 2);
    QCOMPARE(panel.record()->split, std::string("test"));
    QCOMPARE(panel.groupings(), (QStringList{"All 4 classes", "Subset (2 classes)",
                                             "Parent: legs (2)", "Parent: air (1)"}));
    QCOMPARE(panel.heatMap()->classes(), 4);
    // Worst first: run and swim at 50%, then walk; fly has no videos and comes last.
    QAbstractItemModel* classes = panel.classTable()->model();
    QCOMPARE(text(classes, 0, 1), QString("50.0 %"));
    QCOMPARE(text(classes, 2, 0), QString("walk"));
    QCOMPARE(text(classes, 3, 0), QString("fly"));
    QCOMPARE(text(classes, 3, 1), QString("–"));
    QAbstractItemModel* pairs = panel.pairTable()->model();
    QCOMPARE(pairs->rowCount(), 2);
    QCOMPARE(text(pairs, 0, 0), QString("run"));
    QCOMPARE(text(pairs, 0, 1), QString("walk"));
    QCOMPARE(text(pairs, 0, 2), QString("2"));
    QCOMPARE(text(pairs, 0, 3), QString("50.0 %"));
    QCOMPARE(panel.mistakes()->rows(), 3);  // every mistake until a cell is chosen
    QCOMPARE(panel.matrixCsv(),
             QString::fromStdString(metrics::confusionCsv(*panel.record(), {0, 1, 2, 3}, false)));
    panel.showEvaluation(1);
    QCOMPARE(panel.record()->split, std::string("val"));
  }

  void aClickOnACellListsItsMistakes() {
    QTemporaryDir dir;
    write(dir, record("test"), 0);
    AnalysisPanel panel;
    panel.resize(1200, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.showRun(dir.path()));
    QCustomPlot* plot = panel.heatMap()->plot();
    plot->replot();
    // The cell of true run (row 1) taken for walk (column 0), clicked where it is drawn.
    const QPoint at(static_cast<int>(plot->xAxis->coordToPixel(0)),
                    static_cast<int>(plot->yAxis->coordToPixel(1)));
    QCOMPARE(panel.heatMap()->cellAt(at), std::make_pair(1, 0));
    QSignalSpy clicked(panel.heatMap(), &widgets::ConfusionHeatMap::cellClicked);
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(panel.mistakes()->rows(), 2);
    QAbstractItemModel* m = panel.mistakes()->table()->model();
    QCOMPARE(text(m, 0, widgets::MistakesTable::kVideoColumn), QString("run_1.mp4"));  // 0.7 first
    QCOMPARE(text(m, 0, widgets::MistakesTable::kScoreColumn), QString("0.700"));
    QCOMPARE(text(m, 0, widgets::MistakesTable::kRankColumn), QString("2"));
    // A diagonal cell: the class's mistakes, whatever they were taken for.
    panel.selectCell(2, 2);
    QCOMPARE(panel.mistakes()->rows(), 1);
    // Enter on a mistake asks for its clip as that evaluation saw it; the context menu's Predict
    // Again for the video with the run's checkpoint.
    QSignalSpy clip(&panel, &AnalysisPanel::clipRequested);
    QSignalSpy predict(&panel, &AnalysisPanel::predictRequested);
    QTableView* table = panel.mistakes()->table();
    table->setFocus();
    table->setCurrentIndex(table->model()->index(0, 0));
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(clip.count(), 1);
    QCOMPARE(clip.at(0).at(1).toString(), QString("test"));
    QCOMPARE(clip.at(0).at(2).toString(), QString("swim_1.mp4"));
    QCOMPARE(predict.count(), 0);
    const auto actions = table->actions();
    QCOMPARE(actions.size(), 3);
    actions.at(1)->trigger();
    QCOMPARE(predict.count(), 1);
    QCOMPARE(predict.at(0).at(1).toString(), QString("swim_1.mp4"));
    // Exports, as the other charts: PNG and PDF of the matrix.
    for (const char* suffix : {"png", "pdf"}) {
      const QString path = dir.path() + "/m." + suffix;
      QVERIFY(panel.heatMap()->exportTo(path, 600, 500));
      QVERIFY2(QFile(path).size() > 1000, suffix);
    }
  }

  void groupingsShowTheirClasses() {
    QTemporaryDir dir;
    write(dir, record("test"), 0);
    AnalysisPanel panel;
    QVERIFY(panel.showRun(dir.path()));
    panel.setGrouping(1);  // the subset: run, swim
    QCOMPARE(panel.shownClasses(), (std::vector<int>{1, 2}));
    QCOMPARE(panel.heatMap()->classes(), 2);
    QCOMPARE(panel.classTable()->model()->rowCount(), 2);
    QCOMPARE(panel.pairTable()->model()->rowCount(), 1);  // swim -> run; run -> walk leaves it
    QCOMPARE(panel.matrixCsv(), QString("true \\ predicted,run,swim\nrun,2,0\nswim,1,1\n"));
    panel.setGrouping(2);  // parent legs: walk, run
    QCOMPARE(panel.shownClasses(), (std::vector<int>{0, 1}));
    // A reload (a run that validated again) keeps the grouping.
    panel.reload();
    QCOMPARE(panel.shownClasses(), (std::vector<int>{0, 1}));
  }

  void fourHundredClassesStayReadable() {
    QTemporaryDir dir;
    metrics::ConfusionRecord r;
    r.matrix = metrics::ConfusionMatrix(400);
    for (int k = 0; k < 400; ++k) {
      r.names.push_back("class " + std::to_string(k));
      metrics::addSample(r, "v.mp4", k, k, 0.9, 0.9, 1);
      metrics::addSample(r, "v.mp4", k, (k + 1) % 400, 0.6, 0.3, 2);
    }
    write(dir, r, 0);
    AnalysisPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.showRun(dir.path()));
    widgets::ConfusionHeatMap* map = panel.heatMap();
    map->plot()->replot();
    // All 400 in view: every k-th name, as many as fit a line each, and no cell texts.
    const int names = map->visibleNames();
    const int rowPixels = map->plot()->axisRect()->height();
    QVERIFY2(names > 5 && names < 400, std::to_string(names).c_str());
    QVERIFY2(names * QFontMetrics(map->plot()->yAxis->tickLabelFont()).height() <= rowPixels,
             std::to_string(names).c_str());
    QCOMPARE(map->cellTexts(), 0);
    // Zoomed onto a cell: every name in view, every share printed.
    map->focusCell(200, 201, 10);
    map->plot()->replot();
    QCOMPARE(map->visibleNames(), 10);
    QCOMPARE(map->cellTexts(), 100);
    map->resetView();
    QCOMPARE(map->cellTexts(), 0);
  }

  void runsWithoutOrWithDamagedFilesAreSaid() {
    QTemporaryDir dir;
    AnalysisPanel panel;
    QVERIFY(!panel.showRun(dir.path()));
    QVERIFY2(panel.message().contains("has no confusion matrix"), qPrintable(panel.message()));
    const std::string path = metrics::confusionFilePath(dir.path().toStdString(), "test", 0);
    write(dir, record("test"), 0);
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("{\"format\": \"ampstudio-confusion\", \"format_version\": 1, \"split\": \"te");
    f.close();
    QVERIFY(!panel.showRun(dir.path()));
    QVERIFY2(panel.message().contains(QString::fromStdString(path)) &&
                 panel.message().contains("damaged"),
             qPrintable(panel.message()));
    QVERIFY(!panel.record());
  }
};

QTEST_MAIN(TestAnalysisPanel)
#include "tst_analysispanel.moc"
