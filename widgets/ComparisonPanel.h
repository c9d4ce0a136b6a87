#pragma once
// Two or more runs side by side: each metric overlaid (one stable colour per run), aligned by
// step, epoch or relative time; a summary table with ratios against a chosen baseline run (an
// FP32-vs-AMP pair becomes the table researchers quote); and the config keys that differ.
#include <QWidget>
#include <memory>
#include <vector>

#include "runlog/RunMetadata.h"
#include "runlog/RunRecord.h"

class QComboBox;
class QLabel;
class QTableWidget;
class QTabWidget;
class QTimer;

namespace amp::widgets {

class MetricChart;

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

  const std::vector<MetricChart*>& charts() const { return charts_; }
  /// The chart with this id ("train_loss", "val_top1", "peak_memory", "loss_scale",
  /// "throughput", "learning_rate"); nullptr for another.
  MetricChart* chart(const QString& id) const;
  QTableWidget* summaryTable() const { return summary_; }
  QTableWidget* diffTable() const { return diff_; }
  /// The summary as a Markdown table (what "Copy as Markdown" puts on the clipboard).
  QString summaryMarkdown() const;

 private:
  struct Run;
  void rebuildCharts();
  void rebuildSummary();
  void rebuildDiff();
  std::vector<std::unique_ptr<Run>> runs_;
  std::vector<MetricChart*> charts_;
  Align align_ = Align::Step;
  int baseline_ = 0;
  QLabel* header_;
  QComboBox* alignCombo_;
  QComboBox* baselineCombo_;
  QTableWidget* summary_;
  QTableWidget* diff_;
  QTabWidget* tabs_;
  QTimer* liveTimer_;
};

}  // namespace amp::widgets
