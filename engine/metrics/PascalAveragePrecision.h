#pragma once
// The average precision of one class in ActivityNet's object detection evaluation (which
// PySlowFast's AVA evaluation calls: ava_evaluation/metrics.py): detections ranked by score,
// precision and recall after each, precision made non-increasing from the right, then the area
// under that curve at the points where recall changes (the VOC devkit's definition).
//
//   // one entry per scored detection of the class, over all images; 3 groundtruth boxes
//   const double ap = pascalAveragePrecision({0.9, 0.8, 0.7}, {1, 0, 1}, 3);  // (1 + 2/3) / 3
#include <cstddef>
#include <cstdint>
#include <vector>

namespace amp::metrics {

/// compute_precision_recall then compute_average_precision. The ranking is numpy's
/// argsort(scores)[::-1] (numpyDescendingOrder); tied detections keep that order, which the AP
/// depends on. NaN when `groundTruth` is 0 (the class has no groundtruth: ActivityNet's None); 0
/// when there is no detection. Throws std::invalid_argument when the sizes differ or there are
/// more true positives than groundTruth (ActivityNet's ValueError; a caller's bug).
double pascalAveragePrecision(const std::vector<double>& scores,
                              const std::vector<std::uint8_t>& truePositive,
                              std::int64_t groundTruth);

/// np.argsort(scores)[::-1] with numpy's default sort (the introsort of numpy 1.x without
/// AVX-512; NaN sorts above every number): indices from the highest score down.
std::vector<std::size_t> numpyDescendingOrder(const std::vector<double>& scores);

/// np.sum of `n` doubles as numpy adds them (pairwise, in blocks of up to 128 with 8
/// accumulators), so a mean or an AP has numpy's last bits.
double numpySum(const double* values, std::size_t n);

/// np.nanmean: numpySum with NaN taken as 0, over the count of non-NaN values; NaN when all are
/// NaN (numpy warns "Mean of empty slice").
double numpyNanMean(const std::vector<double>& values);

}  // namespace amp::metrics
