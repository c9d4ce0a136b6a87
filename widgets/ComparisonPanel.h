#pragma once
// Two or more runs side by side, up to a sweep of a hundred: each metric overlaid (one stable
// colour per run), aligned by step, epoch or relative time; or the runs grouped by any run field
// or config key whose values differ (BASE_LR x precision), each group one colour, drawn as its
// mean with a ± 1 std or min-max band, its member runs thin if asked. A summary table with ratios
// against a chosen baseline run or group (an FP32-vs-AMP pair becomes the table researchers
// quote; a group's row holds each figure's mean ± std); the config keys that differ; for
// multi-label and detection runs, each class's AP against the baseline's (PerClassView). Beyond
// six curves the legends leave the plots for one side list (CurveLegend) with a filter box.
// The charts are ComparisonCharts, the tables ComparisonSummary; this class reads the runs,
// groups them (runlog::groupRuns) and wires the controls.
//
//   auto* compare = new ComparisonPanel;
//   compare->setRuns(sweepDirs);
//   compare->setGroupBy({"SOLVER.BASE_LR", "precision"});  // {} : a curve per run again
#include <QSet>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "ComparedRun.h"
#include "ComparisonCharts.h"
#include "runlog/RunGroups.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSplitter;
class QTableWidget;
class QTabWidget;
class QTimer;

namespace amp::widgets {

class ComparisonSummary;
class CurveLegend;
class HParamsView;
class MetricChart;
class PerClassView;

class ComparisonPanel : public QWidget {
  Q_OBJECT
 public:
  using Align = ComparisonCharts::Align;
  using Band = ComparisonCharts::Band;
  /// More legend entries than this and the legends leave the plots for the side list.
  static constexpr int kInPlotLegendEntries = 6;
  explicit ComparisonPanel(QWidget* parent = nullptr);
  ~ComparisonPanel() override;

  /// Shows these run directories (unreadable ones are listed with the reason).
  void setRuns(const QStringList& dirs);
  QStringList runs() const;
  void setAlign(Align a);
  /// The run (or, grouped, the group) the ratios in the summary are taken against.
  void setBaseline(int index);
  int baseline() const { return baseline_; }
  /// Re-reads the runs (runs still being written grow).
  void reload();

  /// The keys the runs can be grouped by: run fields and config keys whose values differ.
  QStringList groupKeys() const;
  /// Groups the runs by these keys (one or two are offered by the controls; any run field or
  /// config key is taken). Empty: a curve per run, as without grouping. False, changing nothing,
  /// when a key is neither a run field nor a config key (`error` says which and what is offered).
  bool setGroupBy(const QStringList& keys, QString* error = nullptr);
  QStringList groupBy() const { return groupBy_; }
  /// The groups drawn (empty when not grouped).
  const std::vector<ComparedGroup>& groups() const { return groups_; }
  void setBand(Band band);
  /// Grouped: each member run drawn thin under its group's mean.
  void setShowMembers(bool on);
  /// The smoothing of the loss and throughput charts: TensorBoard's weight, and whether it is
  /// weighted by the X distance between points (runs that log at unequal rates).
  void setSmoothing(double weight, bool timeWeighted);

  /// The charts shown, in grid order: "val_top1" when a run is single-label, "val_map" (mean
  /// average precision, in percent) when one is multi-label, both for a mix.
  const std::vector<MetricChart*>& charts() const { return charts_->charts(); }
  /// The shown chart with this id ("train_loss", "val_top1", "val_map", "peak_memory",
  /// "loss_scale", "throughput", "learning_rate"); nullptr for another or one not shown.
  MetricChart* chart(const QString& id) const { return charts_->chart(id); }
  ComparisonCharts* chartGrid() const { return charts_; }
  /// The side legend: one entry per run or group, shown beyond kInPlotLegendEntries.
  CurveLegend* curveLegend() const { return legend_; }
  QTableWidget* summaryTable() const { return summary_; }
  QTableWidget* diffTable() const { return diff_; }
  /// The "Per class" tab: each class's AP in every run and its difference from the baseline.
  PerClassView* perClassView() const { return perClass_; }
  /// The summary as a Markdown table (what "Copy as Markdown" puts on the clipboard).
  QString summaryMarkdown() const;
  /// The "Hyperparameters" tab: runs x the keys that differ x results, scatter, parallel plot.
  HParamsView* hparamsView() const { return hparams_; }
  /// Draws only these runs (indices in run order; grouped: the groups holding one of them);
  /// empty: every run. What a selection in the Hyperparameters tab does.
  void showOnlyRuns(const QList<int>& runs);
  /// Brings a pane below the charts to the front: "summary", "diff", "per-class" or
  /// "hyperparameters". False for another name.
  bool showPane(const QString& name);

 signals:
  /// The runs selected in the Hyperparameters tab (their folders; empty: the selection cleared).
  void runsSelected(const QStringList& dirs);

 private:
  void regroup();
  void redraw();
  void rebuildSummary();
  void rebuildPerClass();
  void rebuildHParams();
  void fillGroupCombos();
  void fillBaselineCombo();
  std::vector<runlog::GroupableRun> groupable() const;

  std::vector<std::unique_ptr<ComparedRun>> runs_;
  std::vector<ComparedGroup> groups_;
  QStringList groupBy_;
  ComparisonCharts::Options options_;
  int baseline_ = 0;
  QLabel* header_;
  QComboBox* alignCombo_;
  QComboBox* baselineCombo_;
  QComboBox* groupCombo_;
  QComboBox* thenCombo_;
  QComboBox* bandCombo_;
  QCheckBox* membersBox_;
  QDoubleSpinBox* smoothingSpin_;
  QCheckBox* timeWeightedBox_;
  ComparisonCharts* charts_;
  CurveLegend* legend_;
  QTableWidget* summary_;
  QTableWidget* diff_;
  PerClassView* perClass_;
  HParamsView* hparams_;
  QTabWidget* tabs_;
  std::unique_ptr<ComparisonSummary> tables_;
  QTimer* liveTimer_;
};

}  // namespace amp::widgets
