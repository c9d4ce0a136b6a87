#pragma once
// Decodes the frames a clip needs from any video FFmpeg reads: seeks to the keyframe before the
// clip, decodes only the span it needs, and converts just the wanted frames to RGB at the wanted
// size in one swscale step. Frame positions come from timestamps, not from an assumed rate.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace amp::data {

struct VideoInfo {
  std::string path;
  std::string container;  ///< e.g. "mov,mp4,m4a,3gp,3g2,mj2"
  std::string codec;      ///< e.g. "h264"
  int width = 0;
  int height = 0;
  double fps = 0;         ///< average frame rate (what PySlowFast's clip span uses)
  double slot_fps = 0;    ///< rate that maps timestamps to frame indices: the stream's base
                          ///< rate when it agrees with the average within 5%, else the average
  double duration_s = 0;  ///< 0 when unknown
  std::int64_t duration_pts =
      0;  ///< the stream's own duration in its time base; 0 when it has none
  int timebase_num = 1, timebase_den = 0;  ///< the stream's time base
  std::int64_t start_pts = 0;      ///< the stream's first presentation time (0 when unknown)
  std::int64_t header_frames = 0;  ///< what the container claims; 0 when it does not say
  std::int64_t frames = 0;  ///< best estimate: header count, else duration x fps, else counted
  bool has_audio = false;
  bool constant_rate = false;  ///< the header's frame count matches duration x slot_fps
};

/// Frames as packed 24-bit pixels, frame after frame (T x H x W x 3): RGB from videos, BGR from
/// the JPEG frames of frame datasets (data/JpegFrames.h), as PySlowFast reads each.
struct DecodedClip {
  int height = 0;
  int width = 0;
  /// R, G, B per pixel from VideoDecoder; B, G, R from decodeJpegFrames, because PySlowFast's
  /// frame datasets keep cv2.imdecode's BGR order and never convert it.
  std::vector<std::uint8_t> rgb;
  std::vector<std::int64_t> indices;  ///< the source frame each output frame is (after clamping)
  std::vector<double> timestamps_s;   ///< presentation time of each output frame
  std::int64_t last_frame_seen = -1;  ///< highest frame index decoded (shows a short stream)
  int corrupt_packets = 0;            ///< packets the decoder rejected and skipped
  double decode_s = 0;                ///< time demuxing and decoding
  double convert_s = 0;               ///< time in swscale (resize + RGB conversion)
  std::uint8_t* frame(size_t i) { return rgb.data() + i * static_cast<size_t>(height) * width * 3; }
};

/// The largest frame decoded, declared or after scaling: 8K UHD. A 1 MB file can declare
/// 16384 x 16384 frames, and FFmpeg allocates what the header says before the first pixel; video
/// datasets (Kinetics, SSv2, Charades, AVA) are at most 1080p, cameras record up to 8K.
inline constexpr std::int64_t kMaxFramePixels = 7680 * 4320;
inline constexpr const char* kMaxFrameText = "7680x4320";

struct DecoderOptions {
  int threads = 1;                   ///< codec threads per decoder (0: FFmpeg picks)
  double timeout_s = 60;             ///< give up on one operation after this long (no hangs)
  bool skip_unneeded_frames = true;  ///< leave non-reference frames nobody wants undecoded
  /// Read timestamps as PyAV does (for scanAsPyAv): it opens every container with
  /// AVFMT_FLAG_GENPTS, so packets of containers that store only decoding times (AVI) get
  /// presentation times made up by the demuxer, and its frames carry those.
  bool pyav_timestamps = false;
};

/// The frames PySlowFast's pyav backend keeps of one stretch of a stream (decoder.py's
/// pyav_decode_stream), from VideoDecoder::scanAsPyAv: PySlowFast's frame list, in its order.
struct PyAvScan {
  std::vector<std::int64_t> pts;    ///< each kept frame's pts as PyAV reports it, ascending
  std::vector<std::int64_t> index;  ///< the same frame's position in the decoder's output order
  std::int64_t seek_ts = 0;         ///< where the scan seeked (decodeScanned decodes from there)
  std::int64_t first_index = 0;     ///< the index of the first frame decoded after that seek
  std::uint64_t id = 0;             ///< which scan of the decoder this is (whose frames it holds)
  int corrupt_packets = 0;          ///< packets the decoder rejected and skipped
  double decode_s = 0;              ///< time the scan took
};
/// scanAsPyAv's end for "to the end of the stream" (PySlowFast's math.inf).
inline constexpr std::int64_t kPyAvStreamEnd = INT64_MAX;

class VideoDecoder {
 public:
  explicit VideoDecoder(DecoderOptions options = {});
  ~VideoDecoder();
  VideoDecoder(const VideoDecoder&) = delete;
  VideoDecoder& operator=(const VideoDecoder&) = delete;

  /// Opens `path`; false with `error` naming the path and the reason.
  [[nodiscard]] bool open(const std::string& path, std::string* error);
  const VideoInfo& info() const { return info_; }

  /// Decodes the frames with the given indices (any order, repeats allowed) scaled to
  /// outHeight x outWidth (0 x 0: native size); `out`'s pixel buffer is reused when it has one.
  /// Indices past the real end of the stream get its last frame, as PySlowFast's clamping
  /// does. False with `error` when nothing decodes.
  [[nodiscard]] bool decode(const std::vector<std::int64_t>& indices, int outHeight, int outWidth,
                            DecodedClip& out, std::string* error);

  /// PySlowFast's pyav_decode_stream, timestamps as PyAV reads them (options.pyav_timestamps):
  /// seek to the keyframe at or before max(startPts - 1024, 0), decode, keep the frames whose pts
  /// lie in [startPts, endPts] and the first one past endPts (its loop stores that frame before it
  /// stops), ordered by pts; a later frame with the same pts replaces the earlier one. With a
  /// finite endPts the decoder holds the kept frames for decodeScanned. False with `error` when
  /// the seek fails or a frame has no pts (PyAV's frame.pts None makes PySlowFast's loop fail).
  [[nodiscard]] bool scanAsPyAv(std::int64_t startPts, std::int64_t endPts, PyAvScan& scan,
                                std::string* error);
  /// The frames at `positions` of a scan's list, scaled to outHeight x outWidth (0 x 0: native);
  /// `out.indices` are their indices. From the frames the scan held, else decoded again.
  [[nodiscard]] bool decodeScanned(const PyAvScan& scan, const std::vector<std::int64_t>& positions,
                                   int outHeight, int outWidth, DecodedClip& out,
                                   std::string* error);

  /// Decodes the whole stream once, counting frames (for checks; slow for long videos).
  std::int64_t countFrames(int* corruptPackets, std::string* error);

 private:
  struct State;
  bool fail(std::string* error, const std::string& why) const;
  bool prepareClip(std::size_t frames, int outHeight, int outWidth, DecodedClip& out,
                   std::string* error);
  DecoderOptions options_;
  VideoInfo info_;
  std::unique_ptr<State> s_;
};

/// Probes a file (open + stream info) without decoding.
[[nodiscard]] bool probeVideo(const std::string& path, VideoInfo& info, std::string* error);

}  // namespace amp::data
