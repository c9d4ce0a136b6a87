#include "data/PilOps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace amp::data {
namespace {

int clipIndex(int v, int size) {
  return v < 0 ? 0 : (v < size ? v : size - 1);
}

// Pillow's FLOOR macro: a cast for non-negative values, floor() below zero.
int pilFloor(double v) {
  return v < 0.0 ? static_cast<int>(std::floor(v)) : static_cast<int>(v);
}

std::uint8_t at(const RgbView& im, int y, int x, int band) {
  return im.data[(static_cast<std::size_t>(y) * im.width + x) * 3 + band];
}

// Pillow's bilinear filter for 8-bit multi-band images: rows outside the image repeat the
// previous row's value, columns are clamped, the result is truncated.
bool bilinearSample(const RgbView& im, double xin, double yin, std::uint8_t* out) {
  if (xin < 0.0 || xin >= im.width || yin < 0.0 || yin >= im.height) return false;
  xin -= 0.5;
  yin -= 0.5;
  const int x = pilFloor(xin), y = pilFloor(yin);
  const double dx = xin - x, dy = yin - y;
  const int x0 = clipIndex(x, im.width), x1 = clipIndex(x + 1, im.width),
            y0 = clipIndex(y, im.height);
  const bool nextRow = y + 1 >= 0 && y + 1 < im.height;
  for (int b = 0; b < 3; ++b) {
    const int a0 = at(im, y0, x0, b), a1 = at(im, y0, x1, b);
    double v1 = a0 + (a1 - a0) * dx;
    double v2 = v1;
    if (nextRow) {
      const int c0 = at(im, y + 1, x0, b), c1 = at(im, y + 1, x1, b);
      v2 = c0 + (c1 - c0) * dx;
    }
    v1 = v1 + (v2 - v1) * dy;
    out[b] = static_cast<std::uint8_t>(v1);
  }
  return true;
}

double cubic(int v1, int v2, int v3, int v4, double d) {
  const double p1 = v2;
  const double p2 = -v1 + v3;
  const double p3 = 2 * (v1 - v2) + v3 - v4;
  const double p4 = -v1 + v2 - v3 + v4;
  return p1 + d * (p2 + d * (p3 + d * p4));
}

// Pillow's bicubic filter for transforms (a = -1 cubic), clipped to 0..255 and truncated.
bool bicubicSample(const RgbView& im, double xin, double yin, std::uint8_t* out) {
  if (xin < 0.0 || xin >= im.width || yin < 0.0 || yin >= im.height) return false;
  xin -= 0.5;
  yin -= 0.5;
  int x = pilFloor(xin), y = pilFloor(yin);
  const double dx = xin - x, dy = yin - y;
  --x;
  --y;
  int xs[4];
  for (int i = 0; i < 4; ++i) xs[i] = clipIndex(x + i, im.width);
  for (int b = 0; b < 3; ++b) {
    double v[4];
    for (int r = 0; r < 4; ++r) {
      const int row = r == 0 ? clipIndex(y, im.height) : y + r;
      if (r > 0 && (row < 0 || row >= im.height)) {
        v[r] = v[r - 1];
        continue;
      }
      v[r] = cubic(at(im, row, xs[0], b), at(im, row, xs[1], b), at(im, row, xs[2], b),
                   at(im, row, xs[3], b), dx);
    }
    const double p1 = v[1], p2 = -v[0] + v[2], p3 = 2 * (v[0] - v[1]) + v[2] - v[3],
                 p4 = -v[0] + v[1] - v[2] + v[3];
    const double r = p1 + dy * (p2 + dy * (p3 + dy * p4));
    out[b] = r <= 0.0 ? 0 : (r >= 255.0 ? 255 : static_cast<std::uint8_t>(r));
  }
  return true;
}

// Python's round(x, 15): the decimal rounding of the exact binary value, read back.
double pyRound15(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.15f", x);
  return std::strtod(text, nullptr);
}

std::vector<std::uint8_t>& scratch(std::size_t bytes) {
  thread_local std::vector<std::uint8_t> buffer;
  buffer.resize(bytes);
  return buffer;
}

void histogram(const RgbView& img, unsigned long long h[3][256]) {
  std::memset(h, 0, sizeof(unsigned long long) * 3 * 256);
  const std::size_t n = img.bytes();
  for (std::size_t i = 0; i < n; i += 3)
    for (int b = 0; b < 3; ++b) ++h[b][img.data[i + static_cast<std::size_t>(b)]];
}

void pointPerBand(RgbView img, const std::uint8_t lut[3][256]) {
  const std::size_t n = img.bytes();
  for (std::size_t i = 0; i < n; i += 3)
    for (int b = 0; b < 3; ++b)
      img.data[i + static_cast<std::size_t>(b)] = lut[b][img.data[i + static_cast<std::size_t>(b)]];
}

}  // namespace

void pilAffine(RgbView img, const double a[6], PilFilter filter, std::uint8_t fill) {
  const std::size_t n = img.bytes();
  auto& src = scratch(n);
  std::memcpy(src.data(), img.data, n);
  const RgbView in{src.data(), img.height, img.width};
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const double xin = x + 0.5, yin = y + 0.5;
      const double sx = a[0] * xin + a[1] * yin + a[2];
      const double sy = a[3] * xin + a[4] * yin + a[5];
      std::uint8_t* out = img.data + (static_cast<std::size_t>(y) * img.width + x) * 3;
      const bool ok = filter == PilFilter::Bilinear ? bilinearSample(in, sx, sy, out)
                                                    : bicubicSample(in, sx, sy, out);
      if (!ok) out[0] = out[1] = out[2] = fill;
    }
  }
}

void pilRotateCoefficients(double degrees, int height, int width, double m[6]) {
  const double cx = width / 2.0, cy = height / 2.0;
  double mod = std::fmod(degrees, 360.0);  // Python's %: the sign of the divisor
  if (mod < 0) mod += 360.0;
  const double angle = -(mod * (M_PI / 180.0));  // -math.radians(angle)
  m[0] = pyRound15(std::cos(angle));
  m[1] = pyRound15(std::sin(angle));
  m[2] = 0.0;
  m[3] = pyRound15(-std::sin(angle));
  m[4] = pyRound15(std::cos(angle));
  m[5] = 0.0;
  const double tx = m[0] * -cx + m[1] * -cy + m[2];
  const double ty = m[3] * -cx + m[4] * -cy + m[5];
  m[2] = tx + cx;
  m[5] = ty + cy;
}

void pilRotate(RgbView img, double degrees, PilFilter filter, std::uint8_t fill) {
  double angle = std::fmod(degrees, 360.0);
  if (angle < 0) angle += 360.0;
  if (angle == 0) return;  // Image.rotate returns a copy
  double m[6];
  pilRotateCoefficients(degrees, img.height, img.width, m);
  pilAffine(img, m, filter, fill);
}

void pilPoint(RgbView img, const std::uint8_t lut[256]) {
  const std::size_t n = img.bytes();
  for (std::size_t i = 0; i < n; ++i) img.data[i] = lut[img.data[i]];
}

void pilInvert(RgbView img) {
  std::uint8_t lut[256];
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<std::uint8_t>(255 - i);
  pilPoint(img, lut);
}

void pilPosterize(RgbView img, int bits) {
  if (bits >= 8) return;
  const int mask = ~((1 << (8 - std::max(bits, 0))) - 1);
  std::uint8_t lut[256];
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<std::uint8_t>(i & mask);
  pilPoint(img, lut);
}

void pilSolarize(RgbView img, int threshold) {
  std::uint8_t lut[256];
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<std::uint8_t>(i < threshold ? i : 255 - i);
  pilPoint(img, lut);
}

void pilSolarizeAdd(RgbView img, int add, int threshold) {
  std::uint8_t lut[256];
  for (int i = 0; i < 256; ++i)
    lut[i] = static_cast<std::uint8_t>(i < threshold ? std::min(255, i + add) : i);
  pilPoint(img, lut);
}

void pilAutocontrast(RgbView img) {
  unsigned long long h[3][256];
  histogram(img, h);
  std::uint8_t lut[3][256];
  for (int b = 0; b < 3; ++b) {
    int lo = 0, hi = 255;
    while (lo < 255 && !h[b][lo]) ++lo;
    while (hi > 0 && !h[b][hi]) --hi;
    if (hi <= lo) {
      for (int i = 0; i < 256; ++i) lut[b][i] = static_cast<std::uint8_t>(i);
      continue;
    }
    const double scale = 255.0 / (hi - lo), offset = -lo * scale;
    for (int i = 0; i < 256; ++i) {
      const double v = std::trunc(i * scale + offset);  // int() truncates towards zero
      lut[b][i] = static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
    }
  }
  pointPerBand(img, lut);
}

void pilEqualize(RgbView img) {
  unsigned long long h[3][256];
  histogram(img, h);
  std::uint8_t lut[3][256];
  for (int b = 0; b < 3; ++b) {
    unsigned long long total = 0, last = 0;
    int nonzero = 0;
    for (int i = 0; i < 256; ++i)
      if (h[b][i]) {
        total += h[b][i];
        last = h[b][i];
        ++nonzero;
      }
    const unsigned long long step = nonzero <= 1 ? 0 : (total - last) / 255;
    if (!step) {
      for (int i = 0; i < 256; ++i) lut[b][i] = static_cast<std::uint8_t>(i);
      continue;
    }
    unsigned long long n = step / 2;
    for (int i = 0; i < 256; ++i) {
      lut[b][i] = static_cast<std::uint8_t>(std::min<unsigned long long>(n / step, 255));
      n += h[b][i];
    }
  }
  pointPerBand(img, lut);
}

void pilBlend(RgbView img, const std::uint8_t* degenerate, double factor) {
  const float alpha = static_cast<float>(factor);  // Pillow's ImagingBlend takes a C float
  const std::size_t n = img.bytes();
  if (alpha == 0.0f) {
    std::memcpy(img.data, degenerate, n);
    return;
  }
  if (alpha == 1.0f) return;
  if (alpha >= 0 && alpha <= 1.0f) {
    for (std::size_t i = 0; i < n; ++i) {
      const int d = degenerate[i];
      img.data[i] = static_cast<std::uint8_t>(static_cast<float>(d) +
                                              alpha * static_cast<float>(img.data[i] - d));
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const int d = degenerate[i];
    const float v = static_cast<float>(d) + alpha * static_cast<float>(img.data[i] - d);
    img.data[i] = v <= 0.0f ? 0 : (v >= 255.0f ? 255 : static_cast<std::uint8_t>(v));
  }
}

void pilColor(RgbView img, double factor) {
  const std::size_t n = img.bytes();
  auto& grey = scratch(n);
  for (std::size_t i = 0; i < n; i += 3)
    grey[i] = grey[i + 1] = grey[i + 2] = pilLuma(img.data + i);
  pilBlend(img, grey.data(), factor);
}

void pilContrast(RgbView img, double factor) {
  const std::size_t n = img.bytes();
  if (n == 0) return;
  double sum = 0;  // ImageStat: sum of level x count over the L histogram, then / count
  for (std::size_t i = 0; i < n; i += 3) sum += pilLuma(img.data + i);
  const double mean = sum / static_cast<double>(n / 3);
  const auto level = static_cast<std::uint8_t>(static_cast<int>(mean + 0.5));
  auto& degenerate = scratch(n);
  std::fill(degenerate.begin(), degenerate.end(), level);
  pilBlend(img, degenerate.data(), factor);
}

void pilBrightness(RgbView img, double factor) {
  auto& black = scratch(img.bytes());
  std::fill(black.begin(), black.end(), std::uint8_t{0});
  pilBlend(img, black.data(), factor);
}

void pilSharpness(RgbView img, double factor) {
  const std::size_t n = img.bytes();
  auto& smooth = scratch(n);
  std::memcpy(smooth.data(), img.data, n);  // borders stay as they are
  // ImageFilter.SMOOTH: (1 1 1 / 1 5 1 / 1 1 1) / 13 in float, rows y+1, y, y-1 summed in that
  // order onto 0.5 (Pillow's rounding), clipped and truncated.
  const float k1 = 1.0f / 13.0f, k5 = 5.0f / 13.0f;
  const int w = img.width;
  for (int y = 1; y + 1 < img.height; ++y) {
    const std::uint8_t* below = img.data + static_cast<std::size_t>(y + 1) * w * 3;
    const std::uint8_t* row = img.data + static_cast<std::size_t>(y) * w * 3;
    const std::uint8_t* above = img.data + static_cast<std::size_t>(y - 1) * w * 3;
    for (int x = 1; x + 1 < w; ++x) {
      for (int b = 0; b < 3; ++b) {
        const int i = x * 3 + b;
        float s = 0.5f;
        s += static_cast<float>(below[i - 3]) * k1 + static_cast<float>(below[i]) * k1 +
             static_cast<float>(below[i + 3]) * k1;
        s += static_cast<float>(row[i - 3]) * k1 + static_cast<float>(row[i]) * k5 +
             static_cast<float>(row[i + 3]) * k1;
        s += static_cast<float>(above[i - 3]) * k1 + static_cast<float>(above[i]) * k1 +
             static_cast<float>(above[i + 3]) * k1;
        smooth[static_cast<std::size_t>(y) * w * 3 + static_cast<std::size_t>(i)] =
            s <= 0.0f ? 0 : (s >= 255.0f ? 255 : static_cast<std::uint8_t>(s));
      }
    }
  }
  pilBlend(img, smooth.data(), factor);
}

}  // namespace amp::data
