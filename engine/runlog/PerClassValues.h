#pragma once
// One evaluation's figure per class (a multi-label run's average precision per class, AVA's
// per-class frame AP), as a `per_class` line of the metrics log carries it (docs/run-format.md).
// The studio's Compare view puts two runs' lists side by side, so that a researcher sees which
// classes mixed precision changed, where the mean alone hides it.
//
//   runlog::PerClassValues p;
//   p.split = "val";
//   p.metric = "ap";
//   p.classes = {0, 1};
//   p.values = {0.42, std::nan("")};  // class 1 had no positive: no AP
//   p.positives = {17, 0};
//   if (auto problem = p.check()) refuse(*problem);
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amp::runlog {

class PerClassValues {
 public:
  std::string split = "val";  ///< "val" (a validation) or "test" (the final multi-view test)
  std::string metric = "ap";  ///< what `values` are: "ap", average precision as a fraction
  std::vector<std::int64_t> classes;  ///< class ids: the head's index, or AVA's label-map id
  /// Parallel to `classes`, or empty when no names are known (Charades without a label file);
  /// "" for a class without a name.
  std::vector<std::string> names;
  /// Parallel to `classes`; NaN where the class has no figure (no positive, no ground truth).
  std::vector<double> values;
  /// Parallel to `classes`, or empty: positive samples (multi-label) or ground-truth boxes (AVA)
  /// of each class in the evaluated set, so that a small class's AP is read with its size.
  std::vector<std::int64_t> positives;

  /// Why these lists do not fit together (a value count other than the class count ...), or
  /// nullopt when they do. A reader drops a line that fails it, as any damaged line.
  std::optional<std::string> check() const;
  /// The name of the class at `i`, "" when none is known.
  std::string nameAt(std::size_t i) const { return i < names.size() ? names[i] : std::string(); }
  bool operator==(const PerClassValues& o) const;
};

}  // namespace amp::runlog
