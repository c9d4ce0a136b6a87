#pragma once
// The Y scales a chart offers and what each needs of its axis.
#include <qcustomplot.h>

namespace amp::widgets {

/// Linear, log 10 (1-2-5 ticks) or log 2 (the loss scale: powers of two).
enum class YScale { Linear, Log10, Log2 };

/// Sets the axis' scale type, ticker and number format for `scale`.
///   applyYScale(*chart->yAxis, YScale::Log2);
void applyYScale(QCPAxis& axis, YScale scale);
/// The axis range that shows `values` (the data's extent, positive for log scales) with a
/// margin. Log scales widen a narrow range so that a constant series still gets real ticks.
///   axis->setRange(paddedYRange(YScale::Log2, QCPRange(1, 1)));  // 0.25 .. 4
QCPRange paddedYRange(YScale scale, const QCPRange& values);

}  // namespace amp::widgets
