#include "LegendPlacer.h"

#include <algorithm>
#include <cmath>

namespace amp::widgets {

void LegendPlacer::setPreferredCorner(Qt::Alignment corner) {
  preferred_ = corner;
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, corner);
}

// Data points (of the drawn graphs, inside the visible X range) whose pixels fall in `area`;
// long series are sampled so that about `budget` points per graph are looked at.
int LegendPlacer::pointsUnder(const QRectF& area, int budget) const {
  int n = 0;
  const QCPRange r = plot_->xAxis->range();
  for (int i = 0; i < plot_->graphCount(); ++i) {
    const QCPGraph* g = plot_->graph(i);
    if (!g->visible() || g->dataCount() == 0) continue;
    const auto data = g->data();
    const auto begin = data->findBegin(r.lower), end = data->findEnd(r.upper);
    const auto count = end - begin;
    const auto stride = std::max<decltype(count)>(1, count / std::max(1, budget));
    for (auto it = begin; it < end; it += stride) {
      if (!std::isfinite(it->value)) continue;
      const QPointF p(plot_->xAxis->coordToPixel(it->key), plot_->yAxis->coordToPixel(it->value));
      if (area.contains(p)) n += static_cast<int>(stride);
    }
  }
  return n;
}

void LegendPlacer::place() {
  QCPLegend* legend = plot_->legend;
  if (!legend->visible() || legend->itemCount() == 0) return;
  const QSizeF size = legend->outerRect().size();  // from the last layout
  const QRectF plot = plot_->axisRect()->rect();
  if (size.isEmpty() || plot.isEmpty()) return;
  auto areaOf = [&](Qt::Alignment c) {
    const double x = c & Qt::AlignLeft ? plot.left() : plot.right() - size.width();
    const double y = c & Qt::AlignTop ? plot.top() : plot.bottom() - size.height();
    return QRectF(QPointF(x, y), size);
  };
  const Qt::Alignment corners[] = {Qt::AlignTop | Qt::AlignRight, Qt::AlignTop | Qt::AlignLeft,
                                   Qt::AlignBottom | Qt::AlignRight,
                                   Qt::AlignBottom | Qt::AlignLeft};
  QCPLayoutInset* inset = plot_->axisRect()->insetLayout();
  const Qt::Alignment current = corner();
  if (current != preferred_ && pointsUnder(areaOf(preferred_), 500) == 0) {
    inset->setInsetAlignment(0, preferred_);  // its own corner is clear again
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
    if (n < fewest && (c == preferred_ ? n * 4 <= here * 3 : n * 2 <= here)) best = c, fewest = n;
  }
  if (best != current) inset->setInsetAlignment(0, best);
}

}  // namespace amp::widgets
