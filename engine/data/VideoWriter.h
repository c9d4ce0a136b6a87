#pragma once
// Encodes RGB frames into a video file with libavcodec (H.264 when FFmpeg has libx264, else
// MPEG-4 part 2), for the demo dataset and for test fixtures.
#include <cstdint>
#include <memory>
#include <string>

namespace amp::data {

struct VideoWriterOptions {
  int width = 0;   ///< even
  int height = 0;  ///< even
  int fps = 15;
  std::string codec = "auto";  ///< "auto" (libx264, else mpeg4), "libx264", "mpeg4"
  int quality = 20;            ///< libx264 CRF / mpeg4 qscale x 4 (lower is better)
};

class VideoWriter {
 public:
  VideoWriter();
  ~VideoWriter();
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  /// Creates `path` (the container follows the extension). False with `error` naming the path.
  [[nodiscard]] bool open(const std::string& path, const VideoWriterOptions& options,
                          std::string* error);
  /// Appends one packed RGB24 frame of width x height.
  [[nodiscard]] bool write(const std::uint8_t* rgb, std::string* error);
  /// Flushes the encoder and finishes the file.
  [[nodiscard]] bool close(std::string* error);
  /// The encoder in use, e.g. "libx264".
  std::string codecName() const;

 private:
  struct State;
  [[nodiscard]] bool encode(bool flush, std::string* error);
  std::unique_ptr<State> s_;
  std::string path_;
};

}  // namespace amp::data
