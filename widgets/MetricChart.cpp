#include "MetricChart.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

namespace amp::widgets {
namespace {

// Log-10 ticks a reader can use on any range: 1-2-5 steps (finer on a short range, powers of
// ten on a long one), labelled as plain numbers ("500", "0.02"), where QCustomPlot's
// log ticker puts only powers of ten, so a range inside one decade got one label or repeats.
class DecadeTicker : public QCPAxisTicker {
 protected:
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double, const QCPRange& range) override {
    QVector<double> best;
    if (!(range.lower > 0) || !(range.upper > range.lower)) return best;
    const int first = static_cast<int>(std::floor(std::log10(range.lower))),
              last = static_cast<int>(std::ceil(std::log10(range.upper)));
    const std::vector<std::vector<double>> sets = {
        {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8}, {1, 1.5, 2, 3, 5, 7}, {1, 2, 5}, {1}};
    for (const auto& mantissas : sets) {  // the densest set with at most 8 ticks
      QVector<double> ticks;
      for (int e = first; e <= last; ++e)
        for (double m : mantissas) {
          const double v = m * std::pow(10.0, e);
          if (v >= range.lower * (1 - 1e-9) && v <= range.upper * (1 + 1e-9)) ticks.push_back(v);
        }
      best = ticks;
      if (ticks.size() <= 8) return ticks;
    }
    // Many decades: every k-th power of ten.
    const int k = static_cast<int>(std::ceil(best.size() / 8.0));
    QVector<double> thinned;
    for (int i = 0; i < best.size(); i += k) thinned.push_back(best[i]);
    return thinned;
  }
};

}  // namespace

QString formatMetric(double v) {
  if (std::isnan(v)) return QStringLiteral("nan");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  const double a = std::abs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e7)) return QString::number(v, 'e', 3);
  if (a >= 1000) return QString::number(v, 'f', 0);
  return QString::number(v, 'g', 4);
}

QString formatDuration(double seconds) {
  const auto s = static_cast<qint64>(std::max(0.0, std::round(seconds)));
  return QStringLiteral("%1:%2:%3")
      .arg(s / 3600)
      .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
      .arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString formatMiB(double bytes) {
  return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 0);
}

QColor seriesColor(int index) {
  static const QColor colors[] = {
      QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34),  QColor(23, 190, 207)};
  return colors[static_cast<unsigned>(index) % 10];
}

void linkCharts(const std::vector<MetricChart*>& charts, QObject* context,
                const std::function<void()>& userRanged) {
  for (MetricChart* c : charts) {
    QObject::connect(c, &MetricChart::trackerMoved, context, [charts](double x) {
      for (MetricChart* o : charts) o->showTrackerAt(x);
    });
    QObject::connect(c, &MetricChart::trackerLeft, context, [charts] {
      for (MetricChart* o : charts) o->hideTracker();
    });
    QObject::connect(c, &MetricChart::userChangedXRange, context,
                     [charts, c, userRanged](const QCPRange& r) {
                       for (MetricChart* o : charts) {
                         if (o == c) continue;
                         o->setFollowing(false);
                         o->xAxis->setRange(r);
                         o->fitY();
                         o->replot(QCustomPlot::rpQueuedReplot);
                       }
                       if (userRanged) userRanged();
                     });
    QObject::connect(c, &MetricChart::followingChanged, context, [charts](bool on) {
      if (!on) return;
      for (MetricChart* o : charts) {
        o->setFollowing(true);
        o->replot(QCustomPlot::rpQueuedReplot);
      }
    });
  }
}

QColor stableColor(const QString& key) {
  return seriesColor(static_cast<int>(qHash(key) % 10));
}

namespace {
int paletteIndex(const QColor& c) {
  for (int i = 0; i < 10; ++i)
    if (seriesColor(i) == c) return i;
  return -1;
}
// Palette neighbours a reader mixes up when two runs' thin lines cross: orange/red, red/brown,
// purple/pink, blue/cyan, green/olive.
bool closeColors(const QColor& a, const QColor& b) {
  if (a == b) return true;
  const int i = std::min(paletteIndex(a), paletteIndex(b)),
            j = std::max(paletteIndex(a), paletteIndex(b));
  return (i == 1 && j == 3) || (i == 3 && j == 5) || (i == 4 && j == 6) || (i == 0 && j == 9) ||
         (i == 2 && j == 8);
}
}  // namespace

std::vector<QColor> distinctColors(const QStringList& keys) {
  std::vector<QColor> colors;
  for (const QString& key : keys) {
    auto clashes = [&colors](const QColor& c) {
      return std::any_of(colors.begin(), colors.end(),
                         [&c](const QColor& taken) { return closeColors(c, taken); });
    };
    QColor c = stableColor(key);
    for (int k = 0; k < 10 && clashes(c); ++k) c = seriesColor(k);
    if (clashes(c))  // more runs than distinct colours: at least not the same as another
      for (int k = 0; k < 10; ++k)
        if (std::none_of(colors.begin(), colors.end(),
                         [k](const QColor& t) { return t == seriesColor(k); })) {
          c = seriesColor(k);
          break;
        }
    colors.push_back(c);
  }
  return colors;
}

MetricChart::MetricChart(const QString& id, const QString& title, const QString& yLabel,
                         QWidget* parent)
    : QCustomPlot(parent), id_(id), title_(title) {
  setObjectName(id);
  plotLayout()->insertRow(0);
  titleElement_ =
      new QCPTextElement(this, title, QFont(font().family(), font().pointSize(), QFont::Bold));
  plotLayout()->addElement(0, 0, titleElement_);
  plotLayout()->setRowSpacing(0);
  yAxis->setLabel(yLabel);
  const QPalette pal = palette();
  setBackground(pal.color(QPalette::Base));
  for (QCPAxis* axis : {xAxis, yAxis}) {
    axis->setBasePen(QPen(pal.color(QPalette::Mid)));
    axis->setTickPen(QPen(pal.color(QPalette::Mid)));
    axis->setSubTickPen(QPen(pal.color(QPalette::Mid)));
    axis->setTickLabelColor(pal.color(QPalette::Text));
    axis->setLabelColor(pal.color(QPalette::Text));
    axis->grid()->setPen(QPen(pal.color(QPalette::Midlight), 0, Qt::DotLine));
  }
  titleElement_->setTextColor(pal.color(QPalette::Text));
  legend->setVisible(true);
  legend->setBrush(QColor(pal.color(QPalette::Base).red(), pal.color(QPalette::Base).green(),
                          pal.color(QPalette::Base).blue(), 200));
  legend->setBorderPen(Qt::NoPen);
  legend->setTextColor(pal.color(QPalette::Text));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  legend->setFont(small);
  legend->setIconSize(14, 8);
  axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  axisRect()->setRangeZoom(Qt::Horizontal);
  setNoAntialiasingOnDrag(true);
  setNotAntialiasedElements(QCP::aeAll);
  setAntialiasedElements(QCP::aeLegend | QCP::aeAxes);
  setMinimumSize(220, 150);

  trackerLine_ = new QCPItemStraightLine(this);
  trackerLine_->setPen(QPen(pal.color(QPalette::Text), 0, Qt::DashLine));
  trackerLine_->setVisible(false);
  trackerLine_->setSelectable(false);
  trackerText_ = new QCPItemText(this);
  trackerText_->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
  trackerText_->position->setType(QCPItemPosition::ptAxisRectRatio);
  trackerText_->position->setCoords(0.01, 0.02);
  trackerText_->setTextAlignment(Qt::AlignLeft);
  trackerText_->setFont(small);
  trackerText_->setColor(pal.color(QPalette::Text));
  trackerText_->setBrush(QColor(pal.color(QPalette::Base).red(), pal.color(QPalette::Base).green(),
                                pal.color(QPalette::Base).blue(), 220));
  trackerText_->setPadding(QMargins(4, 2, 4, 2));
  trackerText_->setVisible(false);
  trackerText_->setSelectable(false);
  noteText_ = new QCPItemText(this);
  noteText_->setPositionAlignment(Qt::AlignCenter);
  noteText_->position->setType(QCPItemPosition::ptAxisRectRatio);
  noteText_->position->setCoords(0.5, 0.78);
  noteText_->setTextAlignment(Qt::AlignCenter);
  noteText_->setFont(small);
  noteText_->setColor(pal.color(QPalette::PlaceholderText));
  noteText_->setVisible(false);
  noteText_->setSelectable(false);
  emptyText_ = new QCPItemText(this);
  emptyText_->setPositionAlignment(Qt::AlignCenter);
  emptyText_->position->setType(QCPItemPosition::ptAxisRectRatio);
  emptyText_->position->setCoords(0.5, 0.5);
  emptyText_->setFont(small);
  emptyText_->setColor(pal.color(QPalette::PlaceholderText));
  emptyText_->setText(tr("no data"));
  emptyText_->setSelectable(false);
  showEmpty(true);
  connect(this, &QCustomPlot::beforeReplot, this, &MetricChart::refreshEnvelopes);
  connect(this, &QCustomPlot::beforeReplot, this, &MetricChart::placeLegend);
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this](const QCPRange& r) {
            if (!following_) emit userChangedXRange(r);
          });
}

void MetricChart::setNote(const QString& text) {
  if (text == note_) return;
  note_ = text;
  noteText_->setText(text);
  noteText_->setVisible(!text.isEmpty());
  emptyText_->setVisible(text.isEmpty() && !xAxis->tickLabels());
}

int MetricChart::addSeries(const QString& name, const QColor& color, Style style,
                           QCPScatterStyle::ScatterShape marker) {
  QCPGraph* g = addGraph();
  g->setName(name);
  g->setAdaptiveSampling(true);
  QColor c = color;
  switch (style) {
    case Style::Line:
      g->setPen(QPen(c, 1.0));
      break;  // wider pens cost 7x per replot (measured)
    case Style::Faint:
      c.setAlpha(70);
      g->setPen(QPen(c, 1.0));
      break;
    case Style::Points:
      g->setPen(QPen(c, 1.0));
      g->setScatterStyle(QCPScatterStyle(marker, c, c, 5));
      break;
    case Style::Markers:
      g->setLineStyle(QCPGraph::lsNone);
      g->setScatterStyle(QCPScatterStyle(marker, QPen(c, 1.5), c, 7));
      break;
  }
  stores_.emplace_back();
  return graphCount() - 1;
}

void MetricChart::appendPoints(int series, const QVector<double>& x, const QVector<double>& y) {
  if (x.isEmpty()) return;
  QCPGraph* g = graph(series);
  Store& e = stores_[static_cast<std::size_t>(series)];
  const bool sorted = e.x.empty() || x.front() >= e.x.back();
  for (int i = 0; i < x.size(); ++i) {
    e.x.push_back(x[i]);
    e.y.push_back(y[i]);
    const double v = y[i];
    if (!std::isfinite(v) || !std::isfinite(x[i])) continue;
    if (!e.any) {
      e.any = true;
      e.minKey = e.maxKey = x[i], e.minValue = e.maxValue = v, e.minPositive = v > 0 ? v : 0;
      continue;
    }
    e.minKey = std::min(e.minKey, x[i]), e.maxKey = std::max(e.maxKey, x[i]);
    e.minValue = std::min(e.minValue, v), e.maxValue = std::max(e.maxValue, v);
    if (v > 0 && (e.minPositive == 0 || v < e.minPositive)) e.minPositive = v;
  }
  if (e.any && !xAxis->tickLabels()) showEmpty(false);
  if (!sorted) {  // rare (markers out of order): keep the columns sorted by key
    std::vector<std::size_t> order(e.x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&e](std::size_t a, std::size_t b) { return e.x[a] < e.x[b]; });
    std::vector<double> nx, ny;
    for (std::size_t i : order) nx.push_back(e.x[i]), ny.push_back(e.y[i]);
    e.x.swap(nx), e.y.swap(ny);
    e.levels.clear();
  }
  extendPyramid(e);
  if (e.x.size() <= directPoints_) {
    g->addData(x, y, sorted);
  } else if (!e.envelope) {
    e.envelope = true;  // from now on the graph gets envelopes before each replot
    g->data()->clear();
  }
}

void MetricChart::extendPyramid(Store& s) {
  auto merge = [](Block& b, double k, double v) {
    if (!std::isfinite(v)) return;
    if (!b.any) {
      b = {k, v, k, v, true};
      return;
    }
    if (v < b.minValue) b.minValue = v, b.minKey = k;
    if (v > b.maxValue) b.maxValue = v, b.maxKey = k;
  };
  if (s.levels.empty()) s.levels.emplace_back();
  while ((s.levels[0].size() + 1) * kBlock <= s.x.size()) {
    Block b{0, 0, 0, 0, false};
    const std::size_t start = s.levels[0].size() * kBlock;
    for (std::size_t i = start; i < start + kBlock; ++i) merge(b, s.x[i], s.y[i]);
    s.levels[0].push_back(b);
  }
  for (std::size_t L = 1;; ++L) {
    if (s.levels[L - 1].size() < kFan) break;
    if (s.levels.size() <= L) s.levels.emplace_back();
    while ((s.levels[L].size() + 1) * kFan <= s.levels[L - 1].size()) {
      Block b{0, 0, 0, 0, false};
      const std::size_t start = s.levels[L].size() * kFan;
      for (std::size_t i = start; i < start + kFan; ++i) {
        const Block& c = s.levels[L - 1][i];
        if (!c.any) continue;
        merge(b, c.minKey, c.minValue);
        merge(b, c.maxKey, c.maxValue);
      }
      s.levels[L].push_back(b);
    }
  }
}

void MetricChart::appendEnvelope(const Store& s, int level, std::size_t i0, std::size_t i1,
                                 QVector<QCPGraphData>& out) const {
  if (i0 >= i1) return;
  if (level < 0) {
    for (std::size_t i = i0; i < i1; ++i) out.append(QCPGraphData(s.x[i], s.y[i]));
    return;
  }
  std::size_t size = kBlock;
  for (int l = 0; l < level; ++l) size *= kFan;
  const auto& blocks = s.levels[static_cast<std::size_t>(level)];
  const std::size_t b0 = (i0 + size - 1) / size, b1 = std::min(i1 / size, blocks.size());
  if (b0 >= b1) {
    appendEnvelope(s, level - 1, i0, i1, out);
    return;
  }
  appendEnvelope(s, level - 1, i0, b0 * size, out);
  for (std::size_t b = b0; b < b1; ++b) {
    const Block& k = blocks[b];
    if (!k.any) continue;
    if (k.minKey <= k.maxKey) {
      out.append(QCPGraphData(k.minKey, k.minValue));
      if (k.maxKey != k.minKey) out.append(QCPGraphData(k.maxKey, k.maxValue));
    } else {
      out.append(QCPGraphData(k.maxKey, k.maxValue));
      out.append(QCPGraphData(k.minKey, k.minValue));
    }
  }
  appendEnvelope(s, level - 1, b1 * size, i1, out);
}

void MetricChart::setLegendCorner(Qt::Alignment corner) {
  preferredCorner_ = corner;
  axisRect()->insetLayout()->setInsetAlignment(0, corner);
}

// Data points (of the drawn graphs, inside the visible X range) whose pixels fall in `area`;
// long series are sampled so that about `budget` points per graph are looked at.
int MetricChart::pointsUnder(const QRectF& area, int budget) const {
  int n = 0;
  const QCPRange r = xAxis->range();
  for (int i = 0; i < graphCount(); ++i) {
    const QCPGraph* g = graph(i);
    if (!g->visible() || g->dataCount() == 0) continue;
    const auto data = g->data();
    const auto begin = data->findBegin(r.lower), end = data->findEnd(r.upper);
    const auto count = end - begin;
    const auto stride = std::max<decltype(count)>(1, count / std::max(1, budget));
    for (auto it = begin; it < end; it += stride) {
      if (!std::isfinite(it->value)) continue;
      const QPointF p(xAxis->coordToPixel(it->key), yAxis->coordToPixel(it->value));
      if (area.contains(p)) n += static_cast<int>(stride);
    }
  }
  return n;
}

void MetricChart::placeLegend() {
  if (!legend->visible() || legend->itemCount() == 0) return;
  const QSizeF size = legend->outerRect().size();  // from the last layout
  const QRectF plot = axisRect()->rect();
  if (size.isEmpty() || plot.isEmpty()) return;
  auto areaOf = [&](Qt::Alignment c) {
    const double x = c & Qt::AlignLeft ? plot.left() : plot.right() - size.width();
    const double y = c & Qt::AlignTop ? plot.top() : plot.bottom() - size.height();
    return QRectF(QPointF(x, y), size);
  };
  const Qt::Alignment corners[] = {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                   Qt::AlignBottom | Qt::AlignRight,
                                   Qt::AlignBottom | Qt::AlignLeft};
  const Qt::Alignment current = legendCorner();
  if (current != preferredCorner_ && pointsUnder(areaOf(preferredCorner_), 500) == 0) {
    axisRect()->insetLayout()->setInsetAlignment(
        0, preferredCorner_);  // its own corner is clear again
    return;
  }
  const int here = pointsUnder(areaOf(current), 500);
  if (here == 0) return;
  Qt::Alignment best = current;
  int fewest = here;
  for (Qt::Alignment c : corners) {
    if (c == current) continue;
    const int n = pointsUnder(areaOf(c), 500);
    // Another corner only when it hides clearly fewer points: the legend must not flicker.
    if (n < fewest && (c == preferredCorner_ ? n * 4 <= here * 3 : n * 2 <= here))
      best = c, fewest = n;
  }
  if (best != current) axisRect()->insetLayout()->setInsetAlignment(0, best);
}

void MetricChart::refreshEnvelopes() {
  const double pixels = std::max(1, axisRect()->width());
  const QCPRange r = xAxis->range();
  for (int i = 0; i < graphCount(); ++i) {
    const Store& s = stores_[static_cast<std::size_t>(i)];
    if (!s.envelope) continue;
    // The visible points, one more on each side so lines run to the edges.
    std::size_t i0 =
        static_cast<std::size_t>(std::lower_bound(s.x.begin(), s.x.end(), r.lower) - s.x.begin());
    std::size_t i1 =
        static_cast<std::size_t>(std::upper_bound(s.x.begin(), s.x.end(), r.upper) - s.x.begin());
    i0 = i0 > 0 ? i0 - 1 : 0;
    i1 = std::min(s.x.size(), i1 + 1);
    int level = -1;
    std::size_t size = kBlock;
    while (static_cast<std::size_t>(level + 1) < s.levels.size() &&
           static_cast<double>(i1 - i0) / static_cast<double>(size) >= pixels) {
      ++level;
      size *= kFan;
    }
    QVector<QCPGraphData> out;
    out.reserve(static_cast<int>(
        std::min<std::size_t>(i1 - i0, static_cast<std::size_t>(pixels) * 4 + 64)));
    appendEnvelope(s, level, i0, i1, out);
    graph(i)->data()->set(out, true);
  }
}

void MetricChart::showEmpty(bool empty) {
  // Without points QCustomPlot's default 0-5 ranges would read as data: no numbers, a word instead.
  for (QCPAxis* axis : {xAxis, yAxis}) axis->setTickLabels(!empty);
  emptyText_->setVisible(empty && note_.isEmpty());
}

bool MetricChart::showsEmpty() const {
  return emptyText_->visible();
}

void MetricChart::clearPoints() {
  showEmpty(true);
  for (int i = 0; i < graphCount(); ++i) graph(i)->data()->clear();
  for (Store& e : stores_) e = Store{};
  for (auto& [line, text] : markers_) {
    removeItem(line);
    removeItem(text);
  }
  markers_.clear();
}

void MetricChart::addVerticalMarker(double x, const QString& label, bool showLabel) {
  const QColor color = QColor("#7f7f7f");
  auto* line = new QCPItemStraightLine(this);
  line->setPen(QPen(color, 0, Qt::DotLine));
  line->point1->setCoords(x, 0);
  line->point2->setCoords(x, 1);
  line->setSelectable(false);
  auto* text = new QCPItemText(this);
  text->position->setTypeX(QCPItemPosition::ptPlotCoords);
  text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(x, 0.98);
  // Turned to read upwards, its top edge against the line: the text lies right of it, over the
  // phase it names.
  text->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
  text->setRotation(-90);
  text->setPadding(QMargins(0, 2, 0, 0));
  text->setVisible(showLabel);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  text->setFont(small);
  text->setColor(color);
  text->setText(label);
  text->setSelectable(false);
  markers_.emplace_back(line, text);
}

QString MetricChart::verticalMarkerLabel(int i) const {
  return markers_.at(static_cast<std::size_t>(i)).second->text();
}
bool MetricChart::verticalMarkerLabelShown(int i) const {
  return markers_.at(static_cast<std::size_t>(i)).second->visible();
}

void MetricChart::removeAllSeries() {
  clearGraphs();
  stores_.clear();
}

std::size_t MetricChart::pointCount(int series) const {
  return stores_[static_cast<std::size_t>(series)].x.size();
}

void MetricChart::setPointNote(int series, double x, const QString& note) {
  stores_[static_cast<std::size_t>(series)].notes[x] = note;
}

void MetricChart::setYScale(YScale scale) {
  yScale_ = scale;
  if (scale == YScale::Linear) {
    yAxis->setScaleType(QCPAxis::stLinear);
    yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    yAxis->setNumberFormat("gb");
  } else {
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    if (scale == YScale::Log2) {
      QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
      ticker->setLogBase(2);
      ticker->setSubTickCount(0);
      yAxis->setTicker(ticker);
    } else {
      yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new DecadeTicker));
    }
    yAxis->setNumberFormat("gb");
    yAxis->setNumberPrecision(6);
  }
  if (following_)
    fitIfFollowing();
  else
    fitY();
}

void MetricChart::setXLabel(const QString& label) {
  xAxis->setLabel(label);
}

void MetricChart::setFollowing(bool on) {
  if (following_ == on) return;
  following_ = on;
  if (on) fitIfFollowing();
  emit followingChanged(on);
}

void MetricChart::fitIfFollowing() {
  if (!following_) return;
  bool found = false, foundY = false;
  QCPRange keys, values;
  const bool log = yScale_ != YScale::Linear;
  for (int i = 0; i < graphCount(); ++i) {
    const Store& e = stores_[static_cast<std::size_t>(i)];
    if (!e.any || !graph(i)->visible()) continue;
    keys = found ? QCPRange(std::min(keys.lower, e.minKey), std::max(keys.upper, e.maxKey))
                 : QCPRange(e.minKey, e.maxKey);
    found = true;
    if (log && e.minPositive <= 0) continue;
    const QCPRange v(log ? e.minPositive : e.minValue, e.maxValue);
    values =
        foundY ? QCPRange(std::min(values.lower, v.lower), std::max(values.upper, v.upper)) : v;
    foundY = true;
  }
  showEmpty(!found);
  if (!found) return;
  if (keys.size() <= 0) keys = QCPRange(keys.lower - 0.5, keys.upper + 0.5);
  xAxis->setRange(keys);
  if (foundY) setYRange(values);
}

void MetricChart::fitY() {
  const bool log = yScale_ != YScale::Linear;
  const QCPRange r = xAxis->range();
  bool found = false;
  QCPRange values;
  for (int i = 0; i < graphCount(); ++i) {
    if (!graph(i)->visible()) continue;
    const Store& s = stores_[static_cast<std::size_t>(i)];
    const auto i0 = std::lower_bound(s.x.begin(), s.x.end(), r.lower) - s.x.begin();
    const auto i1 = std::upper_bound(s.x.begin(), s.x.end(), r.upper) - s.x.begin();
    for (auto k = i0; k < i1; ++k) {
      const double v = s.y[static_cast<std::size_t>(k)];
      if (!std::isfinite(v) || (log && v <= 0)) continue;
      values =
          found ? QCPRange(std::min(values.lower, v), std::max(values.upper, v)) : QCPRange(v, v);
      found = true;
    }
  }
  if (found) setYRange(values);
}

void MetricChart::setYRange(const QCPRange& values) {
  if (yScale_ == YScale::Linear) {
    const double pad =
        values.size() > 0 ? values.size() * 0.06 : std::max(std::abs(values.upper) * 0.1, 1e-9);
    yAxis->setRange(values.lower - pad, values.upper + pad);
  } else if (yScale_ == YScale::Log10) {
    // The data with a 30% margin, and at least a factor 3 around its middle (a constant series
    // still gets three 1-2-5 ticks) rather than decades of empty axis.
    double lower = values.lower / 1.3, upper = values.upper * 1.3;
    if (upper / lower < 3) {
      const double mid = std::sqrt(lower * upper);
      lower = mid / std::sqrt(3.0);
      upper = mid * std::sqrt(3.0);
    }
    yAxis->setRange(lower, upper);
  } else {
    // At least a factor 4 either way, so a constant series (a loss scale of 1) shows real ticks.
    const double lower = values.upper / values.lower < 16
                             ? std::min(values.lower / 1.3, values.upper / 4)
                             : values.lower / 1.3;
    const double upper = values.upper / values.lower < 16
                             ? std::max(values.upper * 1.3, values.lower * 4)
                             : values.upper * 1.3;
    yAxis->setRange(lower, upper);
  }
}

double MetricChart::nearestPointX(double x) const {
  double best = x, distance = std::numeric_limits<double>::infinity();
  for (int i = 0; i < graphCount(); ++i) {
    const Store& s = stores_[static_cast<std::size_t>(i)];
    if (s.x.empty() || !graph(i)->visible()) continue;
    const auto it = std::lower_bound(s.x.begin(), s.x.end(), x);
    for (auto c : {it, it == s.x.begin() ? it : std::prev(it)})
      if (c != s.x.end() && std::abs(*c - x) < distance) {
        distance = std::abs(*c - x);
        best = *c;
      }
  }
  return best;
}

QStringList MetricChart::valuesAt(double x) const {
  QStringList lines;
  const QString unit =
      valueUnit_.isEmpty() ? QString() : (valueUnit_ == "%" ? valueUnit_ : " " + valueUnit_);
  for (int i = 0; i < graphCount(); ++i) {
    QCPGraph* g = graph(i);
    const Store& s = stores_[static_cast<std::size_t>(i)];
    if (s.x.empty() || !g->visible()) continue;
    std::size_t k =
        static_cast<std::size_t>(std::lower_bound(s.x.begin(), s.x.end(), x) - s.x.begin());
    if (k == s.x.size() || (k > 0 && std::abs(s.x[k - 1] - x) <= std::abs(s.x[k] - x)))
      k = k == 0 ? 0 : k - 1;
    if (g->lineStyle() == QCPGraph::lsNone && std::abs(s.x[k] - x) > xAxis->range().size() * 0.01)
      continue;
    QString line = QStringLiteral("%1: %2%3").arg(g->name(), formatMetric(s.y[k]), unit);
    if (const auto note = s.notes.find(s.x[k]); note != s.notes.end())
      line += QStringLiteral(" (%1)").arg(note->second);
    lines << line;
  }
  return lines;
}

QString MetricChart::trackerText() const {
  return trackerText_->visible() ? trackerText_->text() : QString();
}

void MetricChart::showTrackerAt(double cursorX) {
  // The readout names a point that exists (step 120, not 119.73): the one nearest the cursor.
  const double x = nearestPointX(cursorX);
  const QStringList lines = valuesAt(x);
  if (lines.isEmpty()) {
    hideTracker();
    return;
  }
  trackerLine_->point1->setCoords(x, 0);
  trackerLine_->point2->setCoords(x, 1);
  trackerLine_->setVisible(true);
  trackerText_->setText(
      QStringLiteral("%1 %2\n%3").arg(xAxis->label(), formatMetric(x), lines.join('\n')));
  // Keep the box on the side away from the cursor.
  const bool right = xAxis->coordToPixel(x) < axisRect()->center().x();
  trackerText_->setPositionAlignment(Qt::AlignTop | (right ? Qt::AlignRight : Qt::AlignLeft));
  trackerText_->position->setCoords(right ? 0.99 : 0.01, 0.02);
  legend->setVisible(false);
  trackerText_->setVisible(true);
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::hideTracker() {
  if (!trackerLine_->visible()) return;
  trackerLine_->setVisible(false);
  trackerText_->setVisible(false);
  legend->setVisible(true);
  replot(QCustomPlot::rpQueuedReplot);
}

bool MetricChart::exportTo(const QString& path, int width, int height) {
  const bool tracker = trackerLine_->visible();
  trackerLine_->setVisible(false);
  trackerText_->setVisible(false);
  legend->setVisible(true);
  const bool ok = QFileInfo(path).suffix().compare("pdf", Qt::CaseInsensitive) == 0
                      ? savePdf(path, width, height)
                      : savePng(path, width, height, 2.0);
  trackerLine_->setVisible(tracker);
  trackerText_->setVisible(tracker);
  legend->setVisible(!tracker);
  return ok;
}

void MetricChart::userInteracted() {
  setFollowing(false);
}

void MetricChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  if (axisRect()->rect().contains(event->pos()))
    emit trackerMoved(xAxis->pixelToCoord(event->position().x()));
  if (event->buttons() & Qt::LeftButton) userInteracted();
}

void MetricChart::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  emit trackerLeft();
}

void MetricChart::wheelEvent(QWheelEvent* event) {
  axisRect()->setRangeZoom(event->modifiers() & Qt::ControlModifier ? Qt::Vertical
                                                                    : Qt::Horizontal);
  userInteracted();
  QCustomPlot::wheelEvent(event);
}

void MetricChart::mousePressEvent(QMouseEvent* event) {
  QCustomPlot::mousePressEvent(event);
}

void MetricChart::mouseDoubleClickEvent(QMouseEvent* event) {
  QCustomPlot::mouseDoubleClickEvent(event);
  following_ = false;  // so setFollowing(true) refits and tells the listeners
  setFollowing(true);
  replot();
}

void MetricChart::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("Reset view (follow)"), this, [this] {
    following_ = false;
    setFollowing(true);
    replot();
  });
  QMenu* scale = menu.addMenu(tr("Y scale"));
  for (auto [label, s] : {std::pair<QString, YScale>{tr("Linear"), YScale::Linear},
                          {tr("Log 10"), YScale::Log10},
                          {tr("Log 2"), YScale::Log2}}) {
    QAction* a = scale->addAction(label, this, [this, s = s] {
      setYScale(s);
      replot();
    });
    a->setCheckable(true);
    a->setChecked(yScale_ == s);
  }
  menu.addSeparator();
  menu.addAction(tr("Export as PNG…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), title_ + ".png",
                                                      tr("PNG images (*.png)"));
    if (!path.isEmpty()) exportTo(path);
  });
  menu.addAction(tr("Export as PDF…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), title_ + ".pdf",
                                                      tr("PDF documents (*.pdf)"));
    if (!path.isEmpty()) exportTo(path);
  });
  menu.exec(event->globalPos());
}

}  // namespace amp::widgets
