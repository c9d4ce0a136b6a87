#include "metrics/GroupBands.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace amp::metrics {

namespace {

// A member's finite points, in x order (stable, so equal x keep the log's order).
struct FinitePoints {
  std::vector<double> x, y;
};

FinitePoints finitePointsOf(const CurveView& c) {
  FinitePoints p;
  if (!c.x || !c.y) return p;
  p.x.reserve(c.n);
  p.y.reserve(c.n);
  bool sorted = true;
  for (std::size_t i = 0; i < c.n; ++i) {
    if (!std::isfinite(c.x[i]) || !std::isfinite(c.y[i])) continue;
    if (!p.x.empty() && c.x[i] < p.x.back()) sorted = false;
    p.x.push_back(c.x[i]);
    p.y.push_back(c.y[i]);
  }
  if (!sorted) {
    std::vector<std::size_t> order(p.x.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&p](std::size_t a, std::size_t b) { return p.x[a] < p.x[b]; });
    FinitePoints s;
    for (std::size_t i : order) {
      s.x.push_back(p.x[i]);
      s.y.push_back(p.y[i]);
    }
    p = std::move(s);
  }
  return p;
}

// Every member's x when they are few enough (each member at most maxPoints, the union too),
// else maxPoints evenly spaced x over [lo, hi].
std::vector<double> bandGrid(const std::vector<FinitePoints>& members, std::size_t maxPoints) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  bool small = true;
  for (const FinitePoints& m : members) {
    if (m.x.empty()) continue;
    lo = std::min(lo, m.x.front());
    hi = std::max(hi, m.x.back());
    small = small && m.x.size() <= maxPoints;
  }
  std::vector<double> grid;
  if (!(lo <= hi)) return grid;
  if (small) {
    for (const FinitePoints& m : members) grid.insert(grid.end(), m.x.begin(), m.x.end());
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
    if (grid.size() <= maxPoints) return grid;
    grid.clear();
  }
  const std::size_t n = std::max<std::size_t>(2, maxPoints);
  grid.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    grid[i] = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(n - 1);
  grid.back() = hi;  // exactly, so the last points of the longest runs count
  return grid;
}

}  // namespace

GroupBand computeGroupBand(const std::vector<CurveView>& members, const BandOptions& options) {
  std::vector<FinitePoints> points;
  points.reserve(members.size());
  for (const CurveView& c : members) points.push_back(finitePointsOf(c));
  const std::vector<double> grid = bandGrid(points, options.maxPoints);
  const std::size_t g = grid.size();
  // Welford's running mean and sum of squared deviations per grid x: stable for values far
  // from 0 (bytes of memory, a loss scale of 65536).
  std::vector<double> mean(g, 0.0), m2(g, 0.0);
  std::vector<double> lo(g, std::numeric_limits<double>::infinity()), hi(g, -lo.front());
  std::vector<int> count(g, 0);
  GroupBand band;
  for (const FinitePoints& m : points) {
    if (m.x.empty()) continue;
    ++band.members;
    std::size_t k = 0;  // m.x[k] is the member's first x >= the grid x
    for (std::size_t i = std::lower_bound(grid.begin(), grid.end(), m.x.front()) - grid.begin();
         i < g && grid[i] <= m.x.back(); ++i) {
      const double x = grid[i];
      while (m.x[k] < x) ++k;
      // The last of equal x wins (a value logged again at one step replaces the first).
      std::size_t last = k;
      while (last + 1 < m.x.size() && m.x[last + 1] == x) ++last;
      double v;
      if (m.x[k] == x) {
        v = m.y[last];
      } else {  // m.x[k - 1] < x < m.x[k]: k > 0 as x >= the member's first x
        const double t = (x - m.x[k - 1]) / (m.x[k] - m.x[k - 1]);
        v = m.y[k - 1] + t * (m.y[k] - m.y[k - 1]);
      }
      const int n = ++count[i];
      const double delta = v - mean[i];
      mean[i] += delta / n;
      m2[i] += delta * (v - mean[i]);
      lo[i] = std::min(lo[i], v);
      hi[i] = std::max(hi[i], v);
    }
  }
  for (std::size_t i = 0; i < g; ++i) {
    if (count[i] == 0) continue;
    band.x.push_back(grid[i]);
    band.mean.push_back(mean[i]);
    band.std.push_back(count[i] > 1 ? std::sqrt(std::max(0.0, m2[i] / (count[i] - 1))) : 0.0);
    band.min.push_back(lo[i]);
    band.max.push_back(hi[i]);
    band.count.push_back(count[i]);
  }
  return band;
}

std::optional<FigureStats> figureStats(const std::vector<std::optional<double>>& values) {
  FigureStats s;
  double m2 = 0;
  for (const auto& v : values) {
    if (!v || !std::isfinite(*v)) continue;
    ++s.n;
    s.min = s.n == 1 ? *v : std::min(s.min, *v);
    s.max = s.n == 1 ? *v : std::max(s.max, *v);
    const double delta = *v - s.mean;
    s.mean += delta / s.n;
    m2 += delta * (*v - s.mean);
  }
  if (s.n == 0) return std::nullopt;
  s.std = s.n > 1 ? std::sqrt(std::max(0.0, m2 / (s.n - 1))) : 0.0;
  return s;
}

}  // namespace amp::metrics
