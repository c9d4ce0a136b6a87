#include "SeriesStore.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace amp::widgets {

int SeriesStore::addSeries() {
  series_.emplace_back();
  return static_cast<int>(series_.size()) - 1;
}

void SeriesStore::clearPoints() {
  for (Series& s : series_) s = Series{};
}

SeriesStore::Appended SeriesStore::append(int series, const double* x, const double* y,
                                          std::size_t n) {
  Series& s = at(series);
  if (n == 0) return {true, false};
  // A whole batch in order after the last point is the live path; anything else re-sorts.
  const bool inOrder = (s.x.empty() || x[0] >= s.x.back()) && std::is_sorted(x, x + n);
  Extents& e = s.extents;
  for (std::size_t i = 0; i < n; ++i) {
    s.x.push_back(x[i]);
    s.y.push_back(y[i]);
    const double v = y[i];
    if (!std::isfinite(v) || !std::isfinite(x[i])) continue;
    if (!e.any) {
      e.any = true;
      e.minX = e.maxX = x[i], e.minY = e.maxY = v, e.minPositiveY = v > 0 ? v : 0;
      continue;
    }
    e.minX = std::min(e.minX, x[i]), e.maxX = std::max(e.maxX, x[i]);
    e.minY = std::min(e.minY, v), e.maxY = std::max(e.maxY, v);
    if (v > 0 && (e.minPositiveY == 0 || v < e.minPositiveY)) e.minPositiveY = v;
  }
  if (!inOrder) {  // rare (markers out of order): keep the columns sorted by x
    std::vector<std::size_t> order(s.x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&s](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
    std::vector<double> nx, ny;
    nx.reserve(order.size());
    ny.reserve(order.size());
    for (std::size_t i : order) nx.push_back(s.x[i]), ny.push_back(s.y[i]);
    s.x.swap(nx), s.y.swap(ny);
    s.levels.clear();  // its blocks summarised other points
  }
  extendPyramid(s);
  const bool started = !s.enveloped && s.x.size() > directPoints_;
  if (started) s.enveloped = true;
  return {inOrder, started};
}

void SeriesStore::extendPyramid(Series& s) {
  auto merge = [](Block& b, double k, double v) {
    if (!std::isfinite(v)) return;
    if (!b.any) {
      b = {k, v, k, v, true};
      return;
    }
    if (v < b.minY) b.minY = v, b.minX = k;
    if (v > b.maxY) b.maxY = v, b.maxX = k;
  };
  if (s.levels.empty()) s.levels.emplace_back();
  // Only whole blocks: the last partial one is read from the points (or the level below).
  while ((s.levels[0].size() + 1) * kBlock <= s.x.size()) {
    Block b{0, 0, 0, 0, false};
    const std::size_t start = s.levels[0].size() * kBlock;
    for (std::size_t i = start; i < start + kBlock; ++i) merge(b, s.x[i], s.y[i]);
    s.levels[0].push_back(b);
  }
  for (std::size_t L = 1;; ++L) {
    if (s.levels[L - 1].size() < kFan) break;
    if (s.levels.size() <= L) s.levels.emplace_back();
    while ((s.levels[L].size() + 1) * kFan <= s.levels[L - 1].size()) {
      Block b{0, 0, 0, 0, false};
      const std::size_t start = s.levels[L].size() * kFan;
      for (std::size_t i = start; i < start + kFan; ++i) {
        const Block& c = s.levels[L - 1][i];
        if (!c.any) continue;
        merge(b, c.minX, c.minY);
        merge(b, c.maxX, c.maxY);
      }
      s.levels[L].push_back(b);
    }
  }
}

void SeriesStore::appendEnvelope(const Series& s, int level, std::size_t i0, std::size_t i1,
                                 std::vector<Point>& out) {
  if (i0 >= i1) return;
  if (level < 0) {
    for (std::size_t i = i0; i < i1; ++i) out.push_back({s.x[i], s.y[i]});
    return;
  }
  std::size_t size = kBlock;
  for (int l = 0; l < level; ++l) size *= kFan;
  const auto& blocks = s.levels[static_cast<std::size_t>(level)];
  const std::size_t b0 = (i0 + size - 1) / size, b1 = std::min(i1 / size, blocks.size());
  if (b0 >= b1) {
    appendEnvelope(s, level - 1, i0, i1, out);
    return;
  }
  appendEnvelope(s, level - 1, i0, b0 * size, out);
  for (std::size_t b = b0; b < b1; ++b) {
    const Block& k = blocks[b];
    if (!k.any) continue;
    // Minimum and maximum in x order, so the drawn line goes through both as the data did.
    if (k.minX <= k.maxX) {
      out.push_back({k.minX, k.minY});
      if (k.maxX != k.minX) out.push_back({k.maxX, k.maxY});
    } else {
      out.push_back({k.maxX, k.maxY});
      out.push_back({k.minX, k.minY});
    }
  }
  appendEnvelope(s, level - 1, b1 * size, i1, out);
}

void SeriesStore::envelope(int series, double lower, double upper, double pixels,
                           std::vector<Point>& out) const {
  out.clear();
  const Series& s = at(series);
  // The visible points, one more on each side so lines run to the edges.
  std::size_t i0 =
      static_cast<std::size_t>(std::lower_bound(s.x.begin(), s.x.end(), lower) - s.x.begin());
  std::size_t i1 =
      static_cast<std::size_t>(std::upper_bound(s.x.begin(), s.x.end(), upper) - s.x.begin());
  i0 = i0 > 0 ? i0 - 1 : 0;
  i1 = std::min(s.x.size(), i1 + 1);
  if (i0 >= i1) return;
  int level = -1;
  std::size_t size = kBlock;
  while (static_cast<std::size_t>(level + 1) < s.levels.size() &&
         static_cast<double>(i1 - i0) / static_cast<double>(size) >= pixels) {
    ++level;
    size *= kFan;
  }
  out.reserve(std::min<std::size_t>(i1 - i0, static_cast<std::size_t>(pixels) * 4 + 64));
  appendEnvelope(s, level, i0, i1, out);
}

bool SeriesStore::valueRange(int series, double lower, double upper, bool positiveOnly,
                             double* minY, double* maxY) const {
  const Series& s = at(series);
  const auto i0 = std::lower_bound(s.x.begin(), s.x.end(), lower) - s.x.begin();
  const auto i1 = std::upper_bound(s.x.begin(), s.x.end(), upper) - s.x.begin();
  bool found = false;
  for (auto k = i0; k < i1; ++k) {
    const double v = s.y[static_cast<std::size_t>(k)];
    if (!std::isfinite(v) || (positiveOnly && v <= 0)) continue;
    *minY = found ? std::min(*minY, v) : v;
    *maxY = found ? std::max(*maxY, v) : v;
    found = true;
  }
  return found;
}

std::size_t SeriesStore::nearestIndex(int series, double x, Tie tie) const {
  const std::vector<double>& xs = at(series).x;
  if (xs.empty()) return kNone;
  auto k = static_cast<std::size_t>(std::lower_bound(xs.begin(), xs.end(), x) - xs.begin());
  if (k == xs.size()) return k - 1;
  if (k == 0) return 0;
  const double before = std::abs(xs[k - 1] - x), after = std::abs(xs[k] - x);
  return before < after || (tie == Tie::Earlier && before == after) ? k - 1 : k;
}

void SeriesStore::setNote(int series, double x, std::string note) {
  at(series).notes[x] = std::move(note);
}

const std::string* SeriesStore::note(int series, double x) const {
  const auto& notes = at(series).notes;
  const auto it = notes.find(x);
  return it == notes.end() ? nullptr : &it->second;
}

}  // namespace amp::widgets
