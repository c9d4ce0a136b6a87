#include "metrics/MeanAveragePrecision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace amp::metrics {

double averagePrecision(const std::vector<float>& scores,
                        const std::vector<std::uint8_t>& positive) {
  const std::size_t n = std::min(scores.size(), positive.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(scores[i])) return std::numeric_limits<double>::quiet_NaN();
  std::size_t positives = 0;
  for (std::size_t i = 0; i < n; ++i) positives += positive[i] ? 1 : 0;
  // No positive: scikit-learn sets every recall to 1, so the only recall step is the final
  // 1 -> 0 one, weighted by the precision at the highest threshold, which is 0.
  if (positives == 0) return 0;

  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  // Descending score. Ties are one threshold and only the counts at a group's end are used, so
  // the order inside a group (scikit-learn's stable sort keeps input order) cannot matter.
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  double ap = 0, lastRecall = 0;
  std::size_t tp = 0;
  for (std::size_t i = 0; i < n; ++i) {
    tp += positive[order[i]] ? 1 : 0;
    if (i + 1 < n && scores[order[i + 1]] == scores[order[i]]) continue;  // inside a tie
    const double recall = static_cast<double>(tp) / static_cast<double>(positives);
    const double precision = static_cast<double>(tp) / static_cast<double>(i + 1);
    ap += (recall - lastRecall) * precision;
    lastRecall = recall;
  }
  return std::max(0.0, ap);  // scikit-learn clips a rounding -0.0 the same way
}

MapResult meanAveragePrecision(const float* scores, const float* targets, std::size_t n,
                               std::size_t k) {
  MapResult r;
  r.classes = static_cast<int>(k);
  r.ap.assign(k, std::numeric_limits<double>::quiet_NaN());
  r.positives.assign(k, 0);
  std::vector<float> column(n);
  std::vector<std::uint8_t> positive(n);
  double sum = 0;
  for (std::size_t c = 0; c < k; ++c) {
    // get_map keeps a column unless every target is exactly 0 (np.all(labels == 0)).
    bool used = false;
    for (std::size_t i = 0; i < n && !used; ++i) used = !(targets[i * k + c] == 0.0f);
    if (!used) continue;
    ++r.classes_used;
    for (std::size_t i = 0; i < n; ++i) {
      const float t = targets[i * k + c];
      // scikit-learn reads a matrix with other values (0.5, 2, NaN) as continuous or
      // multiclass-multioutput and raises ValueError.
      if (t != 0.0f && t != 1.0f) r.undefined = true;
      column[i] = scores[i * k + c];
      positive[i] = t == 1.0f;
      r.positives[c] += positive[i];
    }
    const double ap = averagePrecision(column, positive);
    r.ap[c] = ap;
    if (std::isnan(ap)) r.undefined = true;
    sum += ap;
  }
  // Every column dropped: scikit-learn's type_of_target calls an N x 0 matrix "unknown" and
  // average_precision_score raises ValueError, so get_map returns np.mean([0]) = 0.
  if (r.classes_used == 0) r.undefined = true;
  r.map = r.undefined ? 0.0 : sum / r.classes_used;
  return r;
}

}  // namespace amp::metrics
