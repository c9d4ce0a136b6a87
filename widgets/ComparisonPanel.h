#pragma once
// Two or more runs side by side: each metric overlaid (one stable colour per run), aligned by
// step, epoch or relative time; a summary table with ratios against a chosen baseline run (an
// FP32-vs-AMP pair becomes the table researchers quote); the config keys that differ; and, for
// multi-label and detection runs, each class's AP against the baseline's (PerClassView).
#include <QWidget>
#include <memory>
#include <vector>

#include "runlog/RunMetadata.h"
#include "runlog/RunRecord.h"

class QComboBox;
class QGridLayout;
class QLabel;
class QTableWidget;
class QTabWidget;
class QTimer;

namespace amp::widgets {

class MetricChart;
class PerClassView;

class ComparisonPanel : public QWidget {
  Q_OBJECT
 public:
  enum class Align { Step, Epoch, Time };
  explicit ComparisonPanel(QWidget* parent = nullptr);
  ~ComparisonPanel() override;

  /// Shows these run directories (unreadable ones are listed with the reason).
  void setRuns(const QStringList& dirs);
  QStringList runs() const;
  void setAlign(Align a);
  void setBaseline(int index);
  int baseline() const { return baseline_; }
  /// Re-reads the runs (runs still being written grow).
  void reload();

  /// The charts shown, in grid order: "val_top1" when a run is single-label, "val_map" (mean
  /// average precision, in percent) when one is multi-label, both for a mix.
  const std::vector<MetricChart*>& charts() const { return charts_; }
  /// The shown chart with this id ("train_loss", "val_top1", "val_map", "peak_memory",
  /// "loss_scale", "throughput", "learning_rate"); nullptr for another or one not shown.
  MetricChart* chart(const QString& id) const;
  QTableWidget* summaryTable() const { return summary_; }
  QTableWidget* diffTable() const { return diff_; }
  /// The "Per class" tab: each class's AP in every run and its difference from the baseline.
  PerClassView* perClassView() const { return perClass_; }
  /// The summary as a Markdown table (what "Copy as Markdown" puts on the clipboard).
  QString summaryMarkdown() const;

 private:
  struct Run;
  void rebuildCharts();
  void rebuildSummary();
  void rebuildDiff();
  void rebuildPerClass();
  std::vector<std::unique_ptr<Run>> runs_;
  std::vector<MetricChart*> allCharts_;  ///< one per chart spec
  std::vector<MetricChart*> charts_;     ///< those shown
  Align align_ = Align::Step;
  int baseline_ = 0;
  QGridLayout* grid_ = nullptr;
  QLabel* header_;
  QComboBox* alignCombo_;
  QComboBox* baselineCombo_;
  QTableWidget* summary_;
  QTableWidget* diff_;
  PerClassView* perClass_;
  QTabWidget* tabs_;
  QTimer* liveTimer_;
};

}  // namespace amp::widgets
