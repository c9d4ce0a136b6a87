#pragma once
// Log-10 ticks a reader can use on any range.
#include <qcustomplot.h>

namespace amp::widgets {

/// Ticks for a log-10 axis at 1-2-5 steps (finer on a short range, every k-th power of ten on a
/// long one), at most 8, labelled as plain numbers ("500", "0.02"). QCustomPlot's own log ticker
/// puts only powers of ten, so a range inside one decade (peak memory 300-500 MiB) got one label
/// or repeated ones.
///
///   axis->setScaleType(QCPAxis::stLogarithmic);
///   axis->setTicker(QSharedPointer<QCPAxisTicker>(new DecadeTicker));
class DecadeTicker : public QCPAxisTicker {
 protected:
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double, const QCPRange& range) override;
};

}  // namespace amp::widgets
