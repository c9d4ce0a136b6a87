#pragma once
// One 256-colour palette for a whole animated GIF, and the frames mapped onto it: a GIF holds
// palette indices, not RGB, and FFmpeg's gif encoder takes PAL8 frames. The palette is a median
// cut of the clip's colours (the box of colours with the widest channel is split at its median
// until there are 256), so the few colours of a heat map or a label panel keep their own entries
// instead of a fixed 3-3-2 cube's banding. Each pixel then takes its nearest entry (looked up
// per 15-bit colour, so a clip costs one search per distinct colour). Torch-free.
//
//   data::GifPalette p = data::GifPalette::of(rgb.data(), pixels);   // T x H x W x 3 bytes
//   std::vector<std::uint8_t> indices = p.map(rgb.data(), pixels);
//   p.argb()   // 256 entries, 0xAARRGGBB, what an AV_PIX_FMT_PAL8 frame's data[1] holds
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace amp::data {

class GifPalette {
 public:
  static constexpr int kEntries = 256;
  /// The median-cut palette of `pixels` RGB triples (every pixel counts; unused entries black).
  static GifPalette of(const std::uint8_t* rgb, std::size_t pixels);
  /// Each pixel's nearest entry (squared RGB distance).
  std::vector<std::uint8_t> map(const std::uint8_t* rgb, std::size_t pixels) const;
  /// The entries as opaque 0xFFRRGGBB words.
  std::array<std::uint32_t, kEntries> argb() const;
  const std::array<std::uint8_t, 3>& entry(int i) const {
    return entries_.at(static_cast<std::size_t>(i));
  }

 private:
  std::array<std::array<std::uint8_t, 3>, kEntries> entries_{};
  int used_ = 0;
};

}  // namespace amp::data
