#include "data/GifEncoder.h"

#include <cstring>
#include <vector>

#include "data/FfmpegLog.h"
#include "data/GifPalette.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/mem.h>
}

namespace amp::data {
namespace {

// FFmpeg 7 made the write callback's buffer const.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
int appendToString(void* opaque, const std::uint8_t* buf, int size) {
#else
int appendToString(void* opaque, std::uint8_t* buf, int size) {
#endif
  static_cast<std::string*>(opaque)->append(reinterpret_cast<const char*>(buf),
                                            static_cast<std::size_t>(size));
  return size;
}

// Everything FFmpeg allocated for one GIF, freed in any order of failure.
struct GifState {
  AVFormatContext* fmt = nullptr;
  AVCodecContext* codec = nullptr;
  AVIOContext* io = nullptr;
  AVFrame* frame = av_frame_alloc();
  AVPacket* packet = av_packet_alloc();
  ~GifState() {
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&codec);
    if (io) {
      av_freep(&io->buffer);
      avio_context_free(&io);
    }
    if (fmt) {
      fmt->pb = nullptr;
      avformat_free_context(fmt);
    }
  }
};

}  // namespace

bool encodeGif(const std::uint8_t* rgb, int frames, int width, int height, int fps,
               std::string& gif, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "GIF: " + why;
    return false;
  };
  if (frames < 1 || width < 1 || height < 1 || width > 65535 || height > 65535)
    return fail("a clip of " + std::to_string(frames) + " frames of " + std::to_string(width) +
                "x" + std::to_string(height) + " pixels is none a GIF can hold");
  if (fps < 1 || fps > 100) return fail("fps " + std::to_string(fps) + " is outside 1 .. 100");
  installFfmpegLogHook();
  clearLastFfmpegError();
  const auto ffFail = [&](const char* step, int code) {
    const std::string detail = lastFfmpegError();
    return fail(std::string(step) + ": " + ffmpegErrorText(code) +
                (detail.empty() ? "" : " (" + detail + ")"));
  };
  gif.clear();
  GifState s;
  if (!s.frame || !s.packet) return fail("out of memory");
  const AVCodec* encoder = avcodec_find_encoder(AV_CODEC_ID_GIF);
  if (!encoder) return fail("this FFmpeg has no gif encoder");
  if (int rc = avformat_alloc_output_context2(&s.fmt, nullptr, "gif", nullptr); rc < 0 || !s.fmt)
    return ffFail("the gif muxer", rc < 0 ? rc : AVERROR_MUXER_NOT_FOUND);
  s.codec = avcodec_alloc_context3(encoder);
  if (!s.codec) return fail("out of memory");
  s.codec->width = width;
  s.codec->height = height;
  s.codec->pix_fmt = AV_PIX_FMT_PAL8;
  s.codec->time_base = AVRational{1, fps};
  s.codec->framerate = AVRational{fps, 1};
  if (int rc = avcodec_open2(s.codec, encoder, nullptr); rc < 0) return ffFail("gif encoder", rc);
  AVStream* stream = avformat_new_stream(s.fmt, nullptr);
  if (!stream) return fail("out of memory");
  stream->time_base = s.codec->time_base;
  if (int rc = avcodec_parameters_from_context(stream->codecpar, s.codec); rc < 0)
    return ffFail("stream parameters", rc);
  constexpr int kBuffer = 1 << 16;
  auto* buffer = static_cast<unsigned char*>(av_malloc(kBuffer));
  if (!buffer) return fail("out of memory");
  s.io = avio_alloc_context(buffer, kBuffer, 1, &gif, nullptr, appendToString, nullptr);
  if (!s.io) {
    av_free(buffer);
    return fail("out of memory");
  }
  s.fmt->pb = s.io;
  s.fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
  if (int rc = avformat_write_header(s.fmt, nullptr); rc < 0) return ffFail("GIF header", rc);

  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const GifPalette palette = GifPalette::of(rgb, pixels * static_cast<std::size_t>(frames));
  const auto argb = palette.argb();
  auto drain = [&]() -> int {
    for (;;) {
      const int rc = avcodec_receive_packet(s.codec, s.packet);
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return 0;
      if (rc < 0) return rc;
      s.packet->duration = 1;
      av_packet_rescale_ts(s.packet, s.codec->time_base, stream->time_base);
      s.packet->stream_index = stream->index;
      if (const int w = av_write_frame(s.fmt, s.packet); w < 0) return w;
      av_packet_unref(s.packet);
    }
  };
  for (int t = 0; t < frames; ++t) {
    av_frame_unref(s.frame);
    s.frame->format = AV_PIX_FMT_PAL8;
    s.frame->width = width;
    s.frame->height = height;
    if (int rc = av_frame_get_buffer(s.frame, 0); rc < 0) return ffFail("frame buffer", rc);
    const auto indices = palette.map(rgb + pixels * 3 * static_cast<std::size_t>(t), pixels);
    for (int y = 0; y < height; ++y)
      std::memcpy(s.frame->data[0] + static_cast<std::ptrdiff_t>(y) * s.frame->linesize[0],
                  indices.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(width),
                  static_cast<std::size_t>(width));
    std::memcpy(s.frame->data[1], argb.data(), sizeof(std::uint32_t) * argb.size());
    s.frame->pts = t;
    if (int rc = avcodec_send_frame(s.codec, s.frame); rc < 0) return ffFail("gif encoder", rc);
    if (int rc = drain(); rc < 0) return ffFail("gif encoder", rc);
  }
  if (int rc = avcodec_send_frame(s.codec, nullptr); rc < 0) return ffFail("gif encoder", rc);
  if (int rc = drain(); rc < 0) return ffFail("gif encoder", rc);
  if (int rc = av_write_trailer(s.fmt); rc < 0) return ffFail("GIF trailer", rc);
  avio_flush(s.io);
  return true;
}

}  // namespace amp::data
