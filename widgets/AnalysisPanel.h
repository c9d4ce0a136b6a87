#pragma once
// The studio's Analysis tab: where a finished single-label run is right and wrong, from the
// analysis files its test and validations left (metrics::ConfusionRecord, docs/run-format.md).
// The confusion matrix as a heat map (ConfusionHeatMap; all classes, the config's subset, or one
// parent category's children), each class's accuracy worst first, the most confused pairs, and
// the mistakes (MistakesTable). A click on a cell, a class or a pair lists its mistakes and marks
// its cell; export to PNG, PDF (the matrix) and CSV (the matrix, the mistakes). The panel only
// reads files; the run to show is the caller's (the run list's selection, the followed run).
//
//   auto* analysis = new AnalysisPanel;
//   analysis->showRun("runs/demo-amp");   // the test's matrix, else the newest validation's
//   analysis->setGrouping(2);             // the first parent category
//   analysis->heatMap()->exportTo("confusion.pdf");
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "metrics/ConfusionRecord.h"

class QComboBox;
class QLabel;
class QStackedWidget;
class QStandardItemModel;
class QTableView;

namespace amp::widgets {

class ConfusionHeatMap;
class MistakesTable;

class AnalysisPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AnalysisPanel(QWidget* parent = nullptr);

  /// Shows `runDir`'s analysis: the test's file, else the newest validation's. False (the panel
  /// then says why: no files, or a damaged one) when there is nothing to show.
  bool showRun(const QString& runDir);
  /// Reads the run's files again (a run that went on validating), keeping the evaluation shown
  /// when it is still there.
  void reload();
  QString runDir() const { return runDir_; }
  /// The evaluations found, as the combo lists them ("Test", "Validation, epoch 3" ...).
  int evaluations() const;
  void showEvaluation(int index);
  /// 0: all classes; then the subset (when the run's config named one); then each parent.
  void setGrouping(int index);
  QStringList groupings() const;
  /// The classes the matrix shows now, by index.
  const std::vector<int>& shownClasses() const { return ids_; }
  const metrics::ConfusionRecord* record() const { return record_ ? &*record_ : nullptr; }
  /// Why nothing is shown ("" when a matrix is).
  QString message() const;

  /// A click on the matrix's cell (row, col) of the shown classes: its mistakes listed.
  void selectCell(int row, int col);

  ConfusionHeatMap* heatMap() const { return heatMap_; }
  MistakesTable* mistakes() const { return mistakes_; }
  QTableView* classTable() const { return classTable_; }
  QTableView* pairTable() const { return pairTable_; }
  /// The shown matrix as CSV (counts), as `ampstudio-cli analyze confusion --csv` writes it.
  QString matrixCsv() const;

 signals:
  /// A mistake's video, to predict again with the run's checkpoint.
  void predictRequested(const QString& runDir, const QString& video);
  /// A mistake's clip to preview (the Clips tab, where Grad-CAM shows what the model looked at):
  /// `split` "val" or "test", the evaluation's.
  void clipRequested(const QString& runDir, const QString& split, const QString& video);

 private:
  bool load(const QString& path);
  void showNothing(const QString& why);
  void rebuild();
  void fillClasses();
  void fillPairs();
  void exportMatrix(const QString& suffix);
  void exportCsv();

  QString runDir_;
  std::vector<metrics::ConfusionFile> files_;
  std::optional<metrics::ConfusionRecord> record_;
  std::vector<int> ids_;
  QLabel* title_;
  QComboBox* evaluation_;
  QComboBox* grouping_;
  QStackedWidget* stack_;
  QLabel* empty_;
  ConfusionHeatMap* heatMap_;
  QTableView* classTable_;
  QTableView* pairTable_;
  QStandardItemModel* classes_;
  QStandardItemModel* pairs_;
  MistakesTable* mistakes_;
  QLabel* cellNote_;
};

}  // namespace amp::widgets
