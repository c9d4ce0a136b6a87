#include "runlog/TensorBoardHistogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace amp::runlog {

const std::vector<double>& defaultHistogramEdges() {
  static const std::vector<double> edges = [] {
    // SummaryWriter's default_bins, in the same double arithmetic: v = 1e-12, times 1.1 while
    // under 1e20; the negatives mirrored around 0.
    std::vector<double> positive;
    for (double v = 1e-12; v < 1e20; v *= 1.1) positive.push_back(v);
    std::vector<double> all;
    all.reserve(positive.size() * 2 + 1);
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all.push_back(-*it);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return edges;
}

std::optional<TensorBoardHistogram> makeHistogram(const std::string& tag, const float* values,
                                                  std::size_t count, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = tag + ": " + why;
    return std::optional<TensorBoardHistogram>();
  };
  if (count == 0) return fail("no values to draw a histogram of");
  const auto& edges = defaultHistogramEdges();
  std::vector<double> counts(edges.size() - 1, 0.0);
  TensorBoardHistogram h;
  h.tag = tag;
  h.min = std::numeric_limits<double>::infinity();
  h.max = -h.min;
  for (std::size_t i = 0; i < count; ++i) {
    const double v = values[i];
    h.min = std::min(h.min, v);
    h.max = std::max(h.max, v);
    h.sum += v;
    h.sum_squares += v * v;
    // numpy.histogram: bucket k holds [edge k, edge k+1), the last one its right edge too; values
    // outside the edges (and NaN) are in none.
    if (!(v >= edges.front() && v <= edges.back())) continue;
    auto k =
        static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) -
        1;
    counts[std::min(k, counts.size() - 1)] += 1.0;
  }
  h.num = static_cast<double>(count);
  std::size_t first = counts.size(), last = 0;
  for (std::size_t k = 0; k < counts.size(); ++k)
    if (counts[k] > 0) {
      first = std::min(first, k);
      last = k;
    }
  if (first == counts.size())
    return fail("none of the " + std::to_string(count) +
                " values lies within the histogram's edges (+-1e20; NaN counts nowhere)");
  // make_histogram keeps the buckets first .. last, preceded by one empty bucket (the one before
  // `first`, or a new one when `first` is the very first) whose right edge is first's left edge.
  h.bucket.push_back(0.0);
  h.bucket_limit.push_back(edges[first]);
  for (std::size_t k = first; k <= last; ++k) {
    h.bucket.push_back(counts[k]);
    h.bucket_limit.push_back(edges[k + 1]);
  }
  return h;
}

}  // namespace amp::runlog
