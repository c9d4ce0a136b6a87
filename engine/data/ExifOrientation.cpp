#include "data/ExifOrientation.h"

#include <cstring>

namespace amp::data {
namespace {
constexpr std::uint16_t kOrientationTag = 0x0112;
constexpr std::size_t kTiffOffset = 6;  // "Exif\0\0"
constexpr std::size_t kEntryBytes = 12;
}  // namespace

int exifOrientation(const std::uint8_t* app1, std::size_t size) {
  if (!app1 || size <= kTiffOffset + 8) return 1;
  const std::uint8_t* tiff = app1 + kTiffOffset;
  const std::size_t n = size - kTiffOffset;
  bool little = false;
  if (tiff[0] == 'I' && tiff[1] == 'I')
    little = true;
  else if (!(tiff[0] == 'M' && tiff[1] == 'M'))
    return 1;
  auto u16 = [&](std::size_t at) -> std::uint32_t {
    return little ? tiff[at] | (tiff[at + 1] << 8) : (tiff[at] << 8) | tiff[at + 1];
  };
  auto u32 = [&](std::size_t at) -> std::uint64_t {
    return little ? (std::uint64_t(u16(at + 2)) << 16) | u16(at)
                  : (std::uint64_t(u16(at)) << 16) | u16(at + 2);
  };
  if (u16(2) != 0x002A) return 1;
  const std::uint64_t ifd = u32(4);
  if (ifd + 2 > n) return 1;
  const std::uint32_t entries = u16(static_cast<std::size_t>(ifd));
  // Entries past the end of the segment are not read: the ones before them still count, as in
  // OpenCV, whose reader stops at the first read out of bounds.
  for (std::uint64_t e = 0, at = ifd + 2; e < entries && at + kEntryBytes <= n;
       ++e, at += kEntryBytes) {
    if (u16(static_cast<std::size_t>(at)) != kOrientationTag) continue;
    const std::uint32_t value = u16(static_cast<std::size_t>(at + 8));
    return value >= 1 && value <= 8 ? static_cast<int>(value) : 1;
  }
  return 1;
}

void orientPixels(const std::uint8_t* src, int width, int height, int orientation,
                  std::uint8_t* dst) {
  const bool swap = orientationTransposes(orientation);
  const int outW = swap ? height : width, outH = swap ? width : height;
  for (int r = 0; r < outH; ++r) {
    for (int c = 0; c < outW; ++c) {
      int sr = r, sc = c;  // the source pixel of output (r, c)
      switch (orientation) {
        case 2:
          sc = width - 1 - c;
          break;
        case 3:
          sr = height - 1 - r;
          sc = width - 1 - c;
          break;
        case 4:
          sr = height - 1 - r;
          break;
        case 5:
          sr = c;
          sc = r;
          break;
        case 6:
          sr = height - 1 - c;
          sc = r;
          break;
        case 7:
          sr = height - 1 - c;
          sc = width - 1 - r;
          break;
        case 8:
          sr = c;
          sc = width - 1 - r;
          break;
        default:
          break;
      }
      std::memcpy(dst + (static_cast<std::size_t>(r) * outW + c) * 3,
                  src + (static_cast<std::size_t>(sr) * width + sc) * 3, 3);
    }
  }
}

}  // namespace amp::data
