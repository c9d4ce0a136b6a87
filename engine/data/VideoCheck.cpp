#include "data/VideoCheck.h"

#include <algorithm>

#include "data/JpegFrames.h"

namespace amp::data {

VideoCheck checkVideo(const std::string& path, bool wholeStream) {
  VideoCheck r;
  VideoDecoder d;
  std::string why;
  if (!d.open(path, &why)) {
    r.message = why;
    return r;
  }
  r.info = d.info();
  if (!wholeStream) {
    DecodedClip clip;
    if (!d.decode({0}, 0, 0, clip, &why)) {
      r.message = why.empty() ? path + ": no frame decodes" : why;
      return r;
    }
    r.ok = true;
    r.frames = 1;
    return r;
  }
  int corrupt = 0;
  r.frames = d.countFrames(&corrupt, &why);
  if (r.frames <= 0) {
    r.message = why;
    return r;
  }
  r.ok = true;
  if (corrupt > 0)
    r.message =
        path + ": warning: " + std::to_string(corrupt) + " damaged packet(s) skipped; decoded " +
        std::to_string(r.frames) + " frames" +
        (r.info.header_frames ? " of " + std::to_string(r.info.header_frames) + " claimed" : "");
  else if (r.info.header_frames && r.info.header_frames != r.frames)
    r.message = path + ": warning: the header claims " + std::to_string(r.info.header_frames) +
                " frames, " + std::to_string(r.frames) + " decode";
  return r;
}

VideoCheck checkFrames(const std::vector<std::string>& frames, bool wholeStream) {
  VideoCheck r;
  if (frames.empty()) {
    r.message = "no frames";
    return r;
  }
  std::vector<std::string> wanted = frames;
  if (!wholeStream) wanted = {frames.front(), frames[frames.size() / 2], frames.back()};
  // Chunks of frames, each decoded together as a clip is (a clip's frames must share a size, and
  // the first chunk's size is the folder's).
  constexpr std::size_t kChunk = 32;
  DecodedClip decoded;
  for (std::size_t at = 0; at < wanted.size(); at += kChunk - 1) {
    // Each chunk starts with the previous chunk's last frame, so sizes are compared across them.
    std::vector<std::string> chunk(
        wanted.begin() + static_cast<std::ptrdiff_t>(at),
        wanted.begin() + static_cast<std::ptrdiff_t>(std::min(wanted.size(), at + kChunk)));
    std::string why;
    if (!decodeJpegFrames(chunk, decoded, &why)) {
      r.message = why;
      return r;
    }
    if (at == 0) {
      r.info.path = frames.front();
      r.info.width = decoded.width;
      r.info.height = decoded.height;
      r.info.codec = "mjpeg";
    } else if (decoded.width != r.info.width || decoded.height != r.info.height) {
      r.message = chunk.front() + ": " + std::to_string(decoded.width) + "x" +
                  std::to_string(decoded.height) + ", but the folder's first frame is " +
                  std::to_string(r.info.width) + "x" + std::to_string(r.info.height) +
                  "; a clip's frames must share one size";
      return r;
    }
    r.frames += static_cast<std::int64_t>(chunk.size()) - (at == 0 ? 0 : 1);
    if (decoded.corrupt_packets > 0 && r.message.empty())
      r.message = chunk.front() + " ...: warning: " + std::to_string(decoded.corrupt_packets) +
                  " truncated frame(s) decoded in part (OpenCV reads them so too)";
    if (at + kChunk >= wanted.size()) break;
  }
  r.ok = true;
  return r;
}

}  // namespace amp::data
