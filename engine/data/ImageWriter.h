#pragma once
// Still images for the clip preview's contact sheets: packed RGB24 encoded as PNG with libavcodec's
// PNG encoder (no image library beside FFmpeg), written atomically.
#include <cstdint>
#include <string>

namespace amp::data {

/// `rgb` (width x height x 3, rows top to bottom) as PNG bytes. False with `error` saying why.
[[nodiscard]] bool encodePng(const std::uint8_t* rgb, int width, int height, std::string& png,
                             std::string* error);
/// encodePng written to `path` atomically. False with `error` naming the path.
[[nodiscard]] bool writePng(const std::string& path, const std::uint8_t* rgb, int width, int height,
                            std::string* error);

}  // namespace amp::data
