#pragma once
// The tracker of a plot: where the cursor is, what every curve is worth there.
#include <qcustomplot.h>

namespace amp::widgets {

/// A dashed vertical line at x and a box of text (the X axis' label and x, then one line per
/// curve) in the plot's top corner away from the line, so it never covers the point read. While
/// it shows, the legend hides: the box names the same curves, with their values.
///
///   ChartTracker tracker(plot, smallFont);
///   tracker.showAt(120, {"train: 2.31", "val: 2.5"});  // "step 120\ntrain: 2.31\nval: 2.5"
///   tracker.hide();
class ChartTracker {
 public:
  /// Adds its items to `plot` (which owns them); hidden at first.
  ChartTracker(QCustomPlot* plot, const QFont& font);

  /// Shows the line at x with `lines` under the X axis' label and x, and queues a replot.
  void showAt(double x, const QStringList& lines);
  /// Hides it (the legend shows again) and queues a replot; nothing when already hidden.
  void hide();
  /// Shows or hides line, box and (the other way) legend without a replot: an export draws the
  /// chart without the tracker, then puts it back.
  void setVisible(bool on);
  bool visible() const { return line_->visible(); }
  /// Whether the legend shows while the tracker does not (off: a side list names the curves).
  void setLegendWanted(bool on);
  /// What the box says now; empty while hidden.
  QString text() const;

 private:
  QCustomPlot* plot_;
  QCPItemStraightLine* line_;
  QCPItemText* box_;
  bool legendWanted_ = true;
};

}  // namespace amp::widgets
