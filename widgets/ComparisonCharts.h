#pragma once
// The Compare tab's grid of overlaid charts (training loss, val top-1 or mAP, peak memory, loss
// scale, throughput, learning rate): one curve per run, or, when the runs are grouped, each
// group's mean with a band (± 1 standard deviation or min-max) in the group's colour and, if
// asked, its member runs thin beneath. Every curve belongs to a legend entry (a run, or a group)
// so one side legend can show, hide and emphasise it on every chart at once.
//
//   auto* charts = new ComparisonCharts;
//   ComparisonCharts::Options o;
//   o.align = ComparisonCharts::Align::Epoch;
//   charts->draw(runs, &groups, o);       // nullptr: a curve per run
//   charts->setEntryVisible(2, false);    // the third group, on every chart
#include <QSet>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

#include "ComparedRun.h"

class QGridLayout;

namespace amp::widgets {

class MetricChart;

class ComparisonCharts : public QWidget {
  Q_OBJECT
 public:
  enum class Align { Step, Epoch, Time };
  enum class Band { Std, MinMax };
  struct Options {
    Align align = Align::Step;
    /// The smoothing weight of the smoothed charts (loss, throughput), TensorBoard's 0-0.99.
    double smoothing = 0.95;
    /// Weigh the smoothing by the X distance between points (SmoothedValue::add(v, intervals),
    /// one interval the densest run's median spacing), for runs that log at unequal rates.
    bool timeWeighted = false;
    Band band = Band::Std;
    bool showMembers = false;  ///< grouped: each member run thin under its group's mean
    QSet<QString> hidden;      ///< names of the entries (runs or groups) not drawn
  };
  explicit ComparisonCharts(QWidget* parent = nullptr);
  ~ComparisonCharts() override;

  /// Redraws every chart: a curve per run when `groups` is nullptr, else per group.
  void draw(const std::vector<std::unique_ptr<ComparedRun>>& runs,
            const std::vector<ComparedGroup>* groups, const Options& options);
  /// Drops the curves kept from earlier draws (other runs are compared now).
  void forgetCurves();
  /// The charts shown, in grid order (ComparisonPanel::charts() documents which).
  const std::vector<MetricChart*>& charts() const { return charts_; }
  MetricChart* chart(const QString& id) const;
  /// Entries drawn by the last draw(): one per run, or per group.
  int entryCount() const { return entryCount_; }
  /// Shows or hides an entry's curves on every chart.
  void setEntryVisible(int entry, bool on);
  /// Draws an entry's curves thick and the others faint on every chart; -1: all as drawn.
  void emphasize(int entry);
  /// The legends inside the plots (off when a side legend lists the entries).
  void setInPlotLegends(bool on);
  /// The entry of a chart's series (-1 for none).
  int entryOf(const MetricChart* chart, int series) const;

 signals:
  /// The mouse is over a curve of this entry on some chart (-1: none).
  void entryHovered(int entry);

 private:
  void drawRuns(MetricChart* c, std::size_t spec,
                const std::vector<std::unique_ptr<ComparedRun>>& runs, const Options& o);
  void drawGroups(MetricChart* c, std::size_t spec,
                  const std::vector<std::unique_ptr<ComparedRun>>& runs,
                  const std::vector<ComparedGroup>& groups, const Options& o);

  struct Curve;
  struct CachedCurve;
  /// The curve a chart draws of a run (value transform and smoothing applied), kept while the
  /// run's record and the options that shape it stay the same: a regroup or a legend change does
  /// not transform a hundred runs of 10,000 points again.
  const Curve& curveFor(std::size_t chart, std::size_t run, const ComparedRun& r, const Options& o,
                        double interval);

  std::vector<std::vector<CachedCurve>> curves_;  ///< per chart spec, per run
  std::vector<MetricChart*> allCharts_;           ///< one per chart spec
  std::vector<MetricChart*> charts_;              ///< those shown
  std::vector<std::vector<int>> entryOfSeries_;   ///< per chart of allCharts_, per series
  int entryCount_ = 0;
  QGridLayout* grid_;
};

}  // namespace amp::widgets
