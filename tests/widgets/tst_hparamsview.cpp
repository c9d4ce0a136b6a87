// Compare's Hyperparameters tab: the runs x keys x results table sorts numbers as numbers, the
// scatter takes a log axis for a learning-rate sweep, and a brush on the parallel plot, a table
// selection and a scatter click select the same runs everywhere.
#include <QtTest>

#include <qcustomplot.h>

#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>

#include "HParamsView.h"
#include "ParallelCoordinates.h"
#include "support/Configs.h"

using namespace amp;

class TestHParamsView : public QObject {
  Q_OBJECT
  std::vector<config::Config> configs_;
  std::vector<runlog::HParamInput> inputs_;

 private slots:
  void initTestCase() {
    const std::string yaml = testsupport::repoConfig("Kinetics/X3D_XS.yaml");
    // Batch 8 / 16 / 128 sorts differently as text; the learning rates span three decades.
    const char* lr[] = {"0.1", "0.01", "0.0001"};
    const char* batch[] = {"16", "128", "8"};
    const double top1[] = {40, 55, 70};
    for (int i = 0; i < 3; ++i)
      configs_.push_back(
          testsupport::loadConfigOrDie(yaml, {"SOLVER.BASE_LR", lr[i], "TRAIN.BATCH_SIZE", batch[i],
                                              "MODEL.ARCH", i == 2 ? "slow" : "x3d"}));
    for (int i = 0; i < 3; ++i) {
      runlog::RunSummary s;
      s.bestValTop1 = top1[i];
      inputs_.push_back({"run" + std::to_string(i), &configs_[i], s});
    }
  }

  void tableScatterAndParallel() {
    widgets::HParamsView view;
    view.resize(1000, 700);
    view.setTable(runlog::HParamTable::build(inputs_), {Qt::red, Qt::green, Qt::blue});
    const auto& t = view.table();
    QCOMPARE(t.keys(),
             (std::vector<std::string>{"TRAIN.BATCH_SIZE", "MODEL.ARCH", "SOLVER.BASE_LR"}));
    QAbstractItemModel* m = view.tableView()->model();
    QCOMPARE(m->columnCount(), 1 + 3 + 1);  // run, keys, best top-1
    // Sorted by batch size as numbers: 8, 16, 128.
    view.tableView()->sortByColumn(1, Qt::AscendingOrder);
    QCOMPARE(m->index(0, 1).data().toString(), QString("8"));
    QCOMPARE(m->index(1, 1).data().toString(), QString("16"));
    QCOMPARE(m->index(2, 1).data().toString(), QString("128"));
    QCOMPARE(view.csv().section('\n', 1, 1), QString("run2,8,'slow',1e-04,70.000"));
    // The scatter against the learning rate: a log axis, one point per run.
    view.setMetric("best_top1");
    view.setScatterKey(2);
    QCOMPARE(view.scatter()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(view.scatter()->graphCount(), 3);
    view.setScatterKey(1);  // the architecture: categories
    QCOMPARE(view.scatter()->xAxis->scaleType(), QCPAxis::stLinear);
    QCOMPARE(view.scatter()->graphCount(), 3);
    // Parallel coordinates: the three keys and the result.
    widgets::ParallelCoordinates* pc = view.parallel();
    QCOMPARE(pc->axisCount(), 4);
    QCOMPARE(pc->axisTitle(3), QString("Best val top-1 (%)"));
    QCOMPARE(*pc->position(0, 3), 0.0);  // 40 %: the bottom
    QCOMPARE(*pc->position(2, 3), 1.0);  // 70 %: the top
    QCOMPARE(*pc->position(1, 3), 0.5);
    QCOMPARE(*pc->position(1, 2), 2.0 / 3.0);  // log10: -4 .. -1, 0.01 at -2
    QCOMPARE(*pc->position(2, 1), 0.0);        // categories in order: slow, x3d
  }

  void aBrushSelectsEverywhere() {
    widgets::HParamsView view;
    view.setTable(runlog::HParamTable::build(inputs_), {Qt::red, Qt::green, Qt::blue});
    QSignalSpy selected(&view, &widgets::HParamsView::runsSelected);
    view.parallel()->setBrush(3, 0.4, 1.0);  // the best two
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).value<QList<int>>(), (QList<int>{1, 2}));
    QCOMPARE(view.tableView()->selectionModel()->selectedRows().size(), 2);
    view.parallel()->setBrush(0, 0.0, 0.05);  // and the smallest batch: run 2 alone
    QCOMPARE(view.selection(), (QList<int>{2}));
    // A row picked in the table marks that run in the plots (and clears the brushes).
    QAbstractItemModel* m = view.tableView()->model();
    QCOMPARE(m->index(0, 0).data().toString(), QString("run0"));  // in run order
    view.tableView()->selectRow(0);
    QCOMPARE(view.selection(), (QList<int>{0}));
    QCOMPARE(view.parallel()->selectedRuns(), view.selection());
    // A click on an axis without a drag clears its brush.
    view.parallel()->setBrush(3, 0.9, 1.0);
    view.parallel()->clearBrush(3);
    QCOMPARE(view.parallel()->selectedRuns(), (QList<int>{0, 1, 2}));
  }
};

QTEST_MAIN(TestHParamsView)
#include "tst_hparamsview.moc"
