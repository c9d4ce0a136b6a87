#pragma once
// One live chart of the studio: a QCustomPlot with the behaviour every chart shares: series
// appended incrementally (adaptive sampling keeps spikes visible at millions of points),
// linear / log / log2 Y, wheel zoom (X, or Y with Ctrl), drag to pan, double-click to reset and
// follow again, a tracker line with every series' value at the cursor, export to PNG or PDF.
#include <qcustomplot.h>
#include <QString>
#include <QStringList>
#include <cmath>
#include <functional>
#include <map>
#include <vector>

namespace amp::widgets {

class MetricChart : public QCustomPlot {
  Q_OBJECT
 public:
  enum class Style { Line, Faint, Points, Markers };
  enum class YScale { Linear, Log10, Log2 };

  /// `id` is the untranslated key that panels, tests and export file names use ("loss",
  /// "loss_scale"); `title` is what the reader sees.
  MetricChart(const QString& id, const QString& title, const QString& yLabel,
              QWidget* parent = nullptr);
  const QString& id() const { return id_; }

  /// Adds a series and returns its index.
  int addSeries(const QString& name, const QColor& color, Style style = Style::Line,
                QCPScatterStyle::ScatterShape marker = QCPScatterStyle::ssCircle);
  int seriesCount() const { return graphCount(); }
  /// Series longer than this are drawn from a min/max envelope (default 20,000 points); set
  /// before adding points. The replot benchmark sets it huge to measure QCustomPlot alone.
  void setDirectPointLimit(std::size_t n) { directPoints_ = n; }
  /// Appends points whose x are not below the series' last x (the usual, fast path).
  void appendPoints(int series, const QVector<double>& x, const QVector<double>& y);
  void clearPoints();      ///< every series' points, keeping the series
  void removeAllSeries();  ///< series and points
  std::size_t pointCount(int series) const;
  /// A note on the point of `series` at x, shown after its value by the tracker (e.g. the layer
  /// where a skipped step's overflow started); cleared with the points.
  void setPointNote(int series, double x, const QString& note);
  QCPGraph* seriesGraph(int series) const { return graph(series); }

  void setYScale(YScale scale);
  YScale yScale() const { return yScale_; }
  void setXLabel(const QString& label);
  /// The corner the legend prefers (default top right). Before each replot the legend moves to
  /// the corner that hides the fewest data points, and back when its own corner is clear again.
  void setLegendCorner(Qt::Alignment corner);
  Qt::Alignment legendCorner() const { return axisRect()->insetLayout()->insetAlignment(0); }
  const QString& title() const { return title_; }
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
  /// Per series: running extents (following costs O(1) per update however long the run), the
  /// points themselves, and a min/max pyramid. Up to directPoints_ points QCustomPlot holds them
  /// all; beyond, before each replot the graph gets only the visible range as a min/max
  /// envelope of about two points per pixel from the pyramid, so a replot costs O(pixels), not
  /// O(points), and spikes stay visible.
  struct Block {
    double minKey, minValue, maxKey, maxValue;
    bool any;
  };
  struct Store {
    bool any = false;
    double minKey = 0, maxKey = 0, minValue = 0, maxValue = 0;
    double minPositive = 0;  ///< smallest value > 0 (log axes); 0 when none
    std::vector<double> x, y;
    std::map<double, QString> notes;         ///< x -> setPointNote's text
    std::vector<std::vector<Block>> levels;  ///< level L: blocks of kBlock * kFan^L points
    bool envelope = false;                   ///< the graph shows an envelope, not every point
  };
  std::size_t directPoints_ = 20000;
  static constexpr std::size_t kBlock = 64;
  static constexpr std::size_t kFan = 8;
  void extendPyramid(Store& s);
  void appendEnvelope(const Store& s, int level, std::size_t i0, std::size_t i1,
                      QVector<QCPGraphData>& out) const;
  void refreshEnvelopes();
  void placeLegend();
  void showEmpty(bool empty);
  int pointsUnder(const QRectF& area, int budget) const;
  Qt::Alignment preferredCorner_ = Qt::AlignTop | Qt::AlignRight;
  std::vector<Store> stores_;
  QString id_;
  QString title_;
  YScale yScale_ = YScale::Linear;
  bool following_ = true;
  QCPItemStraightLine* trackerLine_;
  QCPItemText* trackerText_;
  QCPTextElement* titleElement_;
  QCPItemText* noteText_;
  QCPItemText* emptyText_;  ///< "no data" while no series has a point
  QString note_;
  QString valueUnit_;
  std::vector<std::pair<QCPItemStraightLine*, QCPItemText*>> markers_;
};

/// Makes charts act as one view: the tracker shows on all, a zoom or pan of one sets the others'
/// X range (and stops their following), a double-click on one makes all follow again.
/// `userRanged` (optional) runs after a user's zoom or pan.
void linkCharts(const std::vector<MetricChart*>& charts, QObject* context,
                const std::function<void()>& userRanged = {});

/// A number for a tracker or a table: 4 significant digits, thousands plain.
QString formatMetric(double v);
/// Seconds as H:MM:SS ("0:02:05").
QString formatDuration(double seconds);
/// Bytes as whole mebibytes ("380 MiB").
QString formatMiB(double bytes);

/// Exponential moving average with TensorBoard's bias correction (the first values are not
/// pulled towards 0). weight 0 returns the raw values.
class SmoothedValue {
 public:
  explicit SmoothedValue(double weight = 0.9) : weight_(weight) {}
  double add(double v) {
    value_ = weight_ * value_ + (1 - weight_) * v;
    const double debias = 1 - std::pow(weight_, static_cast<double>(++count_));
    return debias > 0 ? value_ / debias : v;
  }

 private:
  double weight_;
  double value_ = 0;
  std::size_t count_ = 0;
};
/// The chart palette (10 colours that stay apart on light and dark backgrounds).
QColor seriesColor(int index);
/// A colour that stays with a name (a run) whichever other names are shown.
QColor stableColor(const QString& key);
/// One colour per key, each its stableColor unless that is an earlier key's colour or a palette
/// neighbour of one (orange/red, purple/pink ...): then the first palette colour that is neither.
/// Past ten keys colours repeat.
std::vector<QColor> distinctColors(const QStringList& keys);

}  // namespace amp::widgets
