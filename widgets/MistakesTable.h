#pragma once
// The Analysis tab's gallery of mistakes: every misclassified video (or validation clip) of an
// evaluation with its true and predicted class, the predicted class's score, the true class's
// score and rank, the worst first (the most confident mistakes). Filters by true class, by
// predicted class (a click on a matrix cell sets both) and by text in the path. Double-click (or
// Enter) on a row asks for its clip to be previewed (the Clips tab, with Grad-CAM at hand); the
// context menu also predicts the video again (the Predict tab) or copies its path.
//
//   auto* mistakes = new MistakesTable;
//   mistakes->setRecord(&record);             // kept by the caller while shown
//   mistakes->setCell(3, 5);                  // true class 3 taken for 5
//   mistakes->rows();                         // how many are listed now
//   connect(mistakes, &MistakesTable::previewRequested, this, [](const QString& video) { ... });
#include <QString>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTableView;

namespace amp::metrics {
struct ConfusionRecord;
}

namespace amp::widgets {

class MistakesTable : public QWidget {
  Q_OBJECT
 public:
  enum Column {
    kVideoColumn,
    kTrueColumn,
    kPredColumn,
    kScoreColumn,
    kTrueScoreColumn,
    kRankColumn
  };
  explicit MistakesTable(QWidget* parent = nullptr);

  /// Lists `r`'s mistakes (nullptr: none); the filters go back to all classes.
  void setRecord(const metrics::ConfusionRecord* r);
  /// Only mistakes of true class `truth` taken for `pred` (-1: any).
  void setCell(int truth, int pred);
  void setTextFilter(const QString& text);
  int rows() const;  ///< rows shown now
  QTableView* table() const { return table_; }
  /// The rows as shown, as CSV.
  QString csv() const;
  /// The current row's video ("" when none).
  QString currentVideo() const;

 public slots:
  void previewCurrent();
  void predictCurrent();

 signals:
  void previewRequested(const QString& video);
  void predictRequested(const QString& video);

 private:
  void applyFilters();
  QComboBox* trueCombo_;
  QComboBox* predCombo_;
  QLineEdit* text_;
  QLabel* count_;
  QStandardItemModel* items_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  int total_ = 0;
};

}  // namespace amp::widgets
