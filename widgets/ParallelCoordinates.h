#pragma once
// A parallel-coordinates plot of a sweep (W&B's and TensorBoard HParams' view): one vertical axis
// per hyperparameter and one for the result, each run a line through its values, in its colour.
// Numbers sit on a linear or log axis (HParamTable says which), other values on evenly spaced
// categories; a run without a value on an axis has a gap there. Drag along an axis to brush a
// range: the runs whose values lie in every brushed range stay coloured and are the selection,
// the others grey; a click on an axis clears its brush.
//
//   auto* pc = new ParallelCoordinates;
//   pc->setTable(table, colours, table.metricIndex("best_top1"));
//   pc->setBrush(0, 0.5, 1.0);          // axis 0, its upper half
//   pc->selectedRuns();                 // the runs inside it
//   connect(pc, &ParallelCoordinates::selectionChanged, ...);
#include <QColor>
#include <QList>
#include <QWidget>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "runlog/HParamTable.h"

class QCustomPlot;
class QCPCurve;
class QCPItemRect;
class QMouseEvent;

namespace amp::widgets {

class ParallelCoordinates : public QWidget {
  Q_OBJECT
 public:
  explicit ParallelCoordinates(QWidget* parent = nullptr);

  /// The table's keys as axes, then result `metric` (-1: none) as the last axis; `colours` one
  /// per run.
  void setTable(const runlog::HParamTable& table, const std::vector<QColor>& colours, int metric);
  int axisCount() const { return static_cast<int>(axes_.size()); }
  QString axisTitle(int axis) const { return axes_[axis].title; }
  /// Run `run`'s place on `axis`, 0 (bottom) .. 1 (top); nullopt where it has no value.
  std::optional<double> position(int run, int axis) const;

  /// Brushes `axis` from `lo` to `hi` (0 .. 1, bottom to top); replaces its earlier brush.
  void setBrush(int axis, double lo, double hi);
  void clearBrush(int axis);
  void clearBrushes();
  /// The runs inside every brush (all runs while nothing is brushed), in run order.
  QList<int> selectedRuns() const;
  /// Marks these runs as the selection (from the table or Compare): the others grey, the brushes
  /// cleared.
  void showSelection(const QList<int>& runs);
  QCustomPlot* plot() const { return plot_; }

 signals:
  /// A brush changed the selection.
  void selectionChanged(const QList<int>& runs);

 private:
  struct Axis {
    QString title;
    bool log = false;
    double lo = 0, hi = 1;                  ///< numeric range (log: of log10)
    QStringList categories;                 ///< non-numeric axes
    std::vector<std::optional<double>> at;  ///< per run, 0 .. 1
  };
  void rebuild();
  void recolour();
  int axisNear(double x) const;
  void mousePress(QMouseEvent* e);
  void mouseMove(QMouseEvent* e);
  void mouseRelease(QMouseEvent* e);

  QCustomPlot* plot_;
  std::vector<Axis> axes_;
  std::vector<QColor> colours_;
  std::vector<QCPCurve*> curves_;
  std::map<int, std::pair<double, double>> brushes_;
  std::map<int, QCPItemRect*> brushItems_;
  QList<int> marked_;  ///< showSelection's runs; empty: none marked
  int dragAxis_ = -1;
  double dragFrom_ = 0;
  bool dragged_ = false;
};

}  // namespace amp::widgets
