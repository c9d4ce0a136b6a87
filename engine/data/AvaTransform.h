#pragma once
// One AVA clip and its boxes through PySlowFast's Ava._images_and_boxes_preprocessing_cv2 (the
// default AVA.IMG_PROC_BACKEND "cv2"): boxes to pixels and clipped; training scales the short
// side by a draw from [1/max, 1/min] (inverse uniform), crops at random and flips half the
// time; validation scales the short side to TEST_CROP_SIZE and takes the centre crop; test only
// scales it (the clip keeps the frame's aspect ratio); both flip when AVA.TEST_FORCE_FLIP.
// Frames are scaled with cv2's INTER_LINEAR (Cv2Resize.h), then /255, colour augmentation in
// training (AvaColor.h), DATA.MEAN / DATA.STD per stored channel, and B, G, R reversed to
// R, G, B unless AVA.BGR. Boxes end clipped to the clip.
//
//   AvaClip clip;
//   std::vector<PixelBox> boxes;  // keyframe.boxes[i].box, normalised
//   if (!transformAvaClip(AvaTransformParams::fromConfig(cfg), Split::Train, decoded, boxes,
//                         draws, clip, &error)) return fail(error);
//   // clip.pixels: 3 x T x clip.height x clip.width; clip.boxes in its pixels
#include <array>
#include <string>
#include <vector>

#include "data/AvaBoxOps.h"
#include "data/Dataset.h"
#include "data/Draws.h"
#include "data/VideoDecoder.h"

namespace amp::config {
class Config;
}

namespace amp::data {

/// The DATA.* and AVA.* settings of the AVA transform.
struct AvaTransformParams {
  int train_crop = 224, test_crop = 256;   ///< DATA.TRAIN_CROP_SIZE, DATA.TEST_CROP_SIZE
  int jitter_min = 256, jitter_max = 320;  ///< DATA.TRAIN_JITTER_SCALES
  bool random_flip = true;                 ///< DATA.RANDOM_FLIP (training)
  bool test_force_flip = false;            ///< AVA.TEST_FORCE_FLIP (val and test)
  bool color_augmentation = false;         ///< AVA.TRAIN_USE_COLOR_AUGMENTATION
  bool pca_jitter_only = true;             ///< AVA.TRAIN_PCA_JITTER_ONLY
  /// DATA.TRAIN_PCA_EIGVAL / EIGVEC (PySlowFast's AVA dataset reads the DATA keys).
  std::array<float, 3> pca_eigval{0.225f, 0.224f, 0.229f};
  std::array<std::array<float, 3>, 3> pca_eigvec{
      {{-0.5675f, 0.7192f, 0.4009f}, {-0.5808f, -0.0045f, -0.814f}, {-0.5836f, -0.6948f, 0.4203f}}};
  /// DATA.MEAN / DATA.STD, indexed by the stored channel (B, G, R), as PySlowFast applies them.
  std::array<float, 3> mean{0.45f, 0.45f, 0.45f}, std{0.225f, 0.225f, 0.225f};
  bool bgr = false;  ///< AVA.BGR: keep B, G, R; otherwise the channels are reversed to R, G, B

  static AvaTransformParams fromConfig(const config::Config& c);
};

/// A transformed clip and what was drawn for it.
struct AvaClip {
  std::vector<float> pixels;  ///< 3 x frames x height x width, normalised
  int frames = 0, height = 0, width = 0;
  std::vector<PixelBox> boxes;  ///< in the clip's pixels, clipped to it
  Size scaled;                  ///< frame size after the short-side scaling
  int crop_x = 0, crop_y = 0;   ///< the crop's top-left corner in the scaled frame
  bool flipped = false;
};

/// Transforms `frames` (T x H x W x 3, B, G, R as decodeJpegFrames gives them) and `boxes`
/// (x1, y1, x2, y2 normalised to [0, 1], as the box lists hold them) for `split`, drawing from
/// `draws` in PySlowFast's order: the training scale, the crop's y and x (each only when the
/// frame is larger that way), the flip (with DATA.RANDOM_FLIP), then the colour augmentation
/// (AvaColor.h). False with `error` when there are no frames or the scaled frames are smaller
/// than the training crop (PySlowFast's assertion).
[[nodiscard]] bool transformAvaClip(const AvaTransformParams& p, Split split,
                                    const DecodedClip& frames, std::vector<PixelBox> boxes,
                                    DrawSource& draws, AvaClip& out, std::string* error);

}  // namespace amp::data
