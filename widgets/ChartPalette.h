#pragma once
// The colours of the studio's curves.
#include <QColor>
#include <QStringList>
#include <vector>

namespace amp::widgets {

/// How many colours the palette has: a sweep's groups or runs get one each before any repeats.
constexpr int kPaletteSize = 24;
/// The chart palette: 24 colours that stay apart on light and dark backgrounds, Tableau's ten
/// first (index modulo kPaletteSize).
///   graph->setPen(QPen(seriesColor(0)));  // the first curve of a chart: blue
QColor seriesColor(int index);
/// A colour that stays with a name (a run) whichever other names are shown: one of the first ten,
/// the strongest.
QColor stableColor(const QString& key);
/// One colour per key, each its stableColor unless that is an earlier key's colour or a palette
/// neighbour of one (orange/red, purple/pink ...): then the first palette colour that is neither.
/// Once the first ten are taken (or close to a taken one) the other 14 follow; past 24 keys
/// colours repeat.
///   const std::vector<QColor> colors = distinctColors({"/runs/fp32", "/runs/amp"});
std::vector<QColor> distinctColors(const QStringList& keys);

}  // namespace amp::widgets
