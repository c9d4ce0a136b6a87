#pragma once
// What PySlowFast's cv2_transform.py does to AVA's boxes while it scales, crops and flips the
// frames under them: plain arithmetic on x1, y1, x2, y2 in pixels (float64, as numpy keeps them).
// AvaTransform applies them in Ava._images_and_boxes_preprocessing_cv2's order; tests check
// each against hand-computed boxes.
//
//   std::vector<PixelBox> boxes = {{0.1, 0.2, 0.5, 0.9}};
//   boxesToPixels(boxes, 240, 320);      // {32, 48, 160, 216}
//   clipBoxes(boxes, 240, 320);          // inside 0 .. 319 x 0 .. 239
//   flipBoxes(boxes, 320);               // {159, 48, 287, 216}
#include <array>
#include <vector>

#include "data/Sampling.h"

namespace amp::data {

/// x1, y1, x2, y2.
using PixelBox = std::array<double, 4>;

/// Normalised boxes to pixels: x times `width`, y times `height`.
void boxesToPixels(std::vector<PixelBox>& boxes, int height, int width);

/// clip_boxes_to_image: x into [0, width - 1], y into [0, height - 1].
void clipBoxes(std::vector<PixelBox>& boxes, int height, int width);

/// The side whose ratio scales every coordinate when the frame's short side goes to
/// `shortSide`: {new, old} length of the long side (the new one floored), as PySlowFast uses it
/// for x and y alike; {1, 1} when the short side is already there (the boxes stay as they are).
std::array<int, 2> shortSideBoxSides(Size frame, int shortSide);

/// shortSideBoxSides as one factor, new / old.
double shortSideBoxFactor(Size frame, int shortSide);

/// scale_boxes (validation and test): every coordinate times `factor`.
void scaleBoxes(std::vector<PixelBox>& boxes, double factor);

/// random_short_side_scale_jitter_list (training): every coordinate times `newSide`, then
/// divided by `oldSide`; in float64 this order can differ from times (new / old) in the last bit.
void scaleBoxes(std::vector<PixelBox>& boxes, int newSide, int oldSide);

/// crop_boxes: x minus `x`, y minus `y` (no clipping: that comes at the end).
void cropBoxes(std::vector<PixelBox>& boxes, int x, int y);

/// flip_boxes for a frame `width` pixels wide: x1' = width - x2 - 1, x2' = width - x1 - 1.
void flipBoxes(std::vector<PixelBox>& boxes, int width);

}  // namespace amp::data
