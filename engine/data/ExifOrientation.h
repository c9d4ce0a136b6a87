#pragma once
// The EXIF orientation of a JPEG (a camera held sideways stores its pixels as the sensor saw them
// and says how to turn them), read and applied as OpenCV's imdecode does by default: PySlowFast
// decodes frames with cv2.imdecode(..., IMREAD_COLOR), which turns the pixels upright.
//
//   const int o = exifOrientation(app1.data(), app1.size());  // 1..8, 1 = as stored
//   orientPixels(decoded.data(), width, height, o, upright.data());
#include <cstddef>
#include <cstdint>

namespace amp::data {

/// The orientation tag (0x0112) of the first APP1 segment's payload `app1` (the bytes after the
/// segment's length: "Exif\0\0" then a TIFF header), as OpenCV's ExifReader reads it: the TIFF
/// data starts 6 bytes in, byte order "II" or "MM", the tag is looked up in IFD0 only. 1 (as
/// stored) when there is none, the data is damaged or the value is outside 1..8.
int exifOrientation(const std::uint8_t* app1, std::size_t size);

/// True when `orientation` (5..8) swaps the width and height.
inline bool orientationTransposes(int orientation) {
  return orientation >= 5 && orientation <= 8;
}

/// Writes `src`, `height` x `width` pixels of 3 bytes, turned by `orientation` into `dst`
/// (width x height for 5..8, else height x width), as OpenCV's ApplyExifOrientation: 2 mirrors
/// left-right, 3 turns 180 degrees, 4 mirrors top-bottom, 5 transposes, 6 turns 90 degrees
/// clockwise, 7 transposes across the other diagonal, 8 turns 90 degrees counter-clockwise.
/// `src` and `dst` must not overlap.
void orientPixels(const std::uint8_t* src, int width, int height, int orientation,
                  std::uint8_t* dst);

}  // namespace amp::data
