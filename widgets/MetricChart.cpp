#include "MetricChart.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <cmath>

namespace amp::widgets {

QString formatMetric(double v) {
  if (std::isnan(v)) return QStringLiteral("nan");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  const double a = std::abs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e7)) return QString::number(v, 'e', 3);
  if (a >= 1000) return QString::number(v, 'f', 0);
  return QString::number(v, 'g', 4);
}

QColor seriesColor(int index) {
  static const QColor colors[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                                  QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                                  QColor(188, 189, 34), QColor(23, 190, 207)};
  return colors[static_cast<unsigned>(index) % 10];
}

QColor stableColor(const QString& key) { return seriesColor(static_cast<int>(qHash(key) % 10)); }

MetricChart::MetricChart(const QString& title, const QString& yLabel, QWidget* parent)
    : QCustomPlot(parent), title_(title) {
  setObjectName(title);
  plotLayout()->insertRow(0);
  titleElement_ = new QCPTextElement(this, title, QFont(font().family(), font().pointSize(), QFont::Bold));
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
  legend->setBrush(QColor(pal.color(QPalette::Base).red(), pal.color(QPalette::Base).green(), pal.color(QPalette::Base).blue(), 200));
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
  trackerText_->setBrush(QColor(pal.color(QPalette::Base).red(), pal.color(QPalette::Base).green(), pal.color(QPalette::Base).blue(), 220));
  trackerText_->setPadding(QMargins(4, 2, 4, 2));
  trackerText_->setVisible(false);
  trackerText_->setSelectable(false);
  connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this](const QCPRange& r) {
    if (!following_) emit userChangedXRange(r);
  });
}

int MetricChart::addSeries(const QString& name, const QColor& color, Style style, QCPScatterStyle::ScatterShape marker) {
  QCPGraph* g = addGraph();
  g->setName(name);
  g->setAdaptiveSampling(true);
  QColor c = color;
  switch (style) {
    case Style::Line: g->setPen(QPen(c, 1.6)); break;
    case Style::Faint:
      c.setAlpha(70);
      g->setPen(QPen(c, 1.0));
      break;
    case Style::Points:
      g->setPen(QPen(c, 1.6));
      g->setScatterStyle(QCPScatterStyle(marker, c, c, 5));
      break;
    case Style::Markers:
      g->setLineStyle(QCPGraph::lsNone);
      g->setScatterStyle(QCPScatterStyle(marker, QPen(c, 1.5), c, 7));
      break;
  }
  return graphCount() - 1;
}

void MetricChart::appendPoints(int series, const QVector<double>& x, const QVector<double>& y) {
  if (x.isEmpty()) return;
  QCPGraph* g = graph(series);
  const bool sorted = g->data()->isEmpty() || x.front() >= (g->data()->constEnd() - 1)->key;
  g->addData(x, y, sorted);
}

void MetricChart::clearPoints() {
  for (int i = 0; i < graphCount(); ++i) graph(i)->data()->clear();
}

void MetricChart::removeAllSeries() { clearGraphs(); }

std::size_t MetricChart::pointCount(int series) const { return static_cast<std::size_t>(graph(series)->dataCount()); }

void MetricChart::setYScale(YScale scale) {
  yScale_ = scale;
  if (scale == YScale::Linear) {
    yAxis->setScaleType(QCPAxis::stLinear);
    yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    yAxis->setNumberFormat("gb");
  } else {
    yAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(scale == YScale::Log2 ? 2 : 10);
    ticker->setSubTickCount(scale == YScale::Log2 ? 0 : 8);
    yAxis->setTicker(ticker);
    yAxis->setNumberFormat(scale == YScale::Log2 ? "gb" : "eb");
    yAxis->setNumberPrecision(scale == YScale::Log2 ? 6 : 0);
  }
  fitY();
}

void MetricChart::setXLabel(const QString& label) { xAxis->setLabel(label); }

void MetricChart::setFollowing(bool on) {
  if (following_ == on) return;
  following_ = on;
  if (on) fitIfFollowing();
  emit followingChanged(on);
}

void MetricChart::fitIfFollowing() {
  if (!following_) return;
  bool found = false;
  QCPRange keys;
  for (int i = 0; i < graphCount(); ++i) {
    bool ok = false;
    const QCPRange r = graph(i)->getKeyRange(ok);
    if (!ok) continue;
    keys = found ? QCPRange(std::min(keys.lower, r.lower), std::max(keys.upper, r.upper)) : r;
    found = true;
  }
  if (!found) return;
  if (keys.size() <= 0) keys = QCPRange(keys.lower - 0.5, keys.upper + 0.5);
  xAxis->setRange(keys);
  fitY();
}

void MetricChart::fitY() {
  const QCP::SignDomain domain = yScale_ == YScale::Linear ? QCP::sdBoth : QCP::sdPositive;
  bool found = false;
  QCPRange values;
  for (int i = 0; i < graphCount(); ++i) {
    if (!graph(i)->visible()) continue;
    bool ok = false;
    const QCPRange r = graph(i)->getValueRange(ok, domain, xAxis->range());
    if (!ok) continue;
    values = found ? QCPRange(std::min(values.lower, r.lower), std::max(values.upper, r.upper)) : r;
    found = true;
  }
  if (!found) return;
  if (yScale_ == YScale::Linear) {
    const double pad = values.size() > 0 ? values.size() * 0.06 : std::max(std::abs(values.upper) * 0.1, 1e-9);
    yAxis->setRange(values.lower - pad, values.upper + pad);
  } else {
    yAxis->setRange(values.lower / 1.3, values.upper * 1.3);
  }
}

QStringList MetricChart::valuesAt(double x) const {
  QStringList lines;
  for (int i = 0; i < graphCount(); ++i) {
    QCPGraph* g = graph(i);
    if (g->data()->isEmpty() || !g->visible()) continue;
    auto it = g->data()->findBegin(x, false);
    if (it == g->data()->constEnd()) --it;
    auto next = it + 1;
    if (next != g->data()->constEnd() && std::abs(next->key - x) < std::abs(it->key - x)) it = next;
    if (g->lineStyle() == QCPGraph::lsNone && std::abs(it->key - x) > xAxis->range().size() * 0.01) continue;
    lines << QStringLiteral("%1: %2").arg(g->name(), formatMetric(it->value));
  }
  return lines;
}

void MetricChart::showTrackerAt(double x) {
  const QStringList lines = valuesAt(x);
  if (lines.isEmpty()) {
    hideTracker();
    return;
  }
  trackerLine_->point1->setCoords(x, 0);
  trackerLine_->point2->setCoords(x, 1);
  trackerLine_->setVisible(true);
  trackerText_->setText(QStringLiteral("%1 %2\n%3").arg(xAxis->label(), formatMetric(x), lines.join('\n')));
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
  const bool ok = QFileInfo(path).suffix().compare("pdf", Qt::CaseInsensitive) == 0 ? savePdf(path, width, height)
                                                                                       : savePng(path, width, height, 2.0);
  trackerLine_->setVisible(tracker);
  trackerText_->setVisible(tracker);
  legend->setVisible(!tracker);
  return ok;
}

void MetricChart::userInteracted() { setFollowing(false); }

void MetricChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  if (axisRect()->rect().contains(event->pos())) emit trackerMoved(xAxis->pixelToCoord(event->position().x()));
  if (event->buttons() & Qt::LeftButton) userInteracted();
}

void MetricChart::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  emit trackerLeft();
}

void MetricChart::wheelEvent(QWheelEvent* event) {
  axisRect()->setRangeZoom(event->modifiers() & Qt::ControlModifier ? Qt::Vertical : Qt::Horizontal);
  userInteracted();
  QCustomPlot::wheelEvent(event);
}

void MetricChart::mousePressEvent(QMouseEvent* event) { QCustomPlot::mousePressEvent(event); }

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
  for (auto [label, s] : {std::pair<QString, YScale>{tr("Linear"), YScale::Linear}, {tr("Log 10"), YScale::Log10}, {tr("Log 2"), YScale::Log2}}) {
    QAction* a = scale->addAction(label, this, [this, s = s] {
      setYScale(s);
      replot();
    });
    a->setCheckable(true);
    a->setChecked(yScale_ == s);
  }
  menu.addSeparator();
  menu.addAction(tr("Export as PNG…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), title_ + ".png", tr("PNG images (*.png)"));
    if (!path.isEmpty()) exportTo(path);
  });
  menu.addAction(tr("Export as PDF…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), title_ + ".pdf", tr("PDF documents (*.pdf)"));
    if (!path.isEmpty()) exportTo(path);
  });
  menu.exec(event->globalPos());
}

}  // namespace amp::widgets
