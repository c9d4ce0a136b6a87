#pragma once
// PySlowFast's multi-view test: every test video is seen as TEST.NUM_ENSEMBLE_VIEWS temporal
// clips x TEST.NUM_SPATIAL_CROPS crops; the views' class probabilities are summed (or, with
// DATA.ENSEMBLE_METHOD max, max-pooled) per video and
// the video-level top-1 / top-5 errors reported. With several processes each tests its share of
// the views and the per-video scores are summed across them, so every video gets all of its views.
// Torch-free header for the CLI and the trainer.
#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dist/DistEnv.h"
#include "metrics/ConfusionRecord.h"
#include "runlog/PerClassValues.h"

namespace amp::config {
class Config;
}

namespace amp::train {

/// Thrown when TestOptions::cancel stopped the test on any rank (every rank throws it together).
struct TestCancelled : std::runtime_error {
  TestCancelled() : std::runtime_error("test cancelled") {}
};

struct TestOptions {
  /// Checkpoint to test; "" picks as PySlowFast does: TEST.CHECKPOINT_FILE_PATH, else the newest
  /// checkpoint of OUTPUT_DIR, else TRAIN.CHECKPOINT_FILE_PATH.
  std::string checkpoint;
  std::function<void(int clipsDone, int clipsTotal)> progress;  ///< called from the testing thread
  const std::atomic<bool>* cancel = nullptr;
  /// This process's place in a multi-process test (from the launcher, torchrun or Slurm);
  /// none: one process, which must be what the config asks for.
  std::optional<dist::DistEnv> dist;
};

struct TestResult {
  std::string checkpoint;
  int videos = 0;
  int views_per_video = 0;
  int world_size = 1;                 ///< processes that shared the views
  double top1_err = 0, top5_err = 0;  ///< percent, over videos
  double view_top1_err = 0;           ///< percent, single views (what one clip gets)
  double seconds = 0;
  std::vector<int> per_class_videos;
  std::vector<double> per_class_top1_err;
  /// Per video, in test-list order: its path, label and the sum of its views' probabilities
  /// (videos x classes, row-major), the scores PySlowFast's ensemble ranks.
  std::vector<std::string> video_paths;
  std::vector<int> video_labels;
  std::vector<double> video_scores;
  /// Multi-label datasets (Charades): each video's classes as multi-hot rows (videos x classes)
  /// and PySlowFast's get_map over the ensembled scores; top-1 is not scored for them.
  bool multi_label = false;
  std::vector<std::uint8_t> video_targets;
  double map = 0;       ///< fraction, as PySlowFast's "map"
  int map_classes = 0;  ///< classes with a positive video (the ones mAP averages)
  /// Detection (AVA): `videos` counts keyframes, `map` is the frame-mAP@0.5 IoU (multi_label is
  /// set too), `map_classes` the label-map classes with ground truth; the detections are written
  /// as the AVA CSV to `detections_csv` (OUTPUT_DIR/detections_latest.csv, by the first process).
  bool detection = false;
  std::int64_t boxes = 0;
  std::string detections_csv;
  /// Multi-label and detection tests: each class's AP (split "test"), what the trainer records
  /// as the test's `per_class` line; no classes for a single-label test.
  runlog::PerClassValues per_class_ap;
};

/// `r`'s per-video scores as CSV (header: video,label,views,top1,score_0,...; multi-label runs
/// add target_0,... after the scores, the video's multi-hot classes): what --scores writes. False
/// with `error` naming the file.
[[nodiscard]] bool writeTestScores(const TestResult& r, const std::string& path,
                                   std::string* error);

/// One video's prediction: the multi-view test protocol on it (TEST.NUM_ENSEMBLE_VIEWS x
/// TEST.NUM_SPATIAL_CROPS views, DATA.ENSEMBLE_METHOD), the top classes with their probability
/// (the mean over the views; with max, the largest), and the time it took.
struct Prediction {
  std::string video;
  std::vector<std::pair<int, double>> top;  ///< class index, probability; best first, at most 5
  int views = 0;
  double seconds = 0;
  std::string error;  ///< a video that cannot be decoded: why (the others are still predicted)
};

/// Predicts each video with the weights of `checkpoint` ("" picks as the test does). False with
/// `error` when the model or checkpoint cannot be set up; a bad video only fills its own error.
/// `threads` > 0 caps LibTorch's CPU threads (beside a training run).
[[nodiscard]] bool predictVideos(const config::Config& cfg, const std::string& checkpoint,
                                 const std::vector<std::string>& videos,
                                 std::vector<Prediction>& out, std::string* error, int threads = 0);

/// One line "KEY: why" naming the first of config::refusedSettings when the studio does not run
/// the task `cfg` describes (detection, multi-label, other tasks, datasets, losses, MViT variants
/// not built); nullopt when it does. `training` checks TRAIN.DATASET and MODEL.LOSS_FUNC too.
std::optional<std::string> unsupportedTask(const config::Config& cfg, bool training);

/// The checkpoint a test of `cfg` loads, as PySlowFast's test_net: TEST.CHECKPOINT_FILE_PATH,
/// else the newest checkpoint of OUTPUT_DIR of the config's TASK, else TRAIN.CHECKPOINT_FILE_PATH;
/// "" when none.
std::string testCheckpoint(const config::Config& cfg);

/// Runs the test split as PySlowFast's test_net: one multi-view test per entry of
/// TEST.NUM_TEMPORAL_CLIPS (each as TEST.NUM_ENSEMBLE_VIEWS; empty: TEST.NUM_ENSEMBLE_VIEWS once),
/// with the same weights and processes; one result per entry, in list order. False with `error`
/// naming the key or file (no checkpoint, unreadable list, a test clip that cannot be decoded:
/// test clips are never replaced).
[[nodiscard]] bool runMultiViewTests(const config::Config& cfg, const TestOptions& options,
                                     std::vector<TestResult>& results, std::string* error);

/// TEST.NUM_TEMPORAL_CLIPS, or [TEST.NUM_ENSEMBLE_VIEWS] when it is empty (as test_net.py).
/// Throws std::invalid_argument naming the key for a count below 1.
std::vector<int> temporalClipCounts(const config::Config& cfg);
/// `cfg` testing `clips` temporal clips per video (TEST.NUM_ENSEMBLE_VIEWS set to it).
config::Config withTemporalClips(const config::Config& cfg, int clips);

/// The analysis record of a single-label test (PySlowFast's plot_eval on test_meter.video_preds):
/// the confusion matrix of the videos' ensembled scores, summed views divided into their mean (a
/// max-ensembled score is already a probability), split "test", unit "video". The trainer's test
/// and `ampstudio-cli test --analysis` both write it.
metrics::ConfusionRecord testConfusionRecord(const TestResult& r, int classes, bool maxEnsembled,
                                             const std::string& checkpoint);

}  // namespace amp::train
