// Video decoding and encoding for builds without FFmpeg (-DAMPSTUDIO_WITH_FFMPEG=OFF, e.g. a GPU
// server that lacks FFmpeg's libraries): every call fails with a message that says so and points
// at what still works (random clips: bench precision --synthetic, bench step).
#include "data/FfmpegLog.h"
#include "data/GifEncoder.h"
#include "data/ImageWriter.h"
#include "data/JpegFrames.h"
#include "data/VideoDecoder.h"
#include "data/VideoWriter.h"

namespace amp::data {
namespace {
const char* kNoVideo =
    ": this build has no video decoding (AMPSTUDIO_WITH_FFMPEG=OFF); use random clips "
    "(ampstudio-cli bench precision --synthetic, bench step) or rebuild with FFmpeg";
}

struct VideoDecoder::State {};
VideoDecoder::VideoDecoder(DecoderOptions options) : options_(options) {}
VideoDecoder::~VideoDecoder() = default;
bool VideoDecoder::fail(std::string* error, const std::string& why) const {
  if (error) *error = why;
  return false;
}
bool VideoDecoder::open(const std::string& path, std::string* error) {
  return fail(error, path + kNoVideo);
}
bool VideoDecoder::decode(const std::vector<std::int64_t>&, int, int, DecodedClip&,
                          std::string* error) {
  return fail(error, std::string("decode") + kNoVideo);
}
bool VideoDecoder::scanAsPyAv(std::int64_t, std::int64_t, PyAvScan&, std::string* error) {
  return fail(error, std::string("scanAsPyAv") + kNoVideo);
}
bool VideoDecoder::decodeScanned(const PyAvScan&, const std::vector<std::int64_t>&, int, int,
                                 DecodedClip&, std::string* error) {
  return fail(error, std::string("decodeScanned") + kNoVideo);
}
std::int64_t VideoDecoder::countFrames(int*, std::string* error) {
  fail(error, std::string("countFrames") + kNoVideo);
  return -1;
}
bool probeVideo(const std::string& path, VideoInfo&, std::string* error) {
  if (error) *error = path + kNoVideo;
  return false;
}

struct VideoWriter::State {};
VideoWriter::VideoWriter() = default;
VideoWriter::~VideoWriter() = default;
bool VideoWriter::open(const std::string& path, const VideoWriterOptions&, std::string* error) {
  if (error) *error = path + kNoVideo;
  return false;
}
bool VideoWriter::write(const std::uint8_t*, std::string* error) {
  if (error) *error = std::string("write") + kNoVideo;
  return false;
}
bool VideoWriter::close(std::string*) {
  return true;
}
std::string VideoWriter::codecName() const {
  return "none";
}
bool VideoWriter::encode(bool, std::string*) {
  return false;
}

bool encodePng(const std::uint8_t*, int, int, std::string&, std::string* error) {
  if (error) *error = std::string("PNG") + kNoVideo;
  return false;
}
bool writePng(const std::string& path, const std::uint8_t*, int, int, std::string* error) {
  if (error) *error = path + kNoVideo;
  return false;
}
bool encodeGif(const std::uint8_t*, int, int, int, int, std::string&, std::string* error) {
  if (error)
    *error =
        "GIF: this build has no FFmpeg (AMPSTUDIO_WITH_FFMPEG=OFF), whose gif encoder writes "
        "TensorBoard's videos; rebuild with FFmpeg, or leave TENSORBOARD.MODEL_VIS.INPUT_VIDEO, "
        "GRAD_CAM.ENABLE and WRONG_PRED_VIS.ENABLE off";
  return false;
}

// Frame datasets' JPEGs are decoded with libjpeg, which is built in with FFmpeg (one switch for
// everything that decodes pixels).
namespace {
const char* kNoFrames =
    ": this build has no frame decoding (AMPSTUDIO_WITH_FFMPEG=OFF also leaves libjpeg out); "
    "rebuild with FFmpeg to read frame datasets (Charades, SSv2, AVA)";
}
bool decodeJpegFrames(const std::vector<std::string>& paths, DecodedClip&, std::string* error) {
  if (error) *error = (paths.empty() ? std::string("decodeJpegFrames") : paths[0]) + kNoFrames;
  return false;
}
bool encodeJpeg(const std::uint8_t*, int, int, JpegPixels, int, std::string&, std::string* error) {
  if (error) *error = std::string("JPEG") + kNoFrames;
  return false;
}
bool writeJpeg(const std::string& path, const std::uint8_t*, int, int, JpegPixels, int,
               std::string* error) {
  if (error) *error = path + kNoFrames;
  return false;
}

void installFfmpegLogHook() {}
const std::string& lastFfmpegError() {
  static const std::string none;
  return none;
}
void clearLastFfmpegError() {}
std::string ffmpegErrorText(int code) {
  return "FFmpeg error " + std::to_string(code) + " (no FFmpeg in this build)";
}

}  // namespace amp::data
