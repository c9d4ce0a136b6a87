#pragma once
// Batches of clips from a dataset's samples (Dataset.h), built by worker threads ahead of the
// trainer: seeded shuffling, a rank/world-size split, drop-last, bounded prefetch, batches always
// delivered in order, so the same seed gives the same batches whatever the thread timing. No
// LibTorch here: a batch is contiguous floats the trainer wraps as a tensor without copying.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "data/ClipSampler.h"
#include "data/Dataset.h"

namespace amp::data {

/// `size` clips: in training with repeated augmentation (AUG.NUM_SAMPLE x
/// DATA.TRAIN_CROP_NUM_SPATIAL = `copies`) each video gives `copies` consecutive clips, as
/// PySlowFast's multiple_samples_collate flattens them; labels, videos and views are per clip.
/// Where one clip of a batch came from and what its sampling did (the clip preview shows it).
struct ClipInfo {
  std::vector<std::int64_t> frame_indices;  ///< source frames of the fast pathway
  Size decoded;     ///< frame size the region refers to (after short-side scaling)
  CropRect region;  ///< region of the decoded first frame the clip shows
  bool flipped = false;
  std::vector<AppliedOp> augment_ops;  ///< RandAugment operations applied, in order
  std::vector<EraseBox> erased_boxes;  ///< random-erasing boxes, in crop pixels
};

struct Batch {
  int index = 0;   ///< position in the epoch
  int size = 0;    ///< clips: videos x copies
  int copies = 1;  ///< clips per video
  int channels = 3, frames = 0, slow_frames = 0, height = 0, width = 0;
  std::vector<float> fast;  ///< B x C x T x H x W
  std::vector<float> slow;  ///< B x C x T/alpha x H x W (SlowFast only)
  std::vector<int> labels;  ///< class of each clip (multi-label: its first class, or 0)
  /// Multi-label datasets: size x num_classes multi-hot targets (Charades: the classes of the
  /// frames the clip spans in training, the video's otherwise); empty for single-label ones.
  std::vector<float> targets;
  int num_classes = 0;
  std::vector<int> videos;     ///< index into the list of the clip actually used
  std::vector<int> views;      ///< test view of each clip (0 in train/val)
  std::vector<ClipInfo> info;  ///< per clip
  /// AVA only (PySlowFast's detection_collate), num_boxes rows each: clip index in the batch,
  /// x1, y1, x2, y2 in the clip's pixels (the model input's; test clips may not be square, and
  /// height / width are the batch's clips' size).
  std::vector<float> boxes;
  /// num_boxes x num_classes multi-hot: action id k sets column k - 1 (-1, no action, none).
  /// AVA's targets are these; `targets` stays empty.
  std::vector<float> box_targets;
  std::vector<float> ori_boxes;        ///< num_boxes x 4: x1, y1, x2, y2 normalised, as read
  std::vector<std::int64_t> box_meta;  ///< num_boxes x 2: video (list.ava->videos), second
  int num_boxes = 0;
  int replaced = 0;  ///< clips that failed to decode and were replaced
  double decode_s = 0, resize_s = 0,
         transform_s = 0;  ///< worker time split (clips are written in place)
};

struct DecodeFailure {
  std::string path;
  std::string reason;
};

/// One batch shape of a multigrid short cycle (PySlowFast's ShortCycleBatchSampler).
struct ShortCycleBatch {
  int batch_size = 0;  ///< videos of this process's batch
  int crop = 0;        ///< DATA.TRAIN_CROP_SIZE of these clips
  int jitter_min = 0;  ///< the training jitter's minimum short side for this crop
};

struct LoaderOptions {
  int batch_size = 8;
  /// Training with multigrid short cycles: batch k of every epoch takes shape k % size() (the
  /// batch sizes differ, so batch k starts where the earlier ones ended); empty: every batch is
  /// `batch_size` clips at the configured crop.
  std::vector<ShortCycleBatch> short_cycle;
  int workers = 2;   ///< 0: batches are built on the calling thread
  int prefetch = 2;  ///< batches ready ahead per worker
  bool shuffle = true;
  bool drop_last = true;
  std::uint64_t seed = 0;
  int rank = 0,
      world_size = 1;  ///< this process's share of every epoch (DistributedSampler's split)
  int max_failures_in_a_row = 100;
  int num_classes = 0;  ///< MODEL.NUM_CLASSES: the width of multi-hot targets
  DecoderOptions decoder;

  /// PySlowFast's loader settings for `split` in process `rank` of `worldSize`: the per-process
  /// batch (TRAIN/TEST.BATCH_SIZE over this machine's NUM_GPUS or DIST.CPU_PROCESSES processes),
  /// DATA_LOADER.NUM_WORKERS, shuffle and drop-last in training, RNG_SEED, codec threads from
  /// DATA_LOADER.ENABLE_MULTI_THREAD_DECODE.
  static LoaderOptions fromConfig(const config::Config& c, Split split, int rank = 0,
                                  int worldSize = 1);
};

class VideoLoader {
 public:
  VideoLoader(SampleList list, ClipParams params, Split split, LoaderOptions options);
  ~VideoLoader();
  VideoLoader(const VideoLoader&) = delete;
  VideoLoader& operator=(const VideoLoader&) = delete;

  /// Videos this rank sees per epoch (test: videos x views; AVA: keyframes, one view each); each
  /// gives clipsPerVideo() clips.
  std::size_t samplesPerEpoch() const;
  /// Batches hold `batch_size` videos: PySlowFast's per-GPU batch is TRAIN.BATCH_SIZE / NUM_GPUS
  /// videos, each of which yields this many clips (AUG.NUM_SAMPLE x TRAIN_CROP_NUM_SPATIAL).
  int clipsPerVideo() const { return sampler_.params().copiesPerVideo(split_); }
  std::size_t batchesPerEpoch() const;
  /// Starts building the batches of `epoch` from batch `firstBatch` on (a resume inside an
  /// epoch skips the earlier batches without decoding them). Stops any epoch in progress.
  void startEpoch(int epoch, int firstBatch = 0);
  /// The next batch in order; nullopt at the end of the epoch or after a fatal error().
  std::optional<Batch> next();
  /// Hands a used batch back so its buffers are reused (optional; saves page faults).
  void recycle(Batch&& batch);
  /// Why the epoch stopped early ("" when it did not).
  std::string error() const;
  /// Decode failures since the last call (for the run log and the failure-count metric).
  std::vector<DecodeFailure> takeFailures();
  std::int64_t totalFailures() const { return totalFailures_; }
  void stop();

 private:
  struct Item {
    int video;
    int view;
    std::uint64_t global;  ///< position in the whole epoch's list (all ranks): what the random
                           ///< draws depend on
  };
  void worker();
  bool buildBatch(int batchIndex, Batch& out, std::string* fatal);
  /// buildBatch for AVA: one clip per keyframe with its boxes (AvaClips.h).
  bool buildAvaBatch(int batchIndex, Batch& out, std::string* fatal);
  /// Reusable buffers of a recycled batch, or empty ones.
  void takeSpare(Batch& out);
  /// Runs `attempt` (sample, draws of (seed, epoch, position, attempt), reason) for `item` until
  /// it succeeds: a failure is recorded, fatal in test or after max_failures_in_a_row, else
  /// `item` becomes a random other sample (PySlowFast's retry) and `replaced` counts it.
  bool sampleWithRetries(
      Item& item, int& replaced,
      const std::function<bool(const Sample&, Draws&, int attempt, std::string*)>& attempt,
      std::string* fatal);
  /// buildBatch with any exception turned into `fatal`.
  bool buildBatchCaught(int batchIndex, Batch& out, std::string* fatal);
  /// Position in the epoch's items of batch k's first video, and its videos.
  std::pair<std::size_t, std::size_t> batchSpan(int k) const;
  std::vector<Item> epochItems(int epoch) const;

  SampleList list_;
  ClipSampler sampler_;
  std::vector<ClipSampler> cycleSamplers_;  ///< one per short-cycle shape
  Split split_;
  LoaderOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
  std::vector<Item> items_;
  int epoch_ = 0;
  int numBatches_ = 0;
  int nextToBuild_ = 0;
  int nextToDeliver_ = 0;
  bool stopping_ = false;
  std::string error_;
  std::map<int, Batch> ready_;
  std::vector<Batch> spare_;  ///< recycled batches whose buffers workers reuse
  std::vector<DecodeFailure> failures_;
  std::atomic<std::int64_t> totalFailures_{0};
};

}  // namespace amp::data
