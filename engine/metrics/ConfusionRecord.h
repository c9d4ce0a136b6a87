#pragma once
// What a single-label evaluation leaves for the studio and `ampstudio-cli analyze confusion` to
// look at after the run: the confusion matrix as sparse (true, predicted, count) cells, every
// misclassified video or clip with its true and predicted class and their scores, the class names
// and PySlowFast's class groups (subset, parents) as the run's config named them. One JSON file
// per evaluation under OUTPUT_DIR/analysis/ (docs/run-format.md, "Analysis files"):
// test_confusion.json for the multi-view test, val_confusion_epoch_NNNNN.json per validation.
// Written atomically (a reader never sees half a file); read with a size cap and every field
// checked, so a truncated or hand-edited file is an error naming the file, never a crash.
//
//   metrics::ConfusionRecord r;
//   r.split = "test";
//   r.matrix = metrics::ConfusionMatrix::fromScores(scores, labels, n, classes);
//   r.mistakes.push_back({"videos/a.mp4", /*truth=*/3, /*pred=*/5, 0.61, 0.20, 2});
//   std::string error;
//   if (!metrics::writeConfusionRecord(r, runDir + "/analysis/test_confusion.json", &error)) ...
//   auto back = metrics::readConfusionRecord(path, &error);
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/ConfusionMatrix.h"

namespace amp::metrics {

struct Mistake {
  std::string video;  ///< the sample's path as the list names it (a frame folder's name)
  int truth = 0, pred = 0;
  double score = 0;       ///< the predicted class's probability (test: mean over the views)
  double true_score = 0;  ///< the true class's probability
  int true_rank = 0;      ///< where the true class ranked (2: second best), 0 when unknown
  bool operator==(const Mistake& o) const;
};

struct ConfusionRecord {
  static constexpr int kFormatVersion = 1;
  std::string split = "test";  ///< "test" or "val"
  std::int64_t step = 0;
  double epoch = 0;
  /// "video": each test video's views ensembled (TEST.NUM_ENSEMBLE_VIEWS x NUM_SPATIAL_CROPS);
  /// "clip": one validation clip per sample, as PySlowFast's ValMeter counts.
  std::string unit = "video";
  int views_per_video = 1;
  std::string checkpoint;  ///< test: the weights tested ("" when unknown)
  ConfusionMatrix matrix;
  std::vector<std::string> names;  ///< per class index, or empty; "" for a class without one
  std::optional<std::vector<int>> subset;  ///< TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH
  std::vector<std::pair<std::string, std::vector<int>>> parents;  ///< TENSORBOARD.CATEGORIES_PATH
  /// Every misclassified sample (WRONG_PRED_VIS.SUBSET_PATH does not cut it: the studio filters).
  std::vector<Mistake> mistakes;
  /// Misclassified samples not listed (none unless the list was capped at kMaxMistakes).
  std::int64_t mistakes_left_out = 0;

  /// The name of class `k`, or its number when it has none.
  std::string className(int k) const;
};

/// The most mistakes a file lists: 200,000 (Kinetics-700's 35,000 validation videos all wrong,
/// several times over); beyond it the count alone is kept, so a file stays tens of MB at most.
inline constexpr std::size_t kMaxMistakes = 200000;

/// Counts one sample in `r`'s matrix and, when it was misclassified, lists it (up to
/// kMaxMistakes; after that only mistakes_left_out grows).
void addSample(ConfusionRecord& r, const std::string& video, int truth, int pred, double score,
               double trueScore, int trueRank);
/// A record of `n` samples from their scores (n x classes, row-major) as the test ensembles them:
/// each row's top-1 (the first of equal maxima), its score and the true class's divided by
/// `divideBy` (the views summed: their mean; 1 for a max-pooled or single-clip score) and the true
/// class's rank. Labels outside the classes are left out, as the matrix leaves them.
ConfusionRecord recordFromScores(const double* scores, const std::vector<int>& labels,
                                 const std::vector<std::string>& videos, int classes,
                                 double divideBy);

/// The matrix of classes `ids` as CSV for a spreadsheet: a header "true \ predicted" and the
/// classes' names, then a row per true class; counts, or with `rates` each row's share
/// (ConfusionMatrix::rates). Names with a comma or quote are quoted (RFC 4180).
std::string confusionCsv(const ConfusionRecord& r, const std::vector<int>& ids, bool rates);

std::string toJson(const ConfusionRecord& r);
/// nullopt with `error` (without a path) when `text` is not such a record.
std::optional<ConfusionRecord> parseConfusionRecord(const std::string& text, std::string* error);
/// Atomic write (the folder is created). False with `error` naming the path.
[[nodiscard]] bool writeConfusionRecord(const ConfusionRecord& r, const std::string& path,
                                        std::string* error);
/// nullopt with `error` naming the path and saying what to do.
std::optional<ConfusionRecord> readConfusionRecord(const std::string& path, std::string* error);

/// One analysis file of a run directory.
struct ConfusionFile {
  std::string path;
  std::string split;  ///< "test" or "val"
  int epoch = 0;      ///< validation's epoch (1-based); 0 for the test
};
/// "analysis/test_confusion.json" or "analysis/val_confusion_epoch_00003.json" under `runDir`.
std::string confusionFilePath(const std::string& runDir, const std::string& split, int epoch);
/// The run's analysis files: the test first, then validations from the newest epoch down. Empty
/// for a run without any (multi-label, AVA, or recorded before this studio version).
std::vector<ConfusionFile> listConfusionFiles(const std::string& runDir);

}  // namespace amp::metrics
