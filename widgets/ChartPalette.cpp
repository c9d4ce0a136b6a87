#include "ChartPalette.h"

#include <QHash>
#include <algorithm>

namespace amp::widgets {

QColor seriesColor(int index) {
  static const QColor colors[] = {
      QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34),  QColor(23, 190, 207)};
  return colors[static_cast<unsigned>(index) % 10];
}

QColor stableColor(const QString& key) {
  return seriesColor(static_cast<int>(qHash(key) % 10));
}

namespace {
int paletteIndex(const QColor& c) {
  for (int i = 0; i < 10; ++i)
    if (seriesColor(i) == c) return i;
  return -1;
}
// Palette neighbours a reader mixes up when two runs' thin lines cross: orange/red, red/brown,
// purple/pink, blue/cyan, green/olive.
bool closeColors(const QColor& a, const QColor& b) {
  if (a == b) return true;
  const int i = std::min(paletteIndex(a), paletteIndex(b)),
            j = std::max(paletteIndex(a), paletteIndex(b));
  return (i == 1 && j == 3) || (i == 3 && j == 5) || (i == 4 && j == 6) || (i == 0 && j == 9) ||
         (i == 2 && j == 8);
}
}  // namespace

std::vector<QColor> distinctColors(const QStringList& keys) {
  std::vector<QColor> colors;
  for (const QString& key : keys) {
    auto clashes = [&colors](const QColor& c) {
      return std::any_of(colors.begin(), colors.end(),
                         [&c](const QColor& taken) { return closeColors(c, taken); });
    };
    QColor c = stableColor(key);
    for (int k = 0; k < 10 && clashes(c); ++k) c = seriesColor(k);
    if (clashes(c))  // more runs than distinct colours: at least not the same as another
      for (int k = 0; k < 10; ++k)
        if (std::none_of(colors.begin(), colors.end(),
                         [k](const QColor& t) { return t == seriesColor(k); })) {
          c = seriesColor(k);
          break;
        }
    colors.push_back(c);
  }
  return colors;
}

}  // namespace amp::widgets
