#include "PerClassChart.h"

#include <qcustomplot.h>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace amp::widgets {

PerClassChart::PerClassChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot), group_(new QCPBarsGroup(plot_)) {
  setMetric(tr("AP"));
  plot_->legend->setVisible(true);
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  plot_->setMinimumHeight(160);
  plot_->setMinimumWidth(320);  // room for a few classes' bars beside a wide table
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
}

void PerClassChart::setMetric(const QString& metric) {
  plot_->yAxis->setLabel(tr("Δ %1 vs baseline (points)").arg(metric));
}

void PerClassChart::showBars(const QStringList& classes, const std::vector<Bars>& bars) {
  plot_->clearPlottables();
  const int n = std::min(static_cast<int>(classes.size()), kMaxClasses);
  double lo = 0, hi = 0;
  for (const Bars& b : bars) {
    auto* q = new QCPBars(plot_->xAxis, plot_->yAxis);
    q->setName(b.run);
    q->setPen(Qt::NoPen);
    q->setBrush(b.color);
    q->setWidth(0.8 / std::max<std::size_t>(1, bars.size()));
    q->setBarsGroup(group_);
    for (int i = 0; i < n && i < static_cast<int>(b.points.size()); ++i) {
      const double v = b.points[static_cast<std::size_t>(i)];
      if (std::isnan(v)) continue;
      q->addData(i, v);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  // One run against the baseline needs no legend (its bars have its colour, as its columns).
  plot_->legend->setVisible(bars.size() > 1);
  // The classes' labels under their bars, turned so that names fit.
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < n; ++i) ticker->addTick(i, classes[i]);
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setTickLabelRotation(n > 2 ? 45 : 0);
  plot_->xAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
  const double pad = std::max(0.5, 0.08 * (hi - lo));
  plot_->yAxis->setRange(lo - pad, hi + pad);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int PerClassChart::barCount() const {
  int count = 0;
  for (int i = 0; i < plot_->plottableCount(); ++i)
    if (auto* b = qobject_cast<QCPBars*>(plot_->plottable(i))) count += b->dataCount();
  return count;
}

}  // namespace amp::widgets
