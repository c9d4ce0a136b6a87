#pragma once
// The training augmentation settings of PySlowFast's Kinetics dataset: the MViT recipe's
// relative (Inception-style) spatial sampling, AUG.* RandAugment and random erasing, and the
// repeated augmentation that turns one decoded video into several training clips.
#include <limits>
#include <vector>

#include "data/RandAugment.h"
#include "data/RandomErasing.h"

namespace amp::config {
class Config;
}

namespace amp::data {

struct AugmentParams {
  /// DATA.TRAIN_JITTER_SCALES_RELATIVE / _ASPECT_RELATIVE: both [min, max] or both empty.
  std::vector<double> relative_scale, relative_aspect;
  bool motion_shift = false;  ///< DATA.TRAIN_JITTER_MOTION_SHIFT (only with relative sampling)
  bool enabled = false;       ///< AUG.ENABLE
  bool rand_augment = false;  ///< AUG.ENABLE and a non-empty AUG.AA_TYPE
  RandAugmentPolicy policy;
  AugInterpolation interpolation = AugInterpolation::Bicubic;
  bool erase = false;  ///< AUG.ENABLE and AUG.RE_PROB > 0
  ErasingParams erasing;
  int num_sample = 1;        ///< AUG.NUM_SAMPLE
  int crop_num_spatial = 1;  ///< DATA.TRAIN_CROP_NUM_SPATIAL
  /// DATA.TRAIN_CROP_NUM_TEMPORAL: temporal windows per training video, each with its own random
  /// start, their gaps (start of one minus end of the previous, in source frames) kept within
  /// CONTRASTIVE.DELTA_CLIPS_MIN / MAX when they can be.
  int crop_num_temporal = 1;
  double delta_min = -std::numeric_limits<double>::infinity(),
         delta_max = std::numeric_limits<double>::infinity();

  /// Reads and checks the keys; throws std::invalid_argument naming the key and what to write.
  static AugmentParams fromConfig(const config::Config& c);
  bool relative() const { return !relative_scale.empty(); }
  /// Training clips per video: TRAIN_CROP_NUM_TEMPORAL windows x (TRAIN_CROP_NUM_SPATIAL x
  /// AUG.NUM_SAMPLE) augmented copies of each, window by window (PySlowFast's order).
  int trainCopies() const { return crop_num_temporal * copiesPerWindow(); }
  int copiesPerWindow() const { return num_sample * crop_num_spatial; }
};

}  // namespace amp::data
