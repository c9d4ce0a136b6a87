#include "metrics/PascalAveragePrecision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace amp::metrics {
namespace {

// numpy's order of doubles: NaN after every number, NaNs equal among themselves.
bool npLess(double a, double b) {
  return a < b || (std::isnan(b) && !std::isnan(a));
}

// Heapsort of idx[0, n) by v, as numpy's fallback when its quicksort goes too deep (1-based
// heap arithmetic, so the same elements move).
void heapsortIndices(const double* v, std::size_t* idx, std::ptrdiff_t n) {
  std::size_t* a = idx - 1;
  auto siftDown = [&](std::ptrdiff_t i, std::ptrdiff_t size, std::size_t moving) {
    for (std::ptrdiff_t j = 2 * i; j <= size; j = 2 * i) {
      if (j < size && npLess(v[a[j]], v[a[j + 1]])) ++j;
      if (!npLess(v[moving], v[a[j]])) break;
      a[i] = a[j];
      i = j;
    }
    a[i] = moving;
  };
  for (std::ptrdiff_t l = n / 2; l > 0; --l) siftDown(l, n, a[l]);
  for (std::ptrdiff_t size = n; size > 1;) {
    const std::size_t moving = a[size];
    a[size] = a[1];
    --size;
    siftDown(1, size, moving);
  }
}

// numpy 1.x's argsort ("quicksort", an introsort): median-of-three partitions while a range
// has more than 16 elements, the larger side kept for later, insertion sort below that, and
// heapsort once the depth passes twice the bit length of n. It is not stable, and which of two
// tied scores comes first changes an AP, so its exact moves are kept.
void numpyArgsort(const double* v, std::size_t* idx, std::ptrdiff_t num) {
  constexpr std::ptrdiff_t kSmall = 15;
  int depthLimit = 0;
  for (std::ptrdiff_t n = num; n >>= 1;) ++depthLimit;
  depthLimit *= 2;
  struct Range {
    std::size_t *lo, *hi;
    int depth;
  };
  std::vector<Range> pending;
  std::size_t* lo = idx;
  std::size_t* hi = idx + num - 1;
  for (;;) {
    if (depthLimit < 0) {
      heapsortIndices(v, lo, hi - lo + 1);
    } else {
      while (hi - lo > kSmall) {
        std::size_t* mid = lo + ((hi - lo) >> 1);
        if (npLess(v[*mid], v[*lo])) std::swap(*mid, *lo);
        if (npLess(v[*hi], v[*mid])) std::swap(*hi, *mid);
        if (npLess(v[*mid], v[*lo])) std::swap(*mid, *lo);
        const double pivot = v[*mid];
        std::size_t* i = lo;
        std::size_t* j = hi - 1;
        std::swap(*mid, *j);
        for (;;) {
          do ++i;
          while (npLess(v[*i], pivot));
          do --j;
          while (npLess(pivot, v[*j]));
          if (i >= j) break;
          std::swap(*i, *j);
        }
        std::swap(*i, *(hi - 1));
        if (i - lo < hi - i) {
          pending.push_back({i + 1, hi, --depthLimit});
          hi = i - 1;
        } else {
          pending.push_back({lo, i - 1, --depthLimit});
          lo = i + 1;
        }
      }
      for (std::size_t* i = lo + 1; i <= hi; ++i) {
        const std::size_t moving = *i;
        std::size_t* j = i;
        for (; j > lo && npLess(v[moving], v[*(j - 1)]); --j) *j = *(j - 1);
        *j = moving;
      }
    }
    if (pending.empty()) break;
    lo = pending.back().lo;
    hi = pending.back().hi;
    depthLimit = pending.back().depth;
    pending.pop_back();
  }
}

}  // namespace

std::vector<std::size_t> numpyDescendingOrder(const std::vector<double>& scores) {
  std::vector<std::size_t> order(scores.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  if (order.size() > 1)
    numpyArgsort(scores.data(), order.data(), static_cast<std::ptrdiff_t>(order.size()));
  std::reverse(order.begin(), order.end());
  return order;
}

double numpySum(const double* values, std::size_t n) {
  if (n < 8) {
    double sum = 0.;
    for (std::size_t i = 0; i < n; ++i) sum += values[i];
    return sum;
  }
  if (n <= 128) {
    double r[8];
    for (int k = 0; k < 8; ++k) r[k] = values[k];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int k = 0; k < 8; ++k) r[k] += values[i + k];
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += values[i];
    return sum;
  }
  std::size_t half = n / 2;
  half -= half % 8;
  return numpySum(values, half) + numpySum(values + half, n - half);
}

double numpyNanMean(const std::vector<double>& values) {
  std::vector<double> zeroed(values);
  std::size_t count = 0;
  for (double& v : zeroed) {
    if (std::isnan(v))
      v = 0;
    else
      ++count;
  }
  if (count == 0) return std::numeric_limits<double>::quiet_NaN();
  return numpySum(zeroed.data(), zeroed.size()) / static_cast<double>(count);
}

double pascalAveragePrecision(const std::vector<double>& scores,
                              const std::vector<std::uint8_t>& truePositive,
                              std::int64_t groundTruth) {
  if (scores.size() != truePositive.size())
    throw std::invalid_argument("pascalAveragePrecision: scores and labels differ in size");
  const auto positives = std::count_if(truePositive.begin(), truePositive.end(),
                                       [](std::uint8_t t) { return t != 0; });
  if (groundTruth < positives)
    throw std::invalid_argument("pascalAveragePrecision: more true positives than groundtruth");
  if (groundTruth == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t n = scores.size();
  if (n == 0) return 0.0;

  // precision and recall after each ranked detection, padded with recall 0 / precision 0 before
  // and recall 1 / precision 0 after, as compute_average_precision does.
  const std::vector<std::size_t> order = numpyDescendingOrder(scores);
  std::vector<double> precision(n + 2, 0.0), recall(n + 2, 0.0);
  std::int64_t tp = 0, fp = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (truePositive[order[k]])
      ++tp;
    else
      ++fp;
    precision[k + 1] = static_cast<double>(tp) / static_cast<double>(tp + fp);
    recall[k + 1] = static_cast<double>(tp) / static_cast<double>(groundTruth);
  }
  recall[n + 1] = 1.0;
  for (std::size_t k = n + 1; k-- > 0;) precision[k] = std::max(precision[k], precision[k + 1]);
  // The terms at each change of recall, summed as np.sum sums them.
  std::vector<double> terms;
  for (std::size_t k = 1; k < n + 2; ++k)
    if (recall[k] != recall[k - 1]) terms.push_back((recall[k] - recall[k - 1]) * precision[k]);
  return numpySum(terms.data(), terms.size());
}

}  // namespace amp::metrics
