#include "DecadeTicker.h"

#include <cmath>
#include <vector>

namespace amp::widgets {

QVector<double> DecadeTicker::createTickVector(double, const QCPRange& range) {
  QVector<double> best;
  if (!(range.lower > 0) || !(range.upper > range.lower)) return best;
  const int first = static_cast<int>(std::floor(std::log10(range.lower))),
            last = static_cast<int>(std::ceil(std::log10(range.upper)));
  const std::vector<std::vector<double>> sets = {
      {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8}, {1, 1.5, 2, 3, 5, 7}, {1, 2, 5}, {1}};
  for (const auto& mantissas : sets) {  // the densest set with at most 8 ticks
    QVector<double> ticks;
    for (int e = first; e <= last; ++e)
      for (double m : mantissas) {
        const double v = m * std::pow(10.0, e);
        if (v >= range.lower * (1 - 1e-9) && v <= range.upper * (1 + 1e-9)) ticks.push_back(v);
      }
    best = ticks;
    if (ticks.size() <= 8) return ticks;
  }
  // Many decades: every k-th power of ten.
  const int k = static_cast<int>(std::ceil(best.size() / 8.0));
  QVector<double> thinned;
  for (int i = 0; i < best.size(); i += k) thinned.push_back(best[i]);
  return thinned;
}

}  // namespace amp::widgets
