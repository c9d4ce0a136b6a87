#include "ChartTracker.h"

#include "MetricFormat.h"

namespace amp::widgets {

ChartTracker::ChartTracker(QCustomPlot* plot, const QFont& font)
    : plot_(plot), line_(new QCPItemStraightLine(plot)), box_(new QCPItemText(plot)) {
  const QPalette pal = plot->palette();
  line_->setPen(QPen(pal.color(QPalette::Text), 0, Qt::DashLine));
  line_->setVisible(false);
  line_->setSelectable(false);
  box_->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
  box_->position->setType(QCPItemPosition::ptAxisRectRatio);
  box_->position->setCoords(0.01, 0.02);
  box_->setTextAlignment(Qt::AlignLeft);
  box_->setFont(font);
  box_->setColor(pal.color(QPalette::Text));
  const QColor base = pal.color(QPalette::Base);
  box_->setBrush(QColor(base.red(), base.green(), base.blue(), 220));
  box_->setPadding(QMargins(4, 2, 4, 2));
  box_->setVisible(false);
  box_->setSelectable(false);
}

void ChartTracker::showAt(double x, const QStringList& lines) {
  line_->point1->setCoords(x, 0);
  line_->point2->setCoords(x, 1);
  box_->setText(
      QStringLiteral("%1 %2\n%3").arg(plot_->xAxis->label(), formatMetric(x), lines.join('\n')));
  // Keep the box on the side away from the cursor.
  const bool right = plot_->xAxis->coordToPixel(x) < plot_->axisRect()->center().x();
  box_->setPositionAlignment(Qt::AlignTop | (right ? Qt::AlignRight : Qt::AlignLeft));
  box_->position->setCoords(right ? 0.99 : 0.01, 0.02);
  setVisible(true);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ChartTracker::hide() {
  if (!visible()) return;
  setVisible(false);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ChartTracker::setVisible(bool on) {
  line_->setVisible(on);
  box_->setVisible(on);
  plot_->legend->setVisible(!on && legendWanted_);
}

void ChartTracker::setLegendWanted(bool on) {
  legendWanted_ = on;
  plot_->legend->setVisible(!visible() && on);
}

QString ChartTracker::text() const {
  return box_->visible() ? box_->text() : QString();
}

}  // namespace amp::widgets
