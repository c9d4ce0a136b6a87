#include "data/VideoDecoder.h"

#include "data/FfmpegLog.h"
#include "data/VideoDecoderState.h"

extern "C" {
#include <libavutil/mem.h>
}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

namespace amp::data {
namespace {

using Clock = DecoderClock;

std::string avError(int code) {
  return ffmpegErrorText(code);
}

std::string withDetail(const std::string& msg) {
  const std::string& detail = lastFfmpegError();
  return detail.empty() ? msg : msg + " (FFmpeg: " + detail + ")";
}

}  // namespace

VideoDecoder::VideoDecoder(DecoderOptions options) : options_(options) {
  installFfmpegLogHook();
}
VideoDecoder::~VideoDecoder() = default;

bool VideoDecoder::fail(std::string* error, const std::string& why) const {
  if (error) *error = info_.path + ": " + why;
  return false;
}

namespace {
// FFmpeg allocates what a container declares: a 47 KB MKV declaring a 256 MB binary element made
// the demuxer allocate it (fuzz_video). Its own per-allocation cap, process-wide, set once: the
// largest legitimate buffer is a plane of an 8K 16-bit frame (66 MB); a larger request fails
// as ENOMEM and the video is refused by name.
constexpr std::size_t kMaxFfmpegAllocation = 192u << 20;
void capFfmpegAllocations() {
  static std::once_flag once;
  std::call_once(once, [] { av_max_alloc(kMaxFfmpegAllocation); });
}
}  // namespace

bool VideoDecoder::open(const std::string& path, std::string* error) {
  capFfmpegAllocations();
  info_ = VideoInfo{};
  info_.path = path;
  s_ = std::make_unique<State>();
  clearLastFfmpegError();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return fail(error, "file does not exist");
  if (std::filesystem::is_directory(path, ec)) return fail(error, "is a folder, not a video file");
  if (std::filesystem::file_size(path, ec) == 0) return fail(error, "file is empty (0 bytes)");

  s_->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options_.timeout_s));
  s_->fmt = avformat_alloc_context();
  s_->fmt->interrupt_callback = {&State::interrupt, s_.get()};
  if (options_.pyav_timestamps) s_->fmt->flags |= AVFMT_FLAG_GENPTS;
  int r = avformat_open_input(&s_->fmt, path.c_str(), nullptr, nullptr);
  if (r < 0) return fail(error, withDetail("not a readable video: " + avError(r)));
  // What the container declares, before any decoder runs (MKV and MP4 headers say it).
  for (unsigned i = 0; i < s_->fmt->nb_streams; ++i) {
    const AVCodecParameters* par = s_->fmt->streams[i]->codecpar;
    if (par->codec_type == AVMEDIA_TYPE_VIDEO &&
        static_cast<std::int64_t>(par->width) * par->height > kMaxFramePixels)
      return fail(error, "declares " + std::to_string(par->width) + "x" +
                             std::to_string(par->height) +
                             " frames, larger than AMP Studio decodes (" + kMaxFrameText +
                             " pixels); scale it down with ffmpeg -vf scale");
  }
  {
    // find_stream_info decodes a few frames of each stream (H.264, MJPEG): the same frame-size cap
    // for those decoders, so a stream whose size only its frames declare is refused there too.
    std::vector<AVDictionary*> opts(s_->fmt->nb_streams, nullptr);
    for (auto& o : opts) av_dict_set_int(&o, "max_pixels", kMaxFramePixels, 0);
    r = avformat_find_stream_info(s_->fmt, opts.empty() ? nullptr : opts.data());
    for (auto& o : opts) av_dict_free(&o);
  }
  if (r < 0) return fail(error, withDetail("cannot read its streams: " + avError(r)));

  const AVCodec* decoder = nullptr;
  s_->stream = av_find_best_stream(s_->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
  for (unsigned i = 0; i < s_->fmt->nb_streams; ++i)
    if (s_->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) info_.has_audio = true;
  if (s_->stream < 0 || !decoder)
    return fail(error, s_->stream == AVERROR_DECODER_NOT_FOUND
                           ? "no decoder for its video codec in this FFmpeg"
                       : info_.has_audio ? "has no video stream (audio only)"
                                         : "has no video stream");
  AVStream* st = s_->fmt->streams[s_->stream];
  s_->timeBase = st->time_base;
  s_->startSeconds = st->start_time != AV_NOPTS_VALUE
                         ? static_cast<double>(st->start_time) * av_q2d(st->time_base)
                         : 0.0;

  s_->codec = avcodec_alloc_context3(decoder);
  avcodec_parameters_to_context(s_->codec, st->codecpar);
  s_->codec->max_pixels = kMaxFramePixels;  // also for frames whose size changes mid-stream
  s_->codec->thread_count = std::max(0, options_.threads);
  s_->codec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
  r = avcodec_open2(s_->codec, decoder, nullptr);
  if (r < 0)
    return fail(error, withDetail("cannot open its " + std::string(decoder->name) +
                                  " decoder: " + avError(r)));

  info_.container = s_->fmt->iformat ? s_->fmt->iformat->name : "";
  info_.codec = decoder->name;
  info_.width = st->codecpar->width;
  info_.height = st->codecpar->height;
  if (info_.width <= 0 || info_.height <= 0)
    return fail(error, std::string("video stream has no frame size (or frames larger than ") +
                           kMaxFrameText + " pixels)");
  if (static_cast<std::int64_t>(info_.width) * info_.height >
      kMaxFramePixels)  // before any frame is allocated
    return fail(error, "declares " + std::to_string(info_.width) + "x" +
                           std::to_string(info_.height) +
                           " frames, larger than AMP Studio decodes (" + kMaxFrameText +
                           " pixels); scale it down with ffmpeg -vf scale");
  AVRational rate = st->avg_frame_rate;
  if (rate.num <= 0 || rate.den <= 0) rate = st->r_frame_rate;
  info_.fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0.0;
  if (!(info_.fps > 0 && info_.fps < 1000))
    return fail(error, "video stream has no usable frame rate");
  // Muxers often leave the last frame out of the duration (avg 720/47 for 48 frames at 15 fps);
  // the base rate is then the exact one. A real variable-rate stream keeps its average.
  const AVRational base = st->r_frame_rate;
  const double baseFps = base.num > 0 && base.den > 0 ? av_q2d(base) : 0.0;
  info_.slot_fps =
      baseFps > 0 && std::abs(baseFps - info_.fps) <= 0.05 * baseFps ? baseFps : info_.fps;
  info_.timebase_num = st->time_base.num;
  info_.timebase_den = st->time_base.den;
  info_.start_pts = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
  if (st->duration != AV_NOPTS_VALUE && st->duration > 0) info_.duration_pts = st->duration;
  if (st->duration != AV_NOPTS_VALUE)
    info_.duration_s = static_cast<double>(st->duration) * av_q2d(st->time_base);
  else if (s_->fmt->duration != AV_NOPTS_VALUE)
    info_.duration_s = static_cast<double>(s_->fmt->duration) / AV_TIME_BASE;
  info_.header_frames = st->nb_frames > 0 ? st->nb_frames : 0;
  info_.frames =
      info_.header_frames > 0 ? info_.header_frames : std::llround(info_.duration_s * info_.fps);
  // A frame count that matches duration x rate: every slot has its frame.
  info_.constant_rate =
      info_.header_frames > 0 && info_.duration_s > 0 &&
      std::abs(static_cast<double>(info_.header_frames) - info_.duration_s * info_.slot_fps) <= 1.0;
  return true;
}

// Starts a decode: the deadline, and `out` sized for `frames` frames.
bool VideoDecoder::prepareClip(std::size_t frames, int outHeight, int outWidth, DecodedClip& out,
                               std::string* error) {
  if (!s_ || !s_->codec) return fail(error, "not open");
  clearLastFfmpegError();
  s_->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options_.timeout_s));
  // Reuse the caller's buffers: every output pixel is written below, so no clearing (fresh
  // multi-megabyte allocations cost page faults and a memset per clip).
  std::vector<std::uint8_t> rgb = std::move(out.rgb);
  out = DecodedClip{};
  out.height = outHeight > 0 ? outHeight : info_.height;
  out.width = outWidth > 0 ? outWidth : info_.width;
  // A sliver (4000x2 scaled to a short side of 256) would be 512,000 pixels wide.
  if (static_cast<std::int64_t>(out.height) * out.width > kMaxFramePixels)
    return fail(error, "its " + std::to_string(info_.width) + "x" + std::to_string(info_.height) +
                           " frames would be " + std::to_string(out.width) + "x" +
                           std::to_string(out.height) +
                           " after scaling, larger than AMP Studio decodes (" + kMaxFrameText +
                           " pixels); check its aspect ratio");
  out.indices.assign(frames, 0);
  out.timestamps_s.assign(frames, 0.0);
  out.rgb = std::move(rgb);
  out.rgb.resize(frames * static_cast<size_t>(out.height) * out.width * 3);
  return true;
}

bool VideoDecoder::decode(const std::vector<std::int64_t>& indices, int outHeight, int outWidth,
                          DecodedClip& out, std::string* error) {
  if (!prepareClip(indices.size(), outHeight, outWidth, out, error)) return false;
  out.indices.assign(indices.begin(), indices.end());
  if (indices.empty()) return true;

  // wanted frame index -> output positions, visited in increasing order
  std::map<std::int64_t, std::vector<size_t>> wanted;
  for (size_t i = 0; i < indices.size(); ++i)
    wanted[std::max<std::int64_t>(indices[i], 0)].push_back(i);
  const std::int64_t first = wanted.begin()->first;
  const double frameSeconds = 1.0 / info_.slot_fps;

  const auto decodeStart = Clock::now();
  struct Totals {  // splits the time between swscale and the rest when the call returns
    DecodedClip& out;
    Clock::time_point start;
    ~Totals() {
      out.decode_s = std::chrono::duration<double>(Clock::now() - start).count() - out.convert_s;
    }
  } totals{out, decodeStart};
  auto convert = [&](const AVFrame* f, std::int64_t index, const std::vector<size_t>& positions) {
    const auto convertStart = Clock::now();
    if (!s_->toRgb(f, out, positions[0])) return false;
    const double t = s_->seconds(f);
    for (size_t p : positions) {
      if (p != positions[0])
        std::memcpy(out.frame(p), out.frame(positions[0]),
                    static_cast<size_t>(out.height) * out.width * 3);
      out.indices[p] = index;
      out.timestamps_s[p] = std::isnan(t) ? static_cast<double>(index) * frameSeconds : t;
    }
    out.convert_s += std::chrono::duration<double>(Clock::now() - convertStart).count();
    return true;
  };

  // A packet can be left undecoded (when it is not a reference frame) if its frame is not wanted.
  // With a constant rate every slot has its frame, so "not wanted" is exact; with a variable
  // rate an empty wanted slot is served by the next frame, so only the run-up before the
  // first wanted frame is skipped there. Timestamps a demuxer made up (pyav_timestamps) may be in
  // decoding order: no skipping by them.
  const bool constantRate = info_.constant_rate;
  const auto lastWanted = wanted.rbegin()->first;
  auto skipPacket = [&](const AVPacket* pkt) {
    if (!options_.skip_unneeded_frames || options_.pyav_timestamps || s_->codec->thread_count > 1 ||
        pkt->pts == AV_NOPTS_VALUE || (pkt->flags & AV_PKT_FLAG_KEY))
      return false;
    const double t = static_cast<double>(pkt->pts) * av_q2d(s_->timeBase) - s_->startSeconds;
    const std::int64_t index = std::llround(t * info_.slot_fps);
    if (index < first) return true;
    return constantRate && index <= lastWanted && !wanted.count(index);
  };

  // Start at the keyframe before the first wanted frame; decode from the start if that fails
  // or lands after it (broken index).
  bool fromStart = first * frameSeconds < 1.0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!(fromStart ? s_->seek(0.0) : s_->seek(first * frameSeconds - 0.5 * frameSeconds))) {
      // Some files cannot seek: decode from the start, reopening if we are not there.
      fromStart = true;
      if (!s_->seek(0.0)) {
        const std::string path = info_.path;
        if (!open(path, error)) return false;
      }
    }
    auto next = wanted.begin();
    std::int64_t sequential = -1;
    bool gotFrame = false, overshot = false, eof = false, drained = false;
    av_frame_unref(s_->last);
    while (next != wanted.end() && !overshot && !drained) {
      if (s_->expired())
        return fail(error,
                    "decoding took longer than " + std::to_string(options_.timeout_s) + " s");
      if (!eof) {
        const int r = av_read_frame(s_->fmt, s_->packet);
        if (r < 0) {
          eof = true;
          avcodec_send_packet(s_->codec, nullptr);  // flush: the decoder returns what it holds
        } else {
          if (s_->packet->stream_index == s_->stream) {
            // Frames nobody asked for that no other frame refers to need not be decoded at all.
            s_->codec->skip_frame = skipPacket(s_->packet) ? AVDISCARD_NONREF : AVDISCARD_DEFAULT;
            if (avcodec_send_packet(s_->codec, s_->packet) == AVERROR_INVALIDDATA)
              ++out.corrupt_packets;
          }
          av_packet_unref(s_->packet);
        }
      }
      while (next != wanted.end()) {
        const int r = avcodec_receive_frame(s_->codec, s_->frame);
        if (r == AVERROR(EAGAIN)) {
          drained = eof;  // after the flush nothing more will come
          break;
        }
        if (r < 0) {
          if (r != AVERROR_EOF) ++out.corrupt_packets;
          drained = eof || r == AVERROR_EOF;
          break;
        }
        ++sequential;
        const double t = s_->seconds(s_->frame);
        const std::int64_t index = std::isnan(t) ? sequential : std::llround(t * info_.slot_fps);
        if (!gotFrame && !fromStart && index > first) {
          overshot = true;  // the seek went past the clip: start over from the beginning
          av_frame_unref(s_->frame);
          break;
        }
        gotFrame = true;
        out.last_frame_seen = std::max(out.last_frame_seen, index);
        // This frame serves every wanted index up to its own (frames missing from a variable-rate
        // stream are filled by the next one that exists).
        while (next != wanted.end() && next->first <= index) {
          if (!convert(s_->frame, index, next->second))
            return fail(error, "cannot convert its pixel format to RGB");
          ++next;
        }
        av_frame_unref(s_->last);
        av_frame_move_ref(s_->last, s_->frame);
      }
    }
    if (!overshot && next != wanted.end()) {
      // The stream ended before the wanted frames: use its last frame, as PySlowFast's clamping
      // does.
      if (!gotFrame) return fail(error, withDetail("no frame could be decoded"));
      for (; next != wanted.end(); ++next)
        if (!convert(s_->last, out.last_frame_seen, next->second))
          return fail(error, "cannot convert its pixel format to RGB");
    }
    if (!overshot) return true;
    fromStart = true;
  }
  return fail(error, "cannot seek in this file");
}

std::int64_t VideoDecoder::countFrames(int* corruptPackets, std::string* error) {
  if (!s_ || !s_->codec) {
    fail(error, "not open");
    return -1;
  }
  clearLastFfmpegError();
  s_->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options_.timeout_s));
  s_->seek(0.0);
  std::int64_t frames = 0;
  int corrupt = 0;
  bool eof = false;
  while (true) {
    if (s_->expired()) {
      fail(error, "counting frames took longer than " + std::to_string(options_.timeout_s) + " s");
      return -1;
    }
    if (!eof) {
      const int r = av_read_frame(s_->fmt, s_->packet);
      if (r < 0) {
        eof = true;
        avcodec_send_packet(s_->codec, nullptr);
      } else {
        if (s_->packet->stream_index == s_->stream &&
            avcodec_send_packet(s_->codec, s_->packet) == AVERROR_INVALIDDATA)
          ++corrupt;
        av_packet_unref(s_->packet);
      }
    }
    int r;
    while ((r = avcodec_receive_frame(s_->codec, s_->frame)) >= 0) {
      ++frames;
      av_frame_unref(s_->frame);
    }
    if (r == AVERROR_EOF) break;
    if (r != AVERROR(EAGAIN)) ++corrupt;
  }
  if (corruptPackets) *corruptPackets = corrupt;
  if (frames == 0) fail(error, withDetail("no frame could be decoded"));
  return frames;
}

bool probeVideo(const std::string& path, VideoInfo& info, std::string* error) {
  VideoDecoder d;
  if (!d.open(path, error)) return false;
  info = d.info();
  return true;
}

}  // namespace amp::data
