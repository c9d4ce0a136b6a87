#pragma once
// Keeps a plot's legend off its curves.
#include <qcustomplot.h>

namespace amp::widgets {

/// Moves the legend of a QCustomPlot (its axis rect's first inset) to the corner that hides
/// the fewest data points, and back to the preferred corner once that is clear again. Run it
/// before each replot; it looks at about 500 points a graph, so a replot stays O(pixels).
///
///   LegendPlacer legendPlacer_{this};  // a member of a QCustomPlot subclass
///   legendPlacer_.setPreferredCorner(Qt::AlignBottom | Qt::AlignRight);  // accuracy rises
///   connect(this, &QCustomPlot::beforeReplot, this, [this] { legendPlacer_.place(); });
class LegendPlacer {
 public:
  explicit LegendPlacer(QCustomPlot* plot) : plot_(plot) {}

  /// The corner the legend prefers (default top right); moves it there now.
  void setPreferredCorner(Qt::Alignment corner);
  Qt::Alignment preferredCorner() const { return preferred_; }
  Qt::Alignment corner() const { return plot_->axisRect()->insetLayout()->insetAlignment(0); }
  /// Picks the corner from the last layout's legend size and the visible data.
  void place();

 private:
  int pointsUnder(const QRectF& area, int budget) const;

  QCustomPlot* plot_;
  Qt::Alignment preferred_ = Qt::AlignTop | Qt::AlignRight;
};

}  // namespace amp::widgets
