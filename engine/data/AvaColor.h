#pragma once
// The colour augmentation of PySlowFast's AVA training (cv2_transform.py color_jitter_list and
// lighting_list, with AVA.TRAIN_USE_COLOR_AUGMENTATION): on float frames in [0, 1], channels in
// the order the frames were decoded (B, G, R), one random draw per clip shared by its frames.
//
//   FloatClip clip{pixels.data(), T, H, W};  // C x T x H x W
//   if (!pcaOnly) avaColorJitter(clip, 0.4, 0.4, 0.4, draws);
//   avaLighting(clip, 0.1, eigval, eigvec, draws);
#include <array>

#include "data/Draws.h"

namespace amp::data {

/// A clip of float planes, C x T x H x W with C = 3 in B, G, R order.
struct FloatClip {
  float* data = nullptr;
  int frames = 0, height = 0, width = 0;
  float* plane(int c, int t) const {
    return data + (static_cast<std::size_t>(c) * frames + static_cast<std::size_t>(t)) *
                      static_cast<std::size_t>(height) * width;
  }
};

/// color_jitter_list: brightness, contrast and saturation (those with a ratio other than 0) in
/// a random order (numpy's permutation as a Fisher-Yates shuffle of the draws), each with
/// alpha = 1 + uniform(-ratio, ratio): brightness scales the pixels, contrast blends each frame
/// with the mean of its gray image, saturation with its gray image (0.299 R + 0.587 G + 0.114 B).
void avaColorJitter(const FloatClip& clip, double brightness, double contrast, double saturation,
                    DrawSource& draws);

/// lighting_list: AlexNet's PCA jitter. alpha ~ N(0, alphastd) three times; the RGB offset
/// rgb_i = sum_j eigvec[i][j] alpha_j eigval_j is added to channel c as rgb[2 - c] (the frames
/// are BGR). Nothing when alphastd is 0.
void avaLighting(const FloatClip& clip, double alphastd, const std::array<float, 3>& eigval,
                 const std::array<std::array<float, 3>, 3>& eigvec, DrawSource& draws);

}  // namespace amp::data
