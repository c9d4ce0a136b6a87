#pragma once
// The colours of the studio's curves.
#include <QColor>
#include <QStringList>
#include <vector>

namespace amp::widgets {

/// The chart palette (10 colours that stay apart on light and dark backgrounds).
///   graph->setPen(QPen(seriesColor(0)));  // the first curve of a chart: blue
QColor seriesColor(int index);
/// A colour that stays with a name (a run) whichever other names are shown.
QColor stableColor(const QString& key);
/// One colour per key, each its stableColor unless that is an earlier key's colour or a palette
/// neighbour of one (orange/red, purple/pink ...): then the first palette colour that is neither.
/// Past ten keys colours repeat.
///   const std::vector<QColor> colors = distinctColors({"/runs/fp32", "/runs/amp"});
std::vector<QColor> distinctColors(const QStringList& keys);

}  // namespace amp::widgets
