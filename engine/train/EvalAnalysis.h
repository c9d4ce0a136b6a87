#pragma once
// What the trainer keeps of a single-label evaluation for looking at after the run (PySlowFast's
// writer.plot_eval after test_net's test and train_net's eval_epoch): the analysis file
// (metrics::ConfusionRecord under OUTPUT_DIR/analysis/), the per-class top-1 accuracy as a
// `per_class` line (so Compare's Per class tab puts FP32 and mixed runs side by side), and, with
// TENSORBOARD.ENABLE, PySlowFast's figures: the confusion matrix and its subset and parent views
// (TENSORBOARD.CONFUSION_MATRIX.ENABLE) and each class's top-k histogram (HISTOGRAM.ENABLE).
// Only the writing rank writes; a class-names or group file that cannot be read is said once as
// an event and the record goes on without it (the figures help; they must not stop a run).
// Torch-free.
//
//   train::EvalAnalysis analysis(cfg, recorder);
//   auto r = metrics::recordFromScores(scores, labels, videos, classes, views);
//   r.split = "test";
//   analysis.record(std::move(r), step, epoch, /*tbStep=*/0);
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/ClassGroups.h"
#include "metrics/ConfusionRecord.h"
#include "runlog/PerClassValues.h"
#include "runlog/TensorBoardWriter.h"

namespace amp::config {
class Config;
}
namespace amp::runlog {
class RunRecorder;
}

namespace amp::train {

class EvalAnalysis {
 public:
  EvalAnalysis(const config::Config& cfg, runlog::RunRecorder& rec);

  /// Writes `r` (its names and groups filled in here) at `step` / `epoch`: the analysis file, the
  /// per_class line, and the TensorBoard figures at `tbStep` (PySlowFast's global_step: the
  /// 0-based epoch of a validation, 0 for the test).
  void record(metrics::ConfusionRecord r, std::int64_t step, double epoch, std::int64_t tbStep);

  const metrics::ClassGroups& groups() const { return groups_; }

 private:
  std::vector<runlog::TensorBoardImage> figures(const metrics::ConfusionRecord& r);
  const config::Config& cfg_;
  runlog::RunRecorder& rec_;
  metrics::ClassGroups groups_;
  bool warnedFigures_ = false;
};

/// `r`'s per-class top-1 accuracy as a `per_class` line: metric "top1_acc" (a fraction), each
/// class's samples as its positives, NaN for a class without samples.
runlog::PerClassValues perClassAccuracy(const metrics::ConfusionRecord& r);

/// PySlowFast's plot_eval figures of `r` (its names, subset and parents filled in) as `cfg` asks
/// (TENSORBOARD.CONFUSION_MATRIX.*, HISTOGRAM.*; `groups` gives the histogram subset), PNG-encoded
/// and tagged. The first figure that cannot be drawn (no font) stops the drawing and sets
/// `problem`; the figures drawn until then are returned.
std::vector<runlog::TensorBoardImage> evalFigures(const config::Config& cfg,
                                                  const metrics::ClassGroups& groups,
                                                  const metrics::ConfusionRecord& r,
                                                  std::string* problem);

/// PySlowFast's TensorBoard tags: "Confusion Matrix", "Confusion Matrix Subset",
/// "Confusion Matrices Grouped by Parent Classes/<parent>", "Top <k> predictions by
/// classes/<class name>".
std::string histogramTag(int k, const std::string& className);

}  // namespace amp::train
