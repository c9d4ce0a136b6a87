#pragma once
// PySlowFast's mAP for multi-label datasets (Charades; utils/meters.py get_map): scikit-learn's
// average_precision_score per class, over the classes that have a positive, then their mean.
//
//   // scores and targets: N x K row-major, every rank's rows gathered (any order)
//   const MapResult r = meanAveragePrecision(scores.data(), targets.data(), n, k);
//   log("mAP %.4f over %d of %d classes", r.map, r.classes_used, r.classes);
#include <cstddef>
#include <cstdint>
#include <vector>

namespace amp::metrics {

/// scikit-learn's average_precision_score for one class: thresholds at the distinct scores from
/// the highest down (tied samples form one step), AP = sum over them of (R_n - R_{n-1}) * P_n
/// with R_0 = 0. It depends on the (score, positive) pairs only, never on their order. 0 when
/// no sample is positive (scikit-learn warns and gives 0 too) or there are none; NaN when a
/// score is NaN or infinite (scikit-learn raises ValueError).
double averagePrecision(const std::vector<float>& scores,
                        const std::vector<std::uint8_t>& positive);

struct MapResult {
  double map = 0;        ///< mean AP over the classes used; 0 when `undefined`
  int classes_used = 0;  ///< classes with at least one nonzero target
  int classes = 0;       ///< K
  /// scikit-learn raised ValueError, so get_map returned the mean of its initial aps = [0]:
  /// no class has a positive (every column dropped), a used score is NaN or infinite, or a used
  /// target is neither 0 nor 1 (not a multi-hot matrix).
  bool undefined = false;
  /// Per class (K entries): its AP, NaN for a class get_map drops (no nonzero target) or whose
  /// AP is undefined (a NaN or infinite score); and its positive samples (targets equal to 1),
  /// so the run directory can say which classes a change of precision moved, and how big they are.
  std::vector<double> ap;
  std::vector<std::int64_t> positives;
};

/// PySlowFast's get_map over an N x K row-major score matrix and its N x K multi-hot targets:
/// the classes (columns) whose targets are all 0 are dropped, then the mean of
/// averagePrecision over the others. Rows may come in any order (ranks gathered one after
/// another give the same value as one process).
MapResult meanAveragePrecision(const float* scores, const float* targets, std::size_t n,
                               std::size_t k);

}  // namespace amp::metrics
