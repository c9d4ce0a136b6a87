#include "MetricChart.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ChartTracker.h"

namespace amp::widgets {

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

MetricChart::MetricChart(const QString& id, const QString& title, const QString& yLabel,
                         QWidget* parent)
    : QCustomPlot(parent), id_(id), title_(title), legendPlacer_(this) {
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

  // Created here, not earlier: items draw in the order they were made (tracker under the note).
  tracker_ = std::make_unique<ChartTracker>(this, small);
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
  endLabel_ = new QCPItemText(this);
  endLabel_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  endLabel_->setFont(small);
  endLabel_->setPadding(QMargins(3, 1, 3, 1));
  endLabel_->setBrush(legend->brush());
  endLabel_->setVisible(false);
  endLabel_->setSelectable(false);
  endLabel_->setClipToAxisRect(false);
  showEmpty(true);
  connect(this, &QCustomPlot::beforeReplot, this, &MetricChart::refreshEnvelopes);
  connect(this, &QCustomPlot::beforeReplot, this, [this] { legendPlacer_.place(); });
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this](const QCPRange& r) {
            if (!following_) emit userChangedXRange(r);
          });
}

MetricChart::~MetricChart() = default;

void MetricChart::setNote(const QString& text) {
  if (text == note_) return;
  note_ = text;
  noteText_->setText(text);
  noteText_->setVisible(!text.isEmpty());
  emptyText_->setVisible(text.isEmpty() && !xAxis->tickLabels());
}

void MetricChart::setTitle(const QString& title, const QString& yLabel) {
  if (title == title_ && yLabel == yAxis->label()) return;
  title_ = title;
  titleElement_->setText(title);
  yAxis->setLabel(yLabel);
  replot(QCustomPlot::rpQueuedReplot);
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
    case Style::Strong:
      g->setPen(QPen(c, 2.0));
      break;
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
  store_.addSeries();
  roles_.push_back(Role::Curve);
  pens_.push_back(g->pen());
  return graphCount() - 1;
}

void MetricChart::setSeriesRole(int series, Role role) {
  roles_.at(static_cast<std::size_t>(series)) = role;
  if (role != Role::Curve) graph(series)->removeFromLegend();
}

void MetricChart::fillBetween(int lower, int upper, const QColor& color) {
  QColor c = color;
  c.setAlpha(45);
  graph(upper)->setBrush(c);
  graph(upper)->setChannelFillGraph(graph(lower));
}

void MetricChart::setSeriesVisible(int series, bool on) {
  graph(series)->setVisible(on);
  if (hovered_ == series && !on) showEndLabel(-1);
}

void MetricChart::setEmphasis(const std::vector<int>& series) {
  for (int i = 0; i < graphCount(); ++i) {
    QPen pen = pens_[static_cast<std::size_t>(i)];
    if (!series.empty()) {
      if (std::find(series.begin(), series.end(), i) != series.end()) {
        pen.setWidthF(2.5);  // one curve: the 7x cost of wide pens is small here
      } else {
        QColor c = pen.color();
        c.setAlpha(std::min(c.alpha(), 40));
        pen.setColor(c);
      }
    }
    graph(i)->setPen(pen);
  }
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricChart::setInPlotLegend(bool on) {
  inPlotLegend_ = on;
  tracker_->setLegendWanted(on);
}

int MetricChart::seriesAt(const QPointF& pos, double pixels) const {
  const double x = xAxis->pixelToCoord(pos.x());
  int best = -1;
  double bestDistance = pixels;
  for (int i = 0; i < graphCount(); ++i) {
    if (!graph(i)->visible() || roles_[static_cast<std::size_t>(i)] == Role::Band) continue;
    const std::vector<double>& xs = store_.xs(i);
    const std::vector<double>& ys = store_.ys(i);
    if (xs.empty()) continue;
    // The curve's height under the mouse: between its two points around x for a line, at the
    // nearest point for markers or past either end (within a few pixels of it).
    double y = 0;
    const auto after = std::lower_bound(xs.begin(), xs.end(), x) - xs.begin();
    if (after > 0 && after < static_cast<std::ptrdiff_t>(xs.size()) &&
        graph(i)->lineStyle() != QCPGraph::lsNone) {
      const auto k = static_cast<std::size_t>(after);
      const double t = xs[k] > xs[k - 1] ? (x - xs[k - 1]) / (xs[k] - xs[k - 1]) : 1.0;
      y = ys[k - 1] + t * (ys[k] - ys[k - 1]);
    } else {
      const std::size_t k = store_.nearestIndex(i, x);
      if (std::abs(xAxis->coordToPixel(xs[k]) - pos.x()) > pixels) continue;
      y = ys[k];
    }
    if (!std::isfinite(y)) continue;
    const double d = std::abs(yAxis->coordToPixel(y) - pos.y());
    if (d <= bestDistance) best = i, bestDistance = d;
  }
  return best;
}

void MetricChart::showEndLabel(int series) {
  hovered_ = series;
  if (series < 0 || series >= graphCount() || store_.pointCount(series) == 0) {
    hovered_ = -1;
    if (endLabel_->visible()) {
      endLabel_->setVisible(false);
      replot(QCustomPlot::rpQueuedReplot);
    }
    return;
  }
  endLabel_->position->setCoords(store_.xs(series).back(), store_.ys(series).back());
  endLabel_->setText(graph(series)->name());
  endLabel_->setColor(pens_[static_cast<std::size_t>(series)].color());
  endLabel_->setVisible(true);
  replot(QCustomPlot::rpQueuedReplot);
}

QString MetricChart::endLabel() const {
  return endLabel_->visible() ? endLabel_->text() : QString();
}

void MetricChart::appendPoints(int series, const QVector<double>& x, const QVector<double>& y) {
  if (x.isEmpty()) return;
  const SeriesStore::Appended added = store_.append(
      series, x.constData(), y.constData(), static_cast<std::size_t>(std::min(x.size(), y.size())));
  if (store_.extents(series).any && !xAxis->tickLabels()) showEmpty(false);
  if (!store_.enveloped(series))
    graph(series)->addData(x, y, added.inOrder);
  else if (added.envelopeStarted)
    graph(series)->data()->clear();  // from now on the graph gets envelopes before each replot
}

void MetricChart::setLegendCorner(Qt::Alignment corner) {
  legendPlacer_.setPreferredCorner(corner);
}

void MetricChart::refreshEnvelopes() {
  const double pixels = std::max(1, axisRect()->width());
  const QCPRange r = xAxis->range();
  std::vector<SeriesStore::Point> points;
  for (int i = 0; i < graphCount(); ++i) {
    if (!store_.enveloped(i)) continue;
    store_.envelope(i, r.lower, r.upper, pixels, points);
    QVector<QCPGraphData> out;
    out.reserve(static_cast<int>(points.size()));
    for (const SeriesStore::Point& p : points) out.append(QCPGraphData(p.x, p.y));
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
  store_.clearPoints();
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
  store_.removeAll();
  roles_.clear();
  pens_.clear();
  hovered_ = -1;
  endLabel_->setVisible(false);
}

void MetricChart::setPointNote(int series, double x, const QString& note) {
  store_.setNote(series, x, note.toStdString());
}

void MetricChart::setYScale(YScale scale) {
  yScale_ = scale;
  applyYScale(*yAxis, scale);
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
    const SeriesStore::Extents& e = store_.extents(i);
    if (!e.any || !graph(i)->visible()) continue;
    keys = found ? QCPRange(std::min(keys.lower, e.minX), std::max(keys.upper, e.maxX))
                 : QCPRange(e.minX, e.maxX);
    found = true;
    if (log && e.minPositiveY <= 0) continue;
    const QCPRange v(log ? e.minPositiveY : e.minY, e.maxY);
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
    double lower = 0, upper = 0;
    if (!store_.valueRange(i, r.lower, r.upper, log, &lower, &upper)) continue;
    values = found ? QCPRange(std::min(values.lower, lower), std::max(values.upper, upper))
                   : QCPRange(lower, upper);
    found = true;
  }
  if (found) setYRange(values);
}

void MetricChart::setYRange(const QCPRange& values) {
  yAxis->setRange(paddedYRange(yScale_, values));
}

double MetricChart::nearestPointX(double x) const {
  double best = x, distance = std::numeric_limits<double>::infinity();
  for (int i = 0; i < graphCount(); ++i) {
    if (!graph(i)->visible() || roles_[static_cast<std::size_t>(i)] != Role::Curve) continue;
    // Halfway between two points the later one wins; the first series wins a tie between series.
    const std::size_t k = store_.nearestIndex(i, x, SeriesStore::Tie::Later);
    if (k == SeriesStore::kNone) continue;
    const double c = store_.xs(i)[k];
    if (std::abs(c - x) < distance) {
      distance = std::abs(c - x);
      best = c;
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
    if (!g->visible() || roles_[static_cast<std::size_t>(i)] != Role::Curve) continue;
    const std::size_t k = store_.nearestIndex(i, x, SeriesStore::Tie::Earlier);
    if (k == SeriesStore::kNone) continue;
    const double px = store_.xs(i)[k];
    // Markers (no line between them) say nothing between their points.
    if (g->lineStyle() == QCPGraph::lsNone && std::abs(px - x) > xAxis->range().size() * 0.01)
      continue;
    QString line = QStringLiteral("%1: %2%3").arg(g->name(), formatMetric(store_.ys(i)[k]), unit);
    if (const std::string* note = store_.note(i, px))
      line += QStringLiteral(" (%1)").arg(QString::fromStdString(*note));
    lines << line;
  }
  return lines;
}

QString MetricChart::trackerText() const {
  return tracker_->text();
}

void MetricChart::showTrackerAt(double cursorX) {
  // The readout names a point that exists (step 120, not 119.73): the one nearest the cursor.
  const double x = nearestPointX(cursorX);
  const QStringList lines = valuesAt(x);
  if (lines.isEmpty()) {
    hideTracker();
    return;
  }
  tracker_->showAt(x, lines);
}

void MetricChart::hideTracker() {
  tracker_->hide();
}

bool MetricChart::exportTo(const QString& path, int width, int height) {
  const bool tracker = tracker_->visible();
  tracker_->setVisible(false);
  const bool ok = QFileInfo(path).suffix().compare("pdf", Qt::CaseInsensitive) == 0
                      ? savePdf(path, width, height)
                      : savePng(path, width, height, 2.0);
  tracker_->setVisible(tracker);
  return ok;
}

void MetricChart::userInteracted() {
  setFollowing(false);
}

void MetricChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  if (axisRect()->rect().contains(event->pos())) {
    emit trackerMoved(xAxis->pixelToCoord(event->position().x()));
    const int s = seriesAt(event->position());
    if (s != hovered_) {
      showEndLabel(s);
      emit seriesHovered(s);
    }
  }
  if (event->buttons() & Qt::LeftButton) userInteracted();
}

void MetricChart::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  emit trackerLeft();
  if (hovered_ >= 0) {
    showEndLabel(-1);
    emit seriesHovered(-1);
  }
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