#pragma once
// One live chart of the studio: a QCustomPlot with the behaviour every chart shares: series
// appended incrementally (adaptive sampling keeps spikes visible at millions of points),
// linear / log / log2 Y, wheel zoom (X, or Y with Ctrl), drag to pan, double-click to reset and
// follow again, a tracker line with every series' value at the cursor, export to PNG or PDF.
// The data lives in a SeriesStore, the tracker, legend placement and Y scales in their own
// classes; this file assembles them into the widget.
#include <qcustomplot.h>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <vector>

#include "ChartPalette.h"
#include "LegendPlacer.h"
#include "MetricFormat.h"
#include "SeriesStore.h"
#include "SmoothedValue.h"
#include "YScale.h"

namespace amp::widgets {

class ChartTracker;

/// A chart is found by its id ("loss", "loss_scale"): a key that stays the same whatever the
/// language of its title.
///
///   auto* loss = new MetricChart("loss", tr("Loss"), tr("cross entropy"));
///   const int train = loss->addSeries(tr("train"), seriesColor(0));
///   loss->appendPoints(train, steps, values);
///   loss->fitIfFollowing();
///   loss->replot(QCustomPlot::rpQueuedReplot);
class MetricChart : public QCustomPlot {
  Q_OBJECT
 public:
  using YScale = widgets::YScale;
  /// Strong: a 2 px line (a group's mean over its thin members; 2 px costs more per point, so for
  /// curves of a few thousand points).
  enum class Style { Line, Faint, Points, Markers, Strong };

  /// `id` is the untranslated key that panels, tests and export file names use; `title` is what
  /// the reader sees.
  MetricChart(const QString& id, const QString& title, const QString& yLabel,
              QWidget* parent = nullptr);
  ~MetricChart() override;
  const QString& id() const { return id_; }

  /// Adds a series and returns its index.
  int addSeries(const QString& name, const QColor& color, Style style = Style::Line,
                QCPScatterStyle::ScatterShape marker = QCPScatterStyle::ssCircle);
  int seriesCount() const { return graphCount(); }
  /// Series longer than this are drawn from a min/max envelope (default 20,000 points); set
  /// before adding points. The replot benchmark sets it huge to measure QCustomPlot alone.
  void setDirectPointLimit(std::size_t n) { store_.setDirectPointLimit(n); }
  /// Appends points; x in order from the series' last x on is the fast path, others are sorted
  /// in.
  void appendPoints(int series, const QVector<double>& x, const QVector<double>& y);
  void clearPoints();      ///< every series' points, keeping the series
  void removeAllSeries();  ///< series and points
  std::size_t pointCount(int series) const { return store_.pointCount(series); }
  /// A note on the point of `series` at x, shown after its value by the tracker (e.g. the layer
  /// where a skipped step's overflow started); cleared with the points.
  void setPointNote(int series, double x, const QString& note);
  QCPGraph* seriesGraph(int series) const { return graph(series); }

  /// What a series is to the reader. Member: a run drawn thin under its group's mean (not in the
  /// tracker or the legend, but named when hovered); Band: the edge of a group's band (nowhere).
  enum class Role { Curve, Member, Band };
  void setSeriesRole(int series, Role role);
  Role seriesRole(int series) const { return roles_.at(static_cast<std::size_t>(series)); }
  /// Fills the area between two series (a group's band edges) with `color`, translucent.
  void fillBetween(int lower, int upper, const QColor& color);
  void setSeriesVisible(int series, bool on);
  /// Draws these series thicker and the others faint (a legend entry hovered); empty: as added.
  void setEmphasis(const std::vector<int>& series);
  /// The legend inside the plot; off when a side list (CurveLegend) names the curves instead.
  void setInPlotLegend(bool on);
  bool inPlotLegend() const { return inPlotLegend_; }
  /// The visible curve or member passing within `pixels` of `pos` (widget pixels); -1 when none.
  int seriesAt(const QPointF& pos, double pixels = 8) const;
  /// Writes the series' name at its last point (what the mouse hovers); -1 hides it.
  void showEndLabel(int series);
  /// The name written at the hovered curve's end; empty while none.
  QString endLabel() const;

  void setYScale(YScale scale);
  YScale yScale() const { return yScale_; }
  void setXLabel(const QString& label);
  /// The corner the legend prefers (default top right). Before each replot the legend moves to
  /// the corner that hides the fewest data points, and back when its own corner is clear again.
  void setLegendCorner(Qt::Alignment corner);
  Qt::Alignment legendCorner() const { return legendPlacer_.corner(); }
  const QString& title() const { return title_; }
  /// A new title and Y axis label (the accuracy chart of a multi-label run becomes mAP); replots.
  void setTitle(const QString& title, const QString& yLabel);
  /// A line or two of grey text inside the plot that says what the curves alone do not (empty:
  /// none).
  void setNote(const QString& text);
  const QString& note() const { return note_; }
  /// True while the chart has nothing to draw: it says "no data" and its axes carry no numbers.
  bool showsEmpty() const;

  /// Following: the X range spans all data and Y fits it after every update. Turned off by any
  /// zoom or pan; double-click turns it on again.
  void setFollowing(bool on);
  bool following() const { return following_; }
  /// Fits the axes to the data when following (call after appending, before replot).
  void fitIfFollowing();
  /// Fits Y to the data inside the current X range.
  void fitY();

  /// A vertical line at x (e.g. a multigrid shape change), its label written up the right side of
  /// the line (what starts there) when `showLabel`; cleared by clearPoints().
  void addVerticalMarker(double x, const QString& label, bool showLabel = true);
  int verticalMarkerCount() const { return static_cast<int>(markers_.size()); }
  QString verticalMarkerLabel(int i) const;
  bool verticalMarkerLabelShown(int i) const;

  /// The tracker: a vertical line at the point nearest x, every series' value there (nearest
  /// point).
  void showTrackerAt(double x);
  void hideTracker();
  /// What the tracker shows now ("step 120" and a line per series); empty while it is hidden.
  QString trackerText() const;
  /// "name: value" for each series at x (what the tracker shows).
  QStringList valuesAt(double x) const;
  /// The x of the visible point nearest `x` (over all series); `x` when there is none.
  double nearestPointX(double x) const;
  /// The unit the tracker writes after each value ("%", "MiB", "clips/s"); none by default.
  void setValueUnit(const QString& unit) { valueUnit_ = unit; }

  bool exportTo(const QString& path, int width = 0, int height = 0);  ///< .png or .pdf by suffix

 signals:
  void trackerMoved(double x);  ///< the mouse moved over the plot (x in axis units)
  void trackerLeft();
  void followingChanged(bool on);
  void userChangedXRange(const QCPRange& range);
  void seriesHovered(int series);  ///< the curve under the mouse changed (-1: none)

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  void userInteracted();
  void setYRange(const QCPRange& values);
  /// Long series: before each replot the graph gets only the visible range as a min/max
  /// envelope from the store (about two points per pixel), so a replot costs O(pixels).
  void refreshEnvelopes();
  void showEmpty(bool empty);

  QString id_;
  QString title_;
  SeriesStore store_;
  LegendPlacer legendPlacer_;
  std::unique_ptr<ChartTracker> tracker_;
  YScale yScale_ = YScale::Linear;
  bool following_ = true;
  QCPTextElement* titleElement_;
  QCPItemText* noteText_;
  QCPItemText* emptyText_;  ///< "no data" while no series has a point
  QString note_;
  QString valueUnit_;
  std::vector<std::pair<QCPItemStraightLine*, QCPItemText*>> markers_;
  std::vector<Role> roles_;
  std::vector<QPen> pens_;  ///< each series' pen as added (emphasis changes and restores it)
  bool inPlotLegend_ = true;
  QCPItemText* endLabel_;
  int hovered_ = -1;
};

/// Makes charts act as one view: the tracker shows on all, a zoom or pan of one sets the others'
/// X range (and stops their following), a double-click on one makes all follow again.
/// `userRanged` (optional) runs after a user's zoom or pan.
void linkCharts(const std::vector<MetricChart*>& charts, QObject* context,
                const std::function<void()>& userRanged = {});

}  // namespace amp::widgets
