#include "metrics/ConfusionMatrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace amp::metrics {

ConfusionMatrix::ConfusionMatrix(int classes)
    : classes_(std::max(classes, 0)), rows_(static_cast<std::size_t>(std::max(classes, 0)), 0) {}

ConfusionMatrix ConfusionMatrix::fromScores(const double* scores, const int* labels, std::size_t n,
                                            int classes) {
  ConfusionMatrix m(classes);
  if (classes <= 0) return m;
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = scores + i * static_cast<std::size_t>(classes);
    const auto best = static_cast<int>(std::max_element(row, row + classes) - row);
    (void)m.add(labels[i], best);  // a label outside the classes is not counted
  }
  return m;
}

bool ConfusionMatrix::add(int truth, int pred, std::int64_t count) {
  if (truth < 0 || truth >= classes_ || pred < 0 || pred >= classes_ || count <= 0) return false;
  counts_[static_cast<std::int64_t>(truth) * classes_ + pred] += count;
  rows_[static_cast<std::size_t>(truth)] += count;
  return true;
}

std::int64_t ConfusionMatrix::count(int truth, int pred) const {
  if (truth < 0 || truth >= classes_ || pred < 0 || pred >= classes_) return 0;
  const auto it = counts_.find(static_cast<std::int64_t>(truth) * classes_ + pred);
  return it == counts_.end() ? 0 : it->second;
}

std::int64_t ConfusionMatrix::samples(int truth) const {
  return truth < 0 || truth >= classes_ ? 0 : rows_[static_cast<std::size_t>(truth)];
}

std::int64_t ConfusionMatrix::total() const {
  std::int64_t n = 0;
  for (const auto r : rows_) n += r;
  return n;
}

std::int64_t ConfusionMatrix::correct() const {
  std::int64_t n = 0;
  for (int k = 0; k < classes_; ++k) n += count(k, k);
  return n;
}

double ConfusionMatrix::rate(int truth, int pred) const {
  const std::int64_t n = samples(truth);
  return n > 0 ? static_cast<double>(count(truth, pred)) / static_cast<double>(n) : 0.0;
}

double ConfusionMatrix::accuracy(int truth) const {
  return samples(truth) > 0 ? rate(truth, truth) : std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> ConfusionMatrix::accuracies() const {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(classes_));
  for (int k = 0; k < classes_; ++k) out.push_back(accuracy(k));
  return out;
}

std::vector<double> ConfusionMatrix::rates(const std::vector<int>& ids) const {
  const std::size_t n = ids.size();
  std::vector<double> out(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) out[i * n + j] = rate(ids[i], ids[j]);
  return out;
}

std::vector<ConfusionMatrix::Pair> ConfusionMatrix::mostConfused(std::size_t top) const {
  std::vector<Pair> pairs;
  for (const auto& [key, n] : counts_) {
    const int t = static_cast<int>(key / classes_), p = static_cast<int>(key % classes_);
    if (t != p) pairs.push_back({t, p, n, rate(t, p)});
  }
  const auto before = [](const Pair& a, const Pair& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.rate != b.rate) return a.rate > b.rate;
    return a.truth != b.truth ? a.truth < b.truth : a.pred < b.pred;
  };
  const std::size_t keep = std::min(top, pairs.size());
  std::partial_sort(pairs.begin(), pairs.begin() + static_cast<std::ptrdiff_t>(keep), pairs.end(),
                    before);
  pairs.resize(keep);
  return pairs;
}

std::vector<std::pair<int, double>> ConfusionMatrix::topPredictions(int truth, int k) const {
  std::vector<std::pair<int, double>> row;
  if (truth < 0 || truth >= classes_) return row;
  row.reserve(static_cast<std::size_t>(classes_));
  for (int p = 0; p < classes_; ++p) row.emplace_back(p, rate(truth, p));
  const auto keep = static_cast<std::size_t>(std::clamp(k, 0, classes_));
  std::partial_sort(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(keep), row.end(),
                    [](const auto& a, const auto& b) {
                      return a.second != b.second ? a.second > b.second : a.first < b.first;
                    });
  row.resize(keep);
  return row;
}

std::vector<ConfusionMatrix::Cell> ConfusionMatrix::cells() const {
  std::vector<Cell> out;
  out.reserve(counts_.size());
  for (const auto& [key, n] : counts_)
    out.push_back({static_cast<int>(key / classes_), static_cast<int>(key % classes_), n});
  return out;
}

}  // namespace amp::metrics
