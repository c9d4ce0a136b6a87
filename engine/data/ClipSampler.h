#pragma once
// Turns one video into one model input clip exactly as PySlowFast's Kinetics dataset does:
// temporal sampling, short-side scaling, crop, flip, normalisation, C x T x H x W layout and,
// for SlowFast, the slow pathway. All randomness arrives as draws, so a seed decides everything.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/AugmentParams.h"
#include "data/AvaTransform.h"
#include "data/Dataset.h"
#include "data/Draws.h"
#include "data/ResizedCrop.h"
#include "data/Sampling.h"
#include "data/VideoDecoder.h"

namespace amp::config {
class Config;
}

namespace amp::data {

/// The DATA.*, TEST.*, SLOWFAST.* and AUG.* settings the pipeline reads.
struct ClipParams {
  int num_frames = 8;
  int sampling_rate = 8;
  double target_fps = 30;
  /// Training and validation short-side range. With MULTIGRID.DEFAULT_S the minimum follows the
  /// crop: round(TRAIN_JITTER_SCALES[0] x crop / DEFAULT_S), as PySlowFast's Kinetics dataset.
  int jitter_min = 256, jitter_max = 320;
  int test_jitter_min = 256;  ///< TRAIN_JITTER_SCALES[0] as the test's one short side (unscaled)
  /// MULTIGRID.LONG_CYCLE_SAMPLING_RATE: training and validation clips draw their sampling rate
  /// uniformly from [sampling_rate, this] (0 or below sampling_rate: always sampling_rate).
  int max_sampling_rate = 0;
  bool inverse_uniform = false;
  int train_crop = 224, test_crop = 256;
  bool random_flip = true;
  int test_views = 10, test_crops = 3;
  bool use_offset = false;
  /// DATA.DECODING_BACKEND: which frames a clip takes (torchvision: torchvisionFrameIndices; pyav:
  /// by PyAV's timestamps while decoding, VideoDecoder::scanAsPyAv) and the size frames are decoded
  /// at before scaling (torchvision: short side = the smallest scale, long side rounded).
  DecodingBackend backend = DecodingBackend::TorchVision;
  std::array<float, 3> mean{0.45f, 0.45f, 0.45f};
  std::array<float, 3> std{0.225f, 0.225f, 0.225f};
  bool reverse_channels = false;
  int slowfast_alpha = 0;  ///< > 0: also build the slow pathway
  /// TRAIN.DATASET: how a frame folder's frames are picked (SSv2 segments, Charades strides).
  DatasetKind dataset = DatasetKind::Kinetics;
  AugmentParams aug;  ///< training augmentation (relative crops, RandAugment, erasing, copies)
  /// AVA's box-aware transform (its own DATA.* and AVA.* reading; AvaClips.h uses it). It keeps
  /// DATA.TRAIN_CROP_SIZE under multigrid short cycles, as PySlowFast's Ava dataset does.
  AvaTransformParams ava;

  static ClipParams fromConfig(const config::Config& c);
  /// The sampling rate of one clip: `draw` (in [0, 1), negative: none) picks it from
  /// [sampling_rate, max_sampling_rate] in training and validation.
  int samplingRateFor(double draw, Split s) const {
    if (s == Split::Test || draw < 0 || max_sampling_rate <= sampling_rate) return sampling_rate;
    const int span = max_sampling_rate - sampling_rate + 1;
    return sampling_rate + std::min(span - 1, static_cast<int>(draw * span));
  }
  /// Views per test video: NUM_ENSEMBLE_VIEWS x NUM_SPATIAL_CROPS; AVA tests each keyframe once
  /// (its dataset has no views).
  int viewsPerTestVideo() const {
    return dataset == DatasetKind::Ava ? 1 : test_views * test_crops;
  }
  int cropSize(Split s) const { return s == Split::Test ? test_crop : train_crop; }
  /// Clips one video gives: DATA.TRAIN_CROP_NUM_TEMPORAL x AUG.NUM_SAMPLE x
  /// DATA.TRAIN_CROP_NUM_SPATIAL in training, else 1.
  int copiesPerVideo(Split s) const { return s == Split::Train ? aug.trainCopies() : 1; }
  /// Whether training clips take the augmented path (TrainTransform): decoded once at short side
  /// TRAIN_JITTER_SCALES[0] as PySlowFast's torchvision backend, then transformed per copy.
  bool augmentedTrain() const {
    return aug.relative() || aug.rand_augment || aug.erase || aug.trainCopies() > 1;
  }
  /// Floats of one clip's fast / slow pathway at the crop size of `s`.
  std::size_t fastSize(Split s) const {
    return 3u * static_cast<std::size_t>(num_frames) * cropSize(s) * cropSize(s);
  }
  std::size_t slowSize(Split s) const {
    return slowfast_alpha > 0 ? 3u * static_cast<std::size_t>(num_frames / slowfast_alpha) *
                                    cropSize(s) * cropSize(s)
                              : 0;
  }
};

/// Uniform draws in [0, 1) for one clip, in PySlowFast's order of use.
struct ClipDraws {
  double temporal = 0.5, scale = 0.5, crop_y = 0.5, crop_x = 0.5, flip = 0.9;
  double rate =
      -1;  ///< the sampling-rate draw (multigrid long cycles); negative: DATA.SAMPLING_RATE
  /// The further draws of the augmented training path (relative crops, RandAugment, erasing);
  /// when null a fixed stream is used.
  DrawSource* more = nullptr;
};

struct Clip {
  std::vector<float> fast;    ///< C x T x H x W, normalised (unless written to fast_out)
  std::vector<float> slow;    ///< C x T/alpha x H x W when slowfast_alpha > 0 (unless slow_out)
  float* fast_out = nullptr;  ///< when set, the clip is written here instead (e.g. into a batch)
  float* slow_out = nullptr;
  int channels = 3, frames = 0, height = 0, width = 0;
  std::vector<std::int64_t> frame_indices;  ///< source frames, after clamping
  Size decoded;                             ///< frame size the backend decodes at (before jitter)
  Size scaled;                              ///< frame size after short-side scaling
  CropBox box;
  CropRect region;  ///< the region of the decoded frame the clip shows (first frame)
  bool flipped = false;
  std::vector<AppliedOp>
      augment_ops;  ///< RandAugment operations applied, in order (describeAugOp names them)
  std::vector<EraseBox> erased_boxes;  ///< random-erasing boxes, in crop pixels
  int corrupt_packets = 0;
  double decode_s = 0, resize_s = 0, transform_s = 0;  ///< time split of this clip
};

class ClipSampler {
 public:
  explicit ClipSampler(ClipParams params, DecoderOptions decoder = {});
  const ClipParams& params() const { return params_; }

  /// One clip of `path`. In Test, `view` picks the temporal view (view / test_crops) and the
  /// spatial crop (view % test_crops). False with `error` naming the path when it cannot decode.
  [[nodiscard]] bool sample(const std::string& path, Split split, int view, const ClipDraws& draws,
                            Clip& out, std::string* error);

  /// One clip of a sample: a video (sample(path, ...)) or a frame folder's JPEG frames, picked as
  /// PySlowFast's SSv2 or Charades dataset (FrameSampling.h), decoded at their native size in BGR
  /// order as OpenCV gives them, then spatially sampled as their __getitem__ (TrainTransform.h).
  [[nodiscard]] bool sample(const Sample& s, Split split, int view, const ClipDraws& draws,
                            Clip& out, std::string* error);
  /// sampleCopies for a sample: a frame folder's copies share one decode of the frames.
  [[nodiscard]] bool sampleCopies(const Sample& s, Split split, int view, const ClipDraws* draws,
                                  Clip* outs, int copies, std::string* error);

  /// `copies` clips of one decode of `path`, as PySlowFast's repeated augmentation: the temporal
  /// position from draws[0], everything spatial from each copy's own draws. With
  /// DATA.TRAIN_CROP_NUM_TEMPORAL windows (copies a multiple of it), copies come window by
  /// window, window k's position from the draws of its first copy (draws[k x copies / windows]).
  /// Decode time is counted on each window's first copy.
  [[nodiscard]] bool sampleCopies(const std::string& path, Split split, int view,
                                  const ClipDraws* draws, Clip* outs, int copies,
                                  std::string* error);

 private:
  bool sampleFrames(const Sample& s, Split split, int view, const ClipDraws* draws, Clip* outs,
                    int copies, std::string* error);
  ClipParams params_;
  DecoderOptions decoderOptions_;
};

}  // namespace amp::data
