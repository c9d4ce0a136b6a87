#pragma once
// PySlowFast's multi-view test: every test video is seen as TEST.NUM_ENSEMBLE_VIEWS temporal
// clips x TEST.NUM_SPATIAL_CROPS crops; the views' class probabilities are summed per video and
// the video-level top-1 / top-5 errors reported. Torch-free header for the CLI and the trainer.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::train {

struct TestOptions {
  /// Checkpoint to test; "" picks as PySlowFast does: TEST.CHECKPOINT_FILE_PATH, else the newest
  /// checkpoint of OUTPUT_DIR, else TRAIN.CHECKPOINT_FILE_PATH.
  std::string checkpoint;
  std::function<void(int clipsDone, int clipsTotal)> progress;  ///< called from the testing thread
  const std::atomic<bool>* cancel = nullptr;
};

struct TestResult {
  std::string checkpoint;
  int videos = 0;
  int views_per_video = 0;
  double top1_err = 0, top5_err = 0;  ///< percent, over videos
  double view_top1_err = 0;           ///< percent, single views (what one clip gets)
  double seconds = 0;
  std::vector<int> per_class_videos;
  std::vector<double> per_class_top1_err;
};

/// Runs the test split. False with `error` naming the key or file (no checkpoint, unreadable
/// list, a test clip that cannot be decoded: test clips are never replaced).
bool runMultiViewTest(const config::Config& cfg, const TestOptions& options, TestResult& result, std::string* error);

}  // namespace amp::train
