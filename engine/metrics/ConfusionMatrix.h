#pragma once
// The confusion matrix of a single-label evaluation, as PySlowFast's visualisation tools compute
// it (slowfast/visualization/utils.py get_confusion_matrix: sklearn's confusion_matrix over the
// classes 0..K-1, rows the true class, columns the top-1 prediction, normalised over the true
// class), with what a researcher reads off it: each class's accuracy, the most confused pairs,
// and each class's top-k predicted classes (plot_topk_histogram's bars). Counts are kept, not
// rates, so a subset or a parent's children are cut from the same counts and a rate always
// divides by the class's whole row, as PySlowFast cuts its normalised matrix.
//
//   metrics::ConfusionMatrix m(3);
//   m.add(/*truth=*/0, /*pred=*/0);
//   m.add(0, 2);
//   m.add(1, 1, /*count=*/5);
//   m.rate(0, 2);                       // 0.5: half of class 0 went to class 2
//   m.accuracy(0);                      // 0.5
//   m.mostConfused(10);                 // {{0, 2, 1, 0.5}}
//   m.topPredictions(0, 2);             // {{0, 0.5}, {2, 0.5}}
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace amp::metrics {

class ConfusionMatrix {
 public:
  struct Cell {
    int truth = 0, pred = 0;
    std::int64_t count = 0;
  };
  struct Pair {
    int truth = 0, pred = 0;
    std::int64_t count = 0;
    double rate = 0;  ///< count over the true class's samples
  };

  explicit ConfusionMatrix(int classes = 0);
  /// Top-1 of each row of `scores` (n x classes, row-major; the first of equal maxima, as
  /// torch.argmax) against `labels`. Labels outside 0..classes-1 are left out, as sklearn's
  /// confusion_matrix with labels=range(K) leaves them.
  static ConfusionMatrix fromScores(const double* scores, const int* labels, std::size_t n,
                                    int classes);

  int classes() const { return classes_; }
  /// Adds `count` samples of class `truth` predicted as `pred`; false (nothing added) when
  /// either is not a class.
  bool add(int truth, int pred, std::int64_t count = 1);
  std::int64_t count(int truth, int pred) const;
  /// Samples of the class (its row), all samples, samples on the diagonal.
  std::int64_t samples(int truth) const;
  std::int64_t total() const;
  std::int64_t correct() const;
  /// count / samples(truth): normalize="true". 0 for a class without samples (sklearn's
  /// nan_to_num), so an empty row draws as empty.
  double rate(int truth, int pred) const;
  /// The class's share predicted right; NaN without samples (no figure, not 0%).
  double accuracy(int truth) const;
  /// Every class's accuracy, 0..K-1.
  std::vector<double> accuracies() const;

  /// Rates of the classes `ids` against each other (|ids| x |ids|, row-major), each over the
  /// whole row of its true class: what PySlowFast's add_confusion_matrix draws for a subset
  /// (cmtx[subset_ids, :][:, subset_ids] of the normalised matrix), so a row sums to less than 1
  /// when the class went to classes outside the subset. Ids that are not classes give 0s.
  std::vector<double> rates(const std::vector<int>& ids) const;

  /// The `top` largest off-diagonal cells, by count, then rate, then class ids.
  std::vector<Pair> mostConfused(std::size_t top) const;
  /// plot_hist's bars for true class `truth`: the `k` largest rates of its row (predicted class,
  /// rate), largest first and, among equal rates, the lower class first; k is capped at K.
  std::vector<std::pair<int, double>> topPredictions(int truth, int k) const;

  /// The non-zero cells, row by row: the matrix as a run directory stores it.
  std::vector<Cell> cells() const;

 private:
  // Sparse: a model of 700 classes leaves most of its 490,000 cells empty, and a file of
  // 21,841 classes must not cost gigabytes. Key: truth * classes + pred.
  int classes_;
  std::map<std::int64_t, std::int64_t> counts_;
  std::vector<std::int64_t> rows_;  // samples per true class
};

}  // namespace amp::metrics
