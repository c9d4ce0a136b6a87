#pragma once
// VideoDecoder's FFmpeg state, shared by its two source files: VideoDecoder.cpp (opening, decoding
// by frame index) and VideoDecoderPyAv.cpp (decoding by PyAV's timestamps).
#include "data/VideoDecoder.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
}

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace amp::data {

using DecoderClock = std::chrono::steady_clock;

struct VideoDecoder::State {
  AVFormatContext* fmt = nullptr;
  AVCodecContext* codec = nullptr;
  SwsContext* sws = nullptr;
  AVPacket* packet = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  AVFrame* last = av_frame_alloc();
  int stream = -1;
  AVRational timeBase{1, 1};
  double startSeconds = 0;
  DecoderClock::time_point deadline = DecoderClock::time_point::max();
  // scanAsPyAv: the pts PyAV gives the stream's first frame (found when a scan first needs it),
  // and the frames the last scan kept, in its list order.
  std::int64_t firstPts = AV_NOPTS_VALUE;
  std::vector<AVFrame*> held;
  std::uint64_t heldScan = 0, scans = 0;

  ~State() {
    releaseHeld();
    sws_freeContext(sws);
    av_frame_free(&last);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&codec);
    avformat_close_input(&fmt);
  }
  bool expired() const { return DecoderClock::now() > deadline; }
  static int interrupt(void* opaque) { return static_cast<State*>(opaque)->expired() ? 1 : 0; }

  // Presentation time in seconds from the stream start; NaN when the frame carries none.
  double seconds(const AVFrame* f) const {
    const int64_t ts =
        f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp : f->pts;
    if (ts == AV_NOPTS_VALUE) return std::nan("");
    return static_cast<double>(ts) * av_q2d(timeBase) - startSeconds;
  }

  void releaseHeld() {
    for (AVFrame*& f : held) av_frame_free(&f);
    held.clear();
  }

  // Converts `f` to RGB at out's size into output frame `position`.
  bool toRgb(const AVFrame* f, DecodedClip& out, size_t position) {
    sws = sws_getCachedContext(sws, f->width, f->height, static_cast<AVPixelFormat>(f->format),
                               out.width, out.height, AV_PIX_FMT_RGB24, SWS_BILINEAR, nullptr,
                               nullptr, nullptr);
    if (!sws) return false;
    uint8_t* dst[4] = {out.frame(position), nullptr, nullptr, nullptr};
    int dstStride[4] = {out.width * 3, 0, 0, 0};
    sws_scale(sws, f->data, f->linesize, 0, f->height, dst, dstStride);
    return true;
  }

  // PyAV's container.seek(ts, backward=True, any_frame=False, stream=video) and the loop over
  // container.decode(video=0) after it (VideoDecoderPyAv.cpp).
  bool pyavLoop(std::int64_t ts, const std::function<bool(const AVFrame*)>& visit, int& corrupt,
                std::string& why);

  // Seeks to the keyframe at or before `seconds` (from the stream start) and resets the decoder.
  bool seek(double secondsFromStart) {
    const auto ts =
        static_cast<int64_t>(std::floor((secondsFromStart + startSeconds) / av_q2d(timeBase)));
    const int r = av_seek_frame(fmt, stream, ts, AVSEEK_FLAG_BACKWARD);
    avcodec_flush_buffers(codec);
    return r >= 0;
  }
};

}  // namespace amp::data
