#include "data/ImageWriter.h"

#include <algorithm>
#include <memory>

#include "data/FfmpegLog.h"
#include "util/AtomicFile.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
}

namespace amp::data {

bool encodePng(const std::uint8_t* rgb, int width, int height, std::string& png,
               std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "PNG: " + why;
    return false;
  };
  if (width <= 0 || height <= 0)
    return fail("empty image (" + std::to_string(width) + "x" + std::to_string(height) + ")");
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
  if (!codec) return fail("this FFmpeg has no PNG encoder");
  std::unique_ptr<AVCodecContext, void (*)(AVCodecContext*)> ctx(
      avcodec_alloc_context3(codec), [](AVCodecContext* c) { avcodec_free_context(&c); });
  std::unique_ptr<AVFrame, void (*)(AVFrame*)> frame(av_frame_alloc(),
                                                     [](AVFrame* f) { av_frame_free(&f); });
  std::unique_ptr<AVPacket, void (*)(AVPacket*)> packet(av_packet_alloc(),
                                                        [](AVPacket* p) { av_packet_free(&p); });
  if (!ctx || !frame || !packet) return fail("out of memory");
  ctx->width = width;
  ctx->height = height;
  ctx->pix_fmt = AV_PIX_FMT_RGB24;
  ctx->time_base = AVRational{1, 1};
  if (const int rc = avcodec_open2(ctx.get(), codec, nullptr); rc < 0)
    return fail(ffmpegErrorText(rc));
  frame->format = AV_PIX_FMT_RGB24;
  frame->width = width;
  frame->height = height;
  if (const int rc = av_frame_get_buffer(frame.get(), 0); rc < 0) return fail(ffmpegErrorText(rc));
  for (int y = 0; y < height; ++y)
    std::copy_n(rgb + static_cast<std::size_t>(y) * width * 3, static_cast<std::size_t>(width) * 3,
                frame->data[0] + static_cast<std::ptrdiff_t>(y) * frame->linesize[0]);
  if (const int rc = avcodec_send_frame(ctx.get(), frame.get()); rc < 0)
    return fail(ffmpegErrorText(rc));
  avcodec_send_frame(ctx.get(), nullptr);
  png.clear();
  while (true) {
    const int rc = avcodec_receive_packet(ctx.get(), packet.get());
    if (rc == AVERROR_EOF || rc == AVERROR(EAGAIN)) break;
    if (rc < 0) return fail(ffmpegErrorText(rc));
    png.append(reinterpret_cast<const char*>(packet->data), static_cast<std::size_t>(packet->size));
    av_packet_unref(packet.get());
  }
  if (png.empty()) return fail("the encoder gave no data");
  return true;
}

bool writePng(const std::string& path, const std::uint8_t* rgb, int width, int height,
              std::string* error) {
  std::string png;
  if (!encodePng(rgb, width, height, png, error)) {
    if (error) *error = path + ": " + *error;
    return false;
  }
  return util::writeFileAtomically(path, png, error);
}

}  // namespace amp::data
