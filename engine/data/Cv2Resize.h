#pragma once
// OpenCV's cv2.resize(image, (w, h), interpolation=cv2.INTER_LINEAR) on 8-bit images, with its
// exact integer results: PySlowFast's AVA dataset (cv2_transform.py) scales its frames with it,
// so the pixels under a box match the ones the model saw there. OpenCV computes it in fixed point
// (11-bit weights per pass, and a vertical pass that drops bits in 16-bit SIMD lanes before it
// rounds), and an exact 2x reduction is its 2x2 average, as cv2 switches to INTER_AREA then.
// Checked byte for byte against OpenCV 4.6 (Debian 12's python3-opencv) on 400 random frames
// of 1 to 700 pixels a side, 1, 3 and 4 channels, up and down (tst_cv2resize keeps a few).
//
//   std::vector<std::uint8_t> out(std::size_t(newH) * newW * 3);
//   cv2ResizeLinear(frame, h, w, 3, out.data(), newH, newW);
#include <cstdint>

namespace amp::data {

/// Resizes `src` (srcHeight rows of srcWidth pixels of `channels` interleaved bytes) into `dst`
/// (dstHeight x dstWidth x channels) as cv2.resize with INTER_LINEAR. Sizes must be > 0.
void cv2ResizeLinear(const std::uint8_t* src, int srcHeight, int srcWidth, int channels,
                     std::uint8_t* dst, int dstHeight, int dstWidth);

}  // namespace amp::data
