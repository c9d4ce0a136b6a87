#include "AuditCharts.h"

#include <QToolTip>

#include <cmath>

#include <qcustomplot.h>

#include "AuditFormat.h"

namespace amp::widgets {

using namespace auditfmt;

namespace {

QCustomPlot* makePlot(const QString& title, const QString& yLabel) {
  auto* p = new QCustomPlot;
  p->plotLayout()->insertRow(0);
  p->plotLayout()->addElement(
      0, 0,
      new QCPTextElement(p, title, QFont(p->font().family(), p->font().pointSize(), QFont::Bold)));
  p->xAxis->setLabel(QObject::tr("layer (execution order)"));
  p->yAxis->setLabel(yLabel);
  p->setMinimumHeight(180);
  p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  p->axisRect()->setRangeDrag(Qt::Horizontal);
  p->axisRect()->setRangeZoom(Qt::Horizontal);
  p->legend->setFont(QFont(p->font().family(), p->font().pointSize() - 1));
  p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  // Until an audit fills it: a sentence, not an empty legend over QCustomPlot's 0-5 axes.
  p->legend->setVisible(false);
  for (QCPAxis* axis : {p->xAxis, p->yAxis}) axis->setTickLabels(false);
  return p;
}

void sayEmpty(QCustomPlot* p) {
  auto* empty = new QCPItemText(p);
  empty->position->setType(QCPItemPosition::ptAxisRectRatio);
  empty->position->setCoords(0.5, 0.5);
  empty->setColor(p->palette().color(QPalette::PlaceholderText));
  empty->setText(QObject::tr("no audit yet"));
}

// An audit's bars are about to be drawn: axes with numbers, the legend naming the bars.
void showAxes(QCustomPlot* p) {
  p->legend->setVisible(true);
  for (QCPAxis* axis : {p->xAxis, p->yAxis}) axis->setTickLabels(true);
}

// Empties a chart and returns its hidden marker of the selected layer (a vertical dashed line).
QCPItemStraightLine* clearWithMarker(QCustomPlot* p) {
  p->clearPlottables();
  p->clearItems();
  auto* marker = new QCPItemStraightLine(p);
  marker->setPen(QPen(QColor("#555555"), 0, Qt::DashLine));
  marker->setVisible(false);
  return marker;
}

QCPBars* addBars(QCustomPlot* p, const QString& name, const QColor& color) {
  auto* b = new QCPBars(p->xAxis, p->yAxis);
  b->setName(name);
  b->setPen(Qt::NoPen);
  b->setBrush(color);
  b->setWidth(0.8);
  return b;
}

}  // namespace

AuditCharts::AuditCharts(QWidget* parent)
    : QSplitter(Qt::Horizontal, parent),
      headroom_(makePlot(tr("Activation headroom to float16's largest value (65504)"),
                         tr("doublings left (log2)"))),
      underflow_(
          makePlot(tr("Gradient lost in float16 at the loss scale"), tr("% of nonzero gradient"))) {
  addWidget(headroom_);
  addWidget(underflow_);
  for (QCustomPlot* p : {headroom_, underflow_}) {
    markers_.push_back(clearWithMarker(p));
    sayEmpty(p);
    // Hover: the layer under the cursor; click: ask for it to be selected in the table.
    connect(p, &QCustomPlot::mouseMove, this, [this, p](QMouseEvent* e) { showToolTip(p, e); });
    connect(p, &QCustomPlot::mousePress, this, [this, p](QMouseEvent* e) {
      if (const int row = layerAt(p, e); row >= 0) emit layerClicked(row);
    });
  }
}

void AuditCharts::showReport(const audit::PrecisionAuditReport& report) {
  layers_ = report.layers;
  reportScale_ = report.summary.report_scale;
  marked_ = -1;
  // Both start over: no bars, the marker hidden, axes with numbers for the bars to come.
  markers_ = {clearWithMarker(headroom_), clearWithMarker(underflow_)};
  for (QCustomPlot* p : {headroom_, underflow_}) showAxes(p);
  plotHeadroom();
  plotUnderflow();
}

int AuditCharts::layerAt(QCustomPlot* p, QMouseEvent* e) const {
  const int i = static_cast<int>(std::lround(p->xAxis->pixelToCoord(e->position().x())));
  return i < 0 || i >= static_cast<int>(layers_.size()) ? -1 : i;
}

void AuditCharts::showToolTip(QCustomPlot* p, QMouseEvent* e) const {
  const int i = layerAt(p, e);
  if (i < 0) return QToolTip::hideText();
  const auto& l = layers_[static_cast<std::size_t>(i)];
  const QString text =
      p == headroom_
          ? tr("%1: %2\nheadroom %3 doublings (|max| %4)")
                .arg(l.index)
                .arg(QString::fromStdString(l.name), number(l.headroom_log2), number(l.act_absmax))
          : tr("%1: %2\n%3 % zero, %4 % subnormal in float16")
                .arg(l.index)
                .arg(QString::fromStdString(l.name), percent(l.fp16_underflow_fraction),
                     percent(l.fp16_subnormal_fraction));
  QToolTip::showText(e->globalPosition().toPoint(), text, p);
}

void AuditCharts::plotHeadroom() {
  QCustomPlot* p = headroom_;
  auto* safe = addBars(p, tr("≥ 8x headroom"), kSafe);
  auto* tight = addBars(p, tr("under 8x"), kTight);
  auto* over = addBars(p, tr("overflows float16"), kOver);
  double lo = 0, hi = 1;
  for (const auto& l : layers_) {
    if (!std::isfinite(l.headroom_log2)) continue;  // an all-zero output: nothing to overflow
    (l.headroom_log2 < 0            ? over
     : l.headroom_log2 < kTightLog2 ? tight
                                    : safe)
        ->addData(l.index, l.headroom_log2);
    lo = std::min(lo, l.headroom_log2);
    hi = std::max(hi, l.headroom_log2);
  }
  for (QCPBars* b : {safe, tight, over})
    if (b->dataCount() == 0) b->removeFromLegend();
  auto* limit = new QCPItemStraightLine(p);
  limit->setPen(QPen(kOver, 1.5, Qt::DashLine));
  limit->point1->setCoords(0, 0);
  limit->point2->setCoords(1, 0);
  auto* label = new QCPItemText(p);
  label->setText(tr("float16 max 65504"));
  label->setColor(kOver);
  label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);  // under the line, clear of the bars
  label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  label->position->setTypeY(QCPItemPosition::ptPlotCoords);
  label->position->setCoords(0.01, 0);
  p->xAxis->setRange(-1, std::max<double>(1, static_cast<double>(layers_.size())));
  p->yAxis->setRange(std::min(lo - 0.5, -0.12 * (hi - std::min(lo, 0.0))), hi * 1.08 + 0.5);
  p->replot();
}

void AuditCharts::plotUnderflow() {
  QCustomPlot* p = underflow_;
  auto* zero = addBars(p, tr("stored as 0 (|g·s| < 2⁻²⁴)"), kOver);
  auto* sub = addBars(p, tr("subnormal (|g·s| < 2⁻¹⁴)"), kSubnormal);
  sub->moveAbove(zero);
  double hi = 0;
  for (const auto& l : layers_) {
    if (!l.has_grad) continue;
    zero->addData(l.index, 100.0 * l.fp16_underflow_fraction);
    sub->addData(l.index,
                 100.0 * std::max(0.0, l.fp16_subnormal_fraction - l.fp16_underflow_fraction));
    hi = std::max(hi, 100.0 * l.fp16_subnormal_fraction);
  }
  if (auto* title = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0)))
    title->setText(tr("Gradient lost in float16 at loss scale %1").arg(scale(reportScale_)));
  if (hi < 0.01 && !layers_.empty()) {  // an empty chart would look broken: say it is empty
    auto* none = new QCPItemText(p);
    none->setText(tr("Under 0.01 % of any layer's gradient is lost at this scale"));
    none->setColor(QColor("#7f7f7f"));
    none->position->setType(QCPItemPosition::ptAxisRectRatio);
    none->position->setCoords(0.5, 0.5);
  }
  p->xAxis->setRange(-1, std::max<double>(1, static_cast<double>(layers_.size())));
  p->yAxis->setRange(0, std::min(100.0, std::max(hi, 0.01) * 1.1));
  p->replot();
}

void AuditCharts::markLayer(int row) {
  marked_ = row < 0 || row >= static_cast<int>(layers_.size())
                ? -1
                : layers_[static_cast<std::size_t>(row)].index;
  for (std::size_t i = 0; i < markers_.size(); ++i) {
    markers_[i]->setVisible(marked_ >= 0);
    markers_[i]->point1->setCoords(marked_, 0);
    markers_[i]->point2->setCoords(marked_, 1);
    (i == 0 ? headroom_ : underflow_)->replot(QCustomPlot::rpQueuedReplot);
  }
}

}  // namespace amp::widgets
