#pragma once
// The Compare view's "Per class" tab: each class's figure in every run (the run directory's
// `per_class` lines, docs/run-format.md: average precision of multi-label and AVA runs, top-1
// accuracy of single-label ones, each labelled as what it is) beside its difference from the
// baseline run,
// sorted by the largest difference, so the question "which classes did mixed precision change
// against FP32?" is answered by the first rows. A filter box narrows it to classes by number or
// name; runs without per-class figures (runs recorded before them) are named in a line above the
// table rather than shown as empty columns.
//
//   auto* view = new PerClassView;
//   view->setRuns({{"fp32", Qt::blue, fp32.latestPerClass("val"), fp32.latestPerClass("test")},
//                  {"amp", Qt::red, amp.latestPerClass("val"), amp.latestPerClass("test")}},
//                 /*baseline=*/0);
//   QApplication::clipboard()->setText(view->markdown());  // the rows as shown
#include <QColor>
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "runlog/RunRecord.h"

class QAbstractItemModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace amp::widgets {

class PerClassChart;

class PerClassView : public QWidget {
  Q_OBJECT
 public:
  /// One run's newest per-class figures of each split (none: the run has no such line).
  struct RunFigures {
    QString name;
    QColor color;
    std::optional<runlog::PerClassEntry> val, test;
    RunFigures(QString name, QColor color, const runlog::PerClassEntry* val,
               const runlog::PerClassEntry* test);
  };
  enum class Split { Val, Test };
  /// The fixed columns; then one AP column per run (in the runs' order), one difference column
  /// per run other than the baseline, and the largest absolute difference.
  enum Column { kClassColumn = 0, kNameColumn = 1, kPositivesColumn = 2, kFirstRunColumn = 3 };

  explicit PerClassView(QWidget* parent = nullptr);

  /// Shows these runs against run `baseline`; keeps the user's sort while the columns stay the
  /// same (a live run's reload), else sorts by the largest absolute difference, descending.
  void setRuns(std::vector<RunFigures> runs, int baseline);
  void setSplit(Split split);
  Split split() const { return split_; }
  /// Shows the classes whose number or name contains `text` (case-insensitive).
  void setFilter(const QString& text);

  /// The rows as shown (sorted and filtered); Qt::UserRole holds each cell's number (NaN where
  /// there is none), Qt::DisplayRole its text.
  QAbstractItemModel* model() const;
  QTableView* table() const { return table_; }
  /// The differences of the top rows as bars (PerClassChart::kMaxClasses of them, as shown).
  PerClassChart* chart() const { return chart_; }
  /// Column of run `run`'s difference from the baseline, -1 for the baseline itself.
  int diffColumn(int run) const;
  int largestDiffColumn() const;
  /// The line above the table: which runs have no per-class figures, and why that may be.
  QString note() const;
  /// What the figures are, from the baseline's line (else the first run's that has one): "AP"
  /// (`metric` ap) or "Top-1" (`metric` top1_acc, single-label accuracy).
  QString metricLabel() const { return metric_; }
  /// The rows as shown, as a Markdown table and as CSV (numbers as shown).
  QString markdown() const;
  QString csv() const;

 private:
  void rebuild();
  void updateChart();
  std::vector<RunFigures> runs_;
  int baseline_ = 0;
  Split split_ = Split::Val;
  bool splitChosen_ = false;  ///< the user picked a split: no longer chosen by what runs have
  QStringList columns_;       ///< the last headers, to keep the sort across reloads
  QString metric_;            ///< metricLabel()
  QLabel* note_;
  QComboBox* splitCombo_;
  QLineEdit* filter_;
  QStandardItemModel* items_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  PerClassChart* chart_;
  bool rebuilding_ = false;  ///< rows are being added: the chart waits for the last
};

}  // namespace amp::widgets
