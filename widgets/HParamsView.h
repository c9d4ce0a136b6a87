#pragma once
// Compare's Hyperparameters tab: which settings gave which result, for a sweep of runs. A sortable
// table of the runs x the config keys that differ x their results (runlog::HParamTable), a scatter
// of a chosen result against a chosen key (a log axis where the key spans decades, categories for
// text values), and a parallel-coordinates plot of every key and the result (ParallelCoordinates),
// where brushing an axis selects runs. A selection made in any of the three shows in the others
// and is announced (Compare passes it on to the run list).
//
//   auto* hp = new HParamsView;
//   hp->setTable(runlog::HParamTable::build(inputs), colours);
//   hp->setMetric("best_top1");
//   hp->setScatterKey(0);
//   connect(hp, &HParamsView::runsSelected, this, [](const QList<int>& runs) { ... });
#include <QColor>
#include <QList>
#include <QWidget>
#include <vector>

#include "runlog/HParamTable.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace amp::widgets {

class ParallelCoordinates;

class HParamsView : public QWidget {
  Q_OBJECT
 public:
  explicit HParamsView(QWidget* parent = nullptr);

  /// Shows `table`, run r in `colours[r]`; the result shown stays when the new table has it.
  void setTable(runlog::HParamTable table, std::vector<QColor> colours);
  const runlog::HParamTable& table() const { return table_; }
  /// The result on the scatter's y axis and the parallel plot's last axis, by id ("best_top1").
  void setMetric(const std::string& id);
  /// The key (index into table().keys()) on the scatter's x axis.
  void setScatterKey(int key);
  /// Marks these runs everywhere without announcing them.
  void showSelection(const QList<int>& runs);
  QList<int> selection() const { return selection_; }

  QTableView* tableView() const { return view_; }
  QCustomPlot* scatter() const { return scatter_; }
  ParallelCoordinates* parallel() const { return parallel_; }
  /// The table as shown (sorted), as CSV.
  QString csv() const;

 signals:
  void runsSelected(const QList<int>& runs);

 private:
  void fillTable();
  void plotScatter();
  /// Marks `runs` in the table, the scatter and (with `toParallel`: not the brushing plot itself)
  /// the parallel plot; `announce` emits runsSelected.
  void select(const QList<int>& runs, bool announce, bool toParallel = true);
  int metric() const;

  runlog::HParamTable table_;
  std::vector<QColor> colours_;
  QList<int> selection_;
  bool syncing_ = false;
  QComboBox* metricBox_;
  QComboBox* keyBox_;
  QLabel* note_;
  QStandardItemModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* view_;
  QCustomPlot* scatter_;
  ParallelCoordinates* parallel_;
};

}  // namespace amp::widgets
