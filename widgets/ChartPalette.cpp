#include "ChartPalette.h"

#include <QHash>
#include <algorithm>
#include <array>

namespace amp::widgets {

namespace {
// The first ten are Tableau's category-10 colours (the studio's colours since its start, so a run
// keeps its colour). The other 14 extend them the way Glasbey's palettes are made, computed here
// once: greedily, the sRGB colour (a 15-step grid) farthest in CIELAB from every colour already
// chosen, among those with lightness 35-70 and chroma 30-65 (readable on a light and a dark plot,
// not neon). Any two of the 24 are at least 25 CIELAB units apart (category 10's closest pair:
// 27.7).
const std::array<QColor, kPaletteSize>& chartColors() {
  static const std::array<QColor, kPaletteSize> colors = {
      QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),   QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75),   QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34),  QColor(23, 190, 207),  QColor(75, 90, 15),    QColor(165, 0, 75),
      QColor(195, 165, 105), QColor(255, 135, 135), QColor(90, 165, 120),  QColor(150, 75, 0),
      QColor(180, 135, 0),   QColor(0, 90, 195),    QColor(135, 60, 105),  QColor(165, 165, 225),
      QColor(150, 180, 90),  QColor(0, 105, 45),    QColor(0, 195, 120),   QColor(240, 120, 75)};
  return colors;
}

int paletteIndex(const QColor& c) {
  for (int i = 0; i < kPaletteSize; ++i)
    if (seriesColor(i) == c) return i;
  return -1;
}
// Palette neighbours a reader mixes up when two runs' thin lines cross: orange/red, red/brown,
// purple/pink, blue/cyan, green/olive (of the first ten; the others were chosen apart).
bool closeColors(const QColor& a, const QColor& b) {
  if (a == b) return true;
  const int i = std::min(paletteIndex(a), paletteIndex(b)),
            j = std::max(paletteIndex(a), paletteIndex(b));
  return (i == 1 && j == 3) || (i == 3 && j == 5) || (i == 4 && j == 6) || (i == 0 && j == 9) ||
         (i == 2 && j == 8);
}
}  // namespace

QColor seriesColor(int index) {
  return chartColors()[static_cast<unsigned>(index) % kPaletteSize];
}

QColor stableColor(const QString& key) {
  return seriesColor(static_cast<int>(qHash(key) % 10));
}

std::vector<QColor> distinctColors(const QStringList& keys) {
  std::vector<QColor> colors;
  for (const QString& key : keys) {
    auto clashes = [&colors](const QColor& c) {
      return std::any_of(colors.begin(), colors.end(),
                         [&c](const QColor& taken) { return closeColors(c, taken); });
    };
    QColor c = stableColor(key);
    for (int k = 0; k < kPaletteSize && clashes(c); ++k) c = seriesColor(k);
    if (clashes(c)) {  // more runs than distinct colours: at least not the same as another
      c = seriesColor(static_cast<int>(colors.size()));  // or, all taken, round the palette again
      for (int k = 0; k < kPaletteSize; ++k)
        if (std::none_of(colors.begin(), colors.end(),
                         [k](const QColor& t) { return t == seriesColor(k); })) {
          c = seriesColor(k);
          break;
        }
    }
    colors.push_back(c);
  }
  return colors;
}

}  // namespace amp::widgets
