#include "data/Cv2Resize.h"

#include <cfloat>
#include <cmath>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace amp::data {
namespace {

// OpenCV's fixed-point weights: 11 fractional bits per pass, so a pixel is 22 bits after both.
constexpr int kCoefBits = 11;
constexpr int kCoefScale = 1 << kCoefBits;

// saturate_cast<short>(float): cvRound, which rounds halves to even.
int roundWeight(float w) {
  return static_cast<int>(std::nearbyint(w));
}

std::int16_t saturate16(int v) {
  return static_cast<std::int16_t>(std::clamp(v, -32768, 32767));
}

std::uint8_t saturate8(int v) {
  return static_cast<std::uint8_t>(std::clamp(v, 0, 255));
}

// One output byte of the vertical pass as OpenCV's SIMD code computes it (and, as its results
// show, every byte of a row): each row's sum loses 4 bits (v_pack of x >> 4), is multiplied by
// its weight keeping the high 16 bits (v_mul_hi), and the sum is rounded by its last 2 bits
// (v_rshr_pack_u<2>). Rounding once at full precision, as OpenCV's scalar code reads, is off by
// one on about one pixel in twenty.
std::uint8_t vertical(int s0, int s1, int b0, int b1) {
  const int m0 = (static_cast<int>(saturate16(s0 >> 4)) * b0) >> 16;
  const int m1 = (static_cast<int>(saturate16(s1 >> 4)) * b1) >> 16;
  return saturate8((saturate16(m0 + m1) + 2) >> 2);
}

// cv2's INTER_AREA fast path for an exact 2x reduction: the 2x2 block's mean, halves up.
void halve(const std::uint8_t* src, int srcWidth, int channels, std::uint8_t* dst, int dstHeight,
           int dstWidth) {
  const std::size_t srcRow = static_cast<std::size_t>(srcWidth) * channels;
  const std::size_t dstRow = static_cast<std::size_t>(dstWidth) * channels;
  for (int y = 0; y < dstHeight; ++y) {
    const std::uint8_t* a = src + 2 * static_cast<std::size_t>(y) * srcRow;
    const std::uint8_t* b = a + srcRow;
    std::uint8_t* d = dst + static_cast<std::size_t>(y) * dstRow;
    for (int x = 0; x < dstWidth; ++x)
      for (int c = 0; c < channels; ++c) {
        const std::size_t i = (2 * static_cast<std::size_t>(x)) * channels + c;
        d[static_cast<std::size_t>(x) * channels + c] =
            static_cast<std::uint8_t>((a[i] + a[i + channels] + b[i] + b[i + channels] + 2) >> 2);
      }
  }
}

// Source position and weights of one output column or row, as OpenCV's resize computes them:
// the centre mapped in double, kept in float, split into floor and fraction.
struct Tap {
  int index = 0;
  int w0 = 0, w1 = 0;
};

Tap tapFor(int out, double scale) {
  float f = static_cast<float>((out + 0.5) * scale - 0.5);
  const int index = static_cast<int>(std::floor(f));
  f -= static_cast<float>(index);
  return {index, roundWeight((1.0f - f) * kCoefScale), roundWeight(f * kCoefScale)};
}

}  // namespace

void cv2ResizeLinear(const std::uint8_t* src, int srcHeight, int srcWidth, int channels,
                     std::uint8_t* dst, int dstHeight, int dstWidth) {
  // OpenCV's scales: the inverse of dst / src, in double (not src / dst, which can differ in the
  // last bit and move a tap).
  const double scaleX = 1.0 / (static_cast<double>(dstWidth) / srcWidth);
  const double scaleY = 1.0 / (static_cast<double>(dstHeight) / srcHeight);
  const int iscaleX = static_cast<int>(std::nearbyint(scaleX));
  const int iscaleY = static_cast<int>(std::nearbyint(scaleY));
  if (iscaleX == 2 && iscaleY == 2 && std::abs(scaleX - iscaleX) < DBL_EPSILON &&
      std::abs(scaleY - iscaleY) < DBL_EPSILON) {
    halve(src, srcWidth, channels, dst, dstHeight, dstWidth);
    return;
  }

  // Columns: a tap left of the image reads column 0 at full weight; from the first tap whose
  // right neighbour is past the last column on, the last column at full weight (OpenCV's xmax).
  std::vector<Tap> cols(static_cast<std::size_t>(dstWidth));
  int fullFrom = dstWidth;
  for (int x = 0; x < dstWidth; ++x) {
    Tap t = tapFor(x, scaleX);
    if (t.index < 0) t = {0, kCoefScale, 0};
    if (t.index + 1 >= srcWidth) {
      fullFrom = std::min(fullFrom, x);
      t = {srcWidth - 1, kCoefScale, 0};
    }
    cols[static_cast<std::size_t>(x)] = t;
  }

  const int rowLength = dstWidth * channels;
  std::vector<int> rowA(static_cast<std::size_t>(rowLength)),
      rowB(static_cast<std::size_t>(rowLength));
  const std::size_t srcRow = static_cast<std::size_t>(srcWidth) * channels;
  auto horizontal = [&](int y, std::vector<int>& out) {
    const std::uint8_t* s = src + static_cast<std::size_t>(y) * srcRow;
    for (int x = 0; x < dstWidth; ++x) {
      const Tap& t = cols[static_cast<std::size_t>(x)];
      const std::size_t at = static_cast<std::size_t>(t.index) * channels;
      for (int c = 0; c < channels; ++c) {
        const int v =
            x < fullFrom ? s[at + c] * t.w0 + s[at + channels + c] * t.w1 : s[at + c] * kCoefScale;
        out[static_cast<std::size_t>(x) * channels + c] = v;
      }
    }
  };

  int haveA = -1, haveB = -1;  // the source rows rowA and rowB hold
  for (int y = 0; y < dstHeight; ++y) {
    // Rows: the weights keep their fraction; the two source rows are clamped into the image.
    const Tap t = tapFor(y, scaleY);
    const int y0 = std::clamp(t.index, 0, srcHeight - 1);
    const int y1 = std::clamp(t.index + 1, 0, srcHeight - 1);
    if (haveA != y0) {
      if (haveB == y0) {
        std::swap(rowA, rowB);
        std::swap(haveA, haveB);
      } else {
        horizontal(y0, rowA);
        haveA = y0;
      }
    }
    if (haveB != y1) {
      horizontal(y1, rowB);
      haveB = y1;
    }
    std::uint8_t* d = dst + static_cast<std::size_t>(y) * rowLength;
    for (int x = 0; x < rowLength; ++x)
      d[x] = vertical(rowA[static_cast<std::size_t>(x)], rowB[static_cast<std::size_t>(x)], t.w0,
                      t.w1);
  }
}

}  // namespace amp::data
