// VideoDecoder's decoding by PyAV's rules (scanAsPyAv, decodeScanned): PySlowFast's pyav backend
// picks a clip's frames by the timestamps PyAV reports while it decodes, and those are not always
// the frames' places in the stream. PyAV opens every file with AVFMT_FLAG_GENPTS (av/container/
// core.pyx), and in AVI, which stores no presentation times, FFmpeg then makes them up from the
// next packet's decoding time: MPEG-4 part 2 with B-frames numbers its frames from 1, H.264 with
// B-frames in decoding order (the stream's frames 0, 4, 2, 1, 3 get pts 1, 2, 3, 4, 5), so
// PySlowFast's pts-sorted list is in decoding order. Reproducing its choice therefore means
// decoding with those timestamps, not computing indices from the header.
#include "data/FfmpegLog.h"
#include "data/VideoDecoderState.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

namespace amp::data {
namespace {

using Clock = DecoderClock;

// pyav_decode_stream seeks this many pts before the clip ("seeking in the stream is imprecise").
constexpr std::int64_t kPyAvSeekMargin = 1024;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
}  // namespace

bool VideoDecoder::State::pyavLoop(std::int64_t ts,
                                   const std::function<bool(const AVFrame*)>& visit, int& corrupt,
                                   std::string& why) {
  if (av_seek_frame(fmt, stream, ts, AVSEEK_FLAG_BACKWARD) < 0) {
    const std::string& detail = lastFfmpegError();
    why = "cannot seek to pts " + std::to_string(ts) +
          (detail.empty() ? "" : " (FFmpeg: " + detail + ")") +
          "; PySlowFast's pyav decoding fails on it too";
    return false;
  }
  avcodec_flush_buffers(codec);
  codec->skip_frame = AVDISCARD_DEFAULT;  // PyAV decodes every frame
  bool eof = false;
  while (true) {
    if (expired()) {
      why = "decoding took too long";
      return false;
    }
    if (!eof) {
      if (av_read_frame(fmt, packet) < 0) {
        eof = true;
        avcodec_send_packet(codec, nullptr);  // flush: the decoder returns what it holds
      } else {
        if (packet->stream_index == stream &&
            avcodec_send_packet(codec, packet) == AVERROR_INVALIDDATA)
          ++corrupt;
        av_packet_unref(packet);
      }
    }
    while (true) {
      const int r = avcodec_receive_frame(codec, frame);
      if (r == AVERROR_EOF || (r < 0 && eof)) return true;
      if (r == AVERROR(EAGAIN)) break;
      if (r < 0) {
        ++corrupt;
        break;
      }
      const bool more = visit(frame);
      av_frame_unref(frame);
      if (!more) return true;
    }
  }
}

bool VideoDecoder::scanAsPyAv(std::int64_t startPts, std::int64_t endPts, PyAvScan& scan,
                              std::string* error) {
  if (!options_.pyav_timestamps)
    throw std::logic_error("scanAsPyAv needs a decoder opened with pyav_timestamps");
  if (!s_ || !s_->codec) return fail(error, "not open");
  clearLastFfmpegError();
  const auto start = Clock::now();
  s_->deadline = start + std::chrono::duration_cast<Clock::duration>(
                             std::chrono::duration<double>(options_.timeout_s));
  s_->releaseHeld();
  scan = PyAvScan{};
  scan.id = ++s_->scans;
  scan.seek_ts = std::max<std::int64_t>(startPts - kPyAvSeekMargin, 0);
  std::string why;
  // Frame indices count frames in output order: from 0 after a seek to the start; after a seek
  // into the stream, from where the first frame (a keyframe, whose made-up pts still follows the
  // display order) lies after the stream's first frame.
  if (scan.seek_ts > 0 && s_->firstPts == AV_NOPTS_VALUE &&
      !s_->pyavLoop(
          0,
          [&](const AVFrame* f) {
            s_->firstPts = f->pts;
            return false;
          },
          scan.corrupt_packets, why))
    return fail(error, why);

  struct Kept {
    std::int64_t ordinal = 0;
    AVFrame* frame = nullptr;
  };
  std::map<std::int64_t, Kept> kept;  // by pts: PySlowFast's dict, sorted
  struct Release {
    std::map<std::int64_t, Kept>& kept;
    ~Release() {
      for (auto& entry : kept) av_frame_free(&entry.second.frame);
    }
  } release{kept};
  const bool hold = endPts != kPyAvStreamEnd;  // a clip's stretch; the whole stream is not held
  std::int64_t ordinal = -1;
  bool noPts = false, noMemory = false;
  const bool ok = s_->pyavLoop(
      scan.seek_ts,
      [&](const AVFrame* f) {
        ++ordinal;
        if (f->pts == AV_NOPTS_VALUE) {
          noPts = true;
          return false;
        }
        if (ordinal == 0 && scan.seek_ts > 0 && s_->firstPts != AV_NOPTS_VALUE)
          scan.first_index = std::llround(static_cast<double>(f->pts - s_->firstPts) *
                                          av_q2d(s_->timeBase) * info_.slot_fps);
        if (f->pts < startPts) return true;
        Kept& k = kept[f->pts];  // a repeated pts replaces the frame, as a dict key does
        av_frame_free(&k.frame);
        k.ordinal = ordinal;
        if (hold && !(k.frame = av_frame_clone(f))) {
          noMemory = true;
          return false;
        }
        return f->pts <= endPts;  // the first frame past the end is kept, then the loop stops
      },
      scan.corrupt_packets, why);
  if (!ok) return fail(error, why);
  if (noPts)
    return fail(error,
                "a frame has no timestamp (PyAV's frame.pts is None, on which PySlowFast's pyav "
                "decoding fails)");
  if (noMemory) return fail(error, "out of memory holding the decoded frames");
  for (auto& [pts, k] : kept) {
    scan.pts.push_back(pts);
    scan.index.push_back(scan.first_index + k.ordinal);
    if (hold) s_->held.push_back(std::exchange(k.frame, nullptr));
  }
  if (hold) s_->heldScan = scan.id;
  scan.decode_s = secondsSince(start);
  return true;
}

bool VideoDecoder::decodeScanned(const PyAvScan& scan, const std::vector<std::int64_t>& positions,
                                 int outHeight, int outWidth, DecodedClip& out,
                                 std::string* error) {
  if (!prepareClip(positions.size(), outHeight, outWidth, out, error)) return false;
  const auto start = Clock::now();
  std::map<std::int64_t, std::vector<size_t>> wanted;  // list position -> output frames
  for (size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] < 0 || positions[i] >= static_cast<std::int64_t>(scan.pts.size()))
      throw std::out_of_range("decodeScanned: position " + std::to_string(positions[i]) +
                              " of a list of " + std::to_string(scan.pts.size()));
    wanted[positions[i]].push_back(i);
  }
  out.corrupt_packets = scan.corrupt_packets;
  auto put = [&](const AVFrame* f, std::int64_t position) {
    const auto convertStart = Clock::now();
    const std::vector<size_t>& to = wanted[position];
    if (!s_->toRgb(f, out, to[0])) return false;
    const auto index = scan.index[static_cast<size_t>(position)];
    for (size_t i : to) {
      if (i != to[0])
        std::copy_n(out.frame(to[0]), static_cast<size_t>(out.height) * out.width * 3,
                    out.frame(i));
      out.indices[i] = index;
      out.timestamps_s[i] = static_cast<double>(index) / info_.slot_fps;
    }
    out.convert_s += secondsSince(convertStart);
    return true;
  };
  bool converted = true;
  if (s_->heldScan == scan.id && s_->held.size() == scan.pts.size()) {
    for (const auto& entry : wanted)
      converted = converted && put(s_->held[static_cast<size_t>(entry.first)], entry.first);
  } else {
    // Not held (a scan to the stream's end): the same decode again, frames taken by their place
    // in the output order.
    std::map<std::int64_t, std::int64_t> byOrdinal;
    for (const auto& entry : wanted)
      byOrdinal[scan.index[static_cast<size_t>(entry.first)] - scan.first_index] = entry.first;
    std::int64_t ordinal = -1;
    std::string why;
    int corrupt = 0;
    if (!s_->pyavLoop(
            scan.seek_ts,
            [&](const AVFrame* f) {
              const auto it = byOrdinal.find(++ordinal);
              if (it != byOrdinal.end()) {
                converted = converted && put(f, it->second);
                byOrdinal.erase(it);
              }
              return converted && !byOrdinal.empty();
            },
            corrupt, why))
      return fail(error, why);
    if (converted && !byOrdinal.empty())
      return fail(error, "fewer frames than when it was scanned (a damaged file?)");
  }
  if (!converted) return fail(error, "cannot convert its pixel format to RGB");
  out.decode_s = scan.decode_s + secondsSince(start) - out.convert_s;
  return true;
}

}  // namespace amp::data
