#pragma once
// The Pillow (PIL) image operations PySlowFast's RandAugment calls, with Pillow's exact integer
// results on 8-bit RGB frames (packed H x W x 3): the affine transform with its inverse-mapping
// coefficients and its bilinear / bicubic filters, the ImageOps lookup-table operations and the
// ImageEnhance blends. Checked against Pillow 9.4 itself (tests/data/pil/).
#include <cstdint>
#include <vector>

namespace amp::data {

/// A view of one packed RGB24 frame.
struct RgbView {
  std::uint8_t* data = nullptr;
  int height = 0;
  int width = 0;
  std::size_t bytes() const { return static_cast<std::size_t>(height) * width * 3; }
};

/// Resampling filters of Image.transform that PySlowFast can reach (its AUG.INTERPOLATION maps
/// to bilinear or bicubic; nearest is never used).
enum class PilFilter { Bilinear, Bicubic };

/// Image.transform(size, AFFINE, (a, b, c, d, e, f), filter, fillcolor=fill): output pixel
/// (x, y) samples the input at (a x' + b y' + c, d x' + e y' + f) with x' = x + 0.5,
/// y' = y + 0.5; outside the input the fill colour stays.
void pilAffine(RgbView img, const double coeffs[6], PilFilter filter, std::uint8_t fill);

/// The coefficients Image.rotate(degrees) uses (centre of the frame, no expand): the inverse
/// rotation with cos/sin rounded to 15 decimals as Python's round() does.
void pilRotateCoefficients(double degrees, int height, int width, double out[6]);

/// Image.rotate(degrees, filter, fillcolor=fill): a copy for 0 (mod 360), else the affine above.
void pilRotate(RgbView img, double degrees, PilFilter filter, std::uint8_t fill);

/// Image.point with the same 256-entry table for each channel.
void pilPoint(RgbView img, const std::uint8_t lut[256]);

void pilInvert(RgbView img);                     ///< ImageOps.invert
void pilPosterize(RgbView img, int bitsToKeep);  ///< ImageOps.posterize (bits < 8)
void pilSolarize(RgbView img, int threshold);    ///< ImageOps.solarize: v >= threshold -> 255 - v
void pilSolarizeAdd(RgbView img, int add,
                    int threshold = 128);  ///< v < threshold -> min(255, v + add)
void pilAutocontrast(RgbView img);         ///< ImageOps.autocontrast(cutoff=0), per channel
void pilEqualize(RgbView img);             ///< ImageOps.equalize, per channel

/// Image.blend(degenerate, img, factor) in place, as Pillow computes it (float factor,
/// truncation, clipping when extrapolating).
void pilBlend(RgbView img, const std::uint8_t* degenerate, double factor);

void pilColor(RgbView img, double factor);       ///< ImageEnhance.Color
void pilContrast(RgbView img, double factor);    ///< ImageEnhance.Contrast
void pilBrightness(RgbView img, double factor);  ///< ImageEnhance.Brightness
void pilSharpness(RgbView img, double factor);   ///< ImageEnhance.Sharpness (SMOOTH kernel)

/// Pillow's RGB -> L conversion of one pixel (ITU-R 601-2 luma, fixed point).
inline std::uint8_t pilLuma(const std::uint8_t* rgb) {
  return static_cast<std::uint8_t>((rgb[0] * 19595 + rgb[1] * 38470 + rgb[2] * 7471 + 0x8000) >>
                                   16);
}

}  // namespace amp::data
