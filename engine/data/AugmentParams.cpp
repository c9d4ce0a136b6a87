#include "data/AugmentParams.h"

#include <stdexcept>

#include "config/Config.h"

namespace amp::data {
namespace {

std::vector<double> range(const config::Config& c, const char* key) {
  const auto v = c.getFloatList(key);
  if (!v.empty() && (v.size() != 2 || !(v[0] > 0) || !(v[1] > 0)))
    throw std::invalid_argument(
        std::string(key) + ": expected [] or two positive numbers [min, max] (e.g. " +
        (std::string(key).find("ASPECT") != std::string::npos ? "[0.75, 1.3333]" : "[0.08, 1.0]") +
        ")");
  return v;
}

}  // namespace

AugmentParams AugmentParams::fromConfig(const config::Config& c) {
  AugmentParams a;
  a.relative_scale = range(c, "DATA.TRAIN_JITTER_SCALES_RELATIVE");
  a.relative_aspect = range(c, "DATA.TRAIN_JITTER_ASPECT_RELATIVE");
  if (a.relative_scale.empty() != a.relative_aspect.empty())
    throw std::invalid_argument(
        "DATA.TRAIN_JITTER_SCALES_RELATIVE and DATA.TRAIN_JITTER_ASPECT_RELATIVE go together "
        "(PySlowFast's "
        "random_resized_crop needs both): set both, e.g. [0.08, 1.0] and [0.75, 1.3333], or "
        "neither");
  a.motion_shift = c.getBool("DATA.TRAIN_JITTER_MOTION_SHIFT");
  a.enabled = c.getBool("AUG.ENABLE");
  a.num_sample = static_cast<int>(c.getInt("AUG.NUM_SAMPLE"));
  a.crop_num_spatial = static_cast<int>(c.getInt("DATA.TRAIN_CROP_NUM_SPATIAL"));
  if (a.num_sample < 1)
    throw std::invalid_argument("AUG.NUM_SAMPLE: " + std::to_string(a.num_sample) +
                                " must be 1 or more");
  if (a.crop_num_spatial < 1)
    throw std::invalid_argument("DATA.TRAIN_CROP_NUM_SPATIAL: " +
                                std::to_string(a.crop_num_spatial) + " must be 1 or more");
  a.crop_num_temporal = static_cast<int>(c.getInt("DATA.TRAIN_CROP_NUM_TEMPORAL"));
  if (a.crop_num_temporal < 1)
    throw std::invalid_argument("DATA.TRAIN_CROP_NUM_TEMPORAL: " +
                                std::to_string(a.crop_num_temporal) + " must be 1 or more");
  a.delta_min = c.getFloat("CONTRASTIVE.DELTA_CLIPS_MIN");
  a.delta_max = c.getFloat("CONTRASTIVE.DELTA_CLIPS_MAX");

  const std::string aa = c.getString("AUG.AA_TYPE");
  a.rand_augment = a.enabled && !aa.empty();
  if (a.rand_augment) {
    std::string error;
    if (!parseRandAugment(aa, a.policy, &error)) throw std::invalid_argument(error);
  }
  // transform.py's _pil_interp: bicubic; lanczos and hamming, which Pillow's transform refuses;
  // anything else bilinear. "random" (or "") passes no interpolation: a random choice per frame.
  const std::string interp = c.getString("AUG.INTERPOLATION");
  if (interp == "bicubic")
    a.interpolation = AugInterpolation::Bicubic;
  else if (interp == "bilinear")
    a.interpolation = AugInterpolation::Bilinear;
  else if (interp == "random" || interp.empty())
    a.interpolation = AugInterpolation::Random;
  else if (a.rand_augment)
    throw std::invalid_argument("AUG.INTERPOLATION: '" + interp +
                                "' is not one RandAugment can use (" +
                                (interp == "lanczos" || interp == "hamming"
                                     ? std::string("Pillow's affine transform refuses it")
                                     : std::string("PySlowFast would quietly use bilinear")) +
                                "); write bicubic, bilinear or random");

  const double prob = c.getFloat("AUG.RE_PROB");
  a.erase = a.enabled && prob > 0;
  a.erasing.probability = prob;
  if (!parseEraseMode(c.getString("AUG.RE_MODE"), a.erasing.mode) && a.erase)
    throw std::invalid_argument("AUG.RE_MODE: '" + c.getString("AUG.RE_MODE") +
                                "' is not const, rand or pixel");
  const int count = static_cast<int>(c.getInt("AUG.RE_COUNT"));
  a.erasing.max_count = count;
  a.erasing.num_splits = count;  // kinetics.py passes num_splits=AUG.RE_COUNT
  return a;
}

}  // namespace amp::data
