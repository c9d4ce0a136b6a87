#include "data/AvaBoxOps.h"

#include <algorithm>
#include <cmath>

namespace amp::data {

void boxesToPixels(std::vector<PixelBox>& boxes, int height, int width) {
  for (PixelBox& b : boxes) {
    b[0] *= width;
    b[2] *= width;
    b[1] *= height;
    b[3] *= height;
  }
}

void clipBoxes(std::vector<PixelBox>& boxes, int height, int width) {
  // numpy's minimum(limit, maximum(0, v)); the limits are the last pixel's index, so a box at
  // the right edge ends on a pixel rather than past it.
  const double maxX = width - 1.0, maxY = height - 1.0;
  for (PixelBox& b : boxes) {
    b[0] = std::min(maxX, std::max(0.0, b[0]));
    b[2] = std::min(maxX, std::max(0.0, b[2]));
    b[1] = std::min(maxY, std::max(0.0, b[1]));
    b[3] = std::min(maxY, std::max(0.0, b[3]));
  }
}

std::array<int, 2> shortSideBoxSides(Size frame, int shortSide) {
  const Size scaled = scaleShortSide(frame, shortSide);
  if (scaled == frame) return {1, 1};
  // PySlowFast scales boxes by the side it computed (the long one), for x and y alike.
  return frame.width < frame.height ? std::array<int, 2>{scaled.height, frame.height}
                                    : std::array<int, 2>{scaled.width, frame.width};
}

double shortSideBoxFactor(Size frame, int shortSide) {
  const std::array<int, 2> sides = shortSideBoxSides(frame, shortSide);
  return static_cast<double>(sides[0]) / sides[1];
}

void scaleBoxes(std::vector<PixelBox>& boxes, double factor) {
  for (PixelBox& b : boxes)
    for (double& v : b) v *= factor;
}

void scaleBoxes(std::vector<PixelBox>& boxes, int newSide, int oldSide) {
  for (PixelBox& b : boxes)
    for (double& v : b) v = v * newSide / oldSide;
}

void cropBoxes(std::vector<PixelBox>& boxes, int x, int y) {
  for (PixelBox& b : boxes) {
    b[0] -= x;
    b[2] -= x;
    b[1] -= y;
    b[3] -= y;
  }
}

void flipBoxes(std::vector<PixelBox>& boxes, int width) {
  for (PixelBox& b : boxes) {
    const double x1 = b[0], x2 = b[2];
    b[0] = width - x2 - 1;
    b[2] = width - x1 - 1;
  }
}

}  // namespace amp::data
