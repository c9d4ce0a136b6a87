#pragma once
// One training (or frame-dataset test) clip from decoded frames in the order of PySlowFast's
// Kinetics __getitem__: RandAugment on the 8-bit frames, normalisation, spatial sampling (relative
// random resized crop, optionally with motion shift, or short-side jitter + random crop) with
// torch's bilinear resize, horizontal flip, random erasing. Used for every training clip when
// AUG.ENABLE, relative sampling or repeated augmentation is on; several copies share one decode.
#include <string>

#include "data/ClipSampler.h"

namespace amp::data {

/// Writes one augmented copy of `frames` (T x H x W x 3, as decoded) as C x T x crop x crop
/// floats into `out`, and what was drawn into `info` (region, scaled, box, flipped, augment_ops,
/// erased_boxes). False with `error` when the frames are too small for the crop.
[[nodiscard]] bool transformTrainCopy(const ClipParams& p, const DecodedClip& frames,
                                      const ClipDraws& draws, DrawSource& more, float* out,
                                      Clip& info, std::string* error);

/// One test view of frames that are decoded at their native size (the frame datasets): the short
/// side scaled to DATA.TEST_CROP_SIZE with torch's bilinear resize on the normalised frames, then
/// uniform crop `spatialIdx` (0, 1, 2: left/top, centre, right/bottom), no flip, as PySlowFast's
/// spatial_sampling with min = max = crop. Fills info's scaled, box, region.
[[nodiscard]] bool transformTestCopy(const ClipParams& p, const DecodedClip& frames, int spatialIdx,
                                     float* out, Clip& info, std::string* error);

}  // namespace amp::data
