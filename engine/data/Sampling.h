#pragma once
// PySlowFast's temporal and spatial sampling (slowfast/datasets/decoder.py, transform.py) as
// pure functions. Random draws come in as numbers in [0, 1), so the same draws give the same
// frame indices and crop boxes as PySlowFast, and tests can feed hand-chosen draws.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace amp::data {

/// torch.linspace(start, end, steps) in its default dtype, float32, computed as PyTorch does.
std::vector<float> torchLinspace(double start, double end, int steps);

/// Frames of the source video one clip spans: max(1, SAMPLING_RATE * NUM_FRAMES / TARGET_FPS *
/// fps).
double clipSpanFrames(int samplingRate, int numFrames, double targetFps, double videoFps);

/// PySlowFast's two decoders (DATA.DECODING_BACKEND); each picks a clip's frames its own way.
enum class DecodingBackend { TorchVision, PyAv };
/// "torchvision" or "pyav"; anything else gives TorchVision and false.
bool decodingBackendFromName(const std::string& name, DecodingBackend& out);

/// A video stream's timing as PySlowFast's decoders see it. Frame i is presented at
/// pts(i) = start_pts + round(i / (slot_fps x timebase)).
struct StreamTiming {
  double fps = 0;         ///< average frame rate (torchvision's video_fps, PyAV's average_rate)
  double slot_fps = 0;    ///< the rate that places frames on the time line
  double duration_s = 0;  ///< stream duration in seconds (torchvision's video_duration); 0: unknown
  std::int64_t duration_pts =
      0;  ///< the stream's own duration in its time base (PyAV's); 0: unknown
  std::int64_t header_frames =
      0;                    ///< the container's frame count (PyAV's stream.frames); 0: unknown
  std::int64_t frames = 0;  ///< frames the stream really holds (header, estimate or counted)
  int timebase_num = 1, timebase_den = 0;
  std::int64_t start_pts = 0;
  std::int64_t pts(std::int64_t frame) const;
};

/// What PySlowFast's decode() draws a clip's start over. Selective decoding (`trimmed`) keeps the
/// frames whose pts lie in the clip's pts range and samples `sample_size` frames' worth of them
/// from the first; otherwise the whole video is decoded and the clip is cut from all its frames.
struct TemporalPlan {
  bool trimmed = false;
  double video_size = 0;  ///< what the start is drawn over (get_start_end_idx's video_size)
  double clip_size = 0;   ///< the span the start is drawn for
  double sample_size =
      0;  ///< decode()'s clip size: the span of the linspace inside the kept frames
};

/// torchvision: selective when the duration is known and fps x duration > NUM_FRAMES x
/// SAMPLING_RATE; the start over fps x duration for max(1, rate T / target x fps) frames.
/// pyav: selective when the stream has a duration and a frame count; the start over the frame
/// count for max(1, ceil(rate (T - 1) / target x fps)) frames. Otherwise both decode everything:
/// the start over the frame count for max(1, rate T / target x fps) frames.
TemporalPlan temporalPlan(DecodingBackend backend, const StreamTiming& s, int samplingRate,
                          int numFrames, double targetFps);

/// The source frames of one clip as PySlowFast's torchvision backend picks them, for a clip whose
/// start (a real frame position, from clipStart over the plan's video_size and clip_size) is
/// `start`: trimmed, the kept frames are those with pts in [int(start x ppf), int(end x ppf)]
/// (ppf = timebase denominator / fps) and the clip takes first + trunc(linspace(0, sample_size -
/// 1, T)) clamped to the kept ones: for a fractional start that is ceil(start) + trunc(offset), not
/// trunc(start + offset). Untrimmed (or when no frame falls in the range): clipFrameIndices.
/// (pyav picks by the timestamps PyAV reports while decoding: pyavPtsRange and
/// VideoDecoder::scanAsPyAv.)
std::vector<std::int64_t> torchvisionFrameIndices(const StreamTiming& s, const TemporalPlan& plan,
                                                  double start, int numFrames);

/// A clip's pts range in PySlowFast's pyav_decode for a trimmed plan (temporalPlan with
/// DecodingBackend::PyAv): [int(start x ppf), int((start + clip_size - 1) x ppf)] with ppf = the
/// stream's duration / its header's frame count. Its frames, ordered by pts, are the list the clip
/// samples clipFrameIndices(0, sample_size, T, list size) from.
struct PtsRange {
  std::int64_t start_pts = 0;
  std::int64_t end_pts = 0;
};
PtsRange pyavPtsRange(const StreamTiming& s, const TemporalPlan& plan, double start);

/// Start frame (a real number) of a clip, as PySlowFast's get_start_end_idx:
/// `clipIdx` -1 draws uniformly in [0, delta] from `u`; otherwise view clipIdx of numClips,
/// `delta * clipIdx / numClips`, or with useOffset spread from 0 to delta (centre for one view).
double clipStart(double videoFrames, double clipSize, int clipIdx, int numClips, bool useOffset,
                 double u);

/// The starts of `windows` random clips of clipSize frames from one video (decoder.py's
/// get_multiple_start_end_idx with clip_idx -1, DATA.TRAIN_CROP_NUM_TEMPORAL): each start is
/// uniform in [0, videoFrames - clipSize] from draw(k), window k's next uniform number. The gaps
/// between the windows in time order (a start minus the previous window's last frame) must lie
/// in [deltaMin, deltaMax]: a window is drawn again up to 100 times until they do, the whole set
/// up to 100 times, else the set that misses least is kept. In draw order (PySlowFast returns
/// them sorted in a random order: the same distribution).
std::vector<double> randomWindowStarts(double videoFrames, double clipSize, int windows,
                                       double deltaMin, double deltaMax,
                                       const std::function<double(int window)>& draw);

/// linspace(start, start + clipSize - 1, numFrames), clamped to [0, videoFrames - 1], truncated.
std::vector<std::int64_t> clipFrameIndices(double start, double clipSize, int numFrames,
                                           std::int64_t videoFrames);

/// Indices of the slow pathway within a fast clip of `fastFrames`: linspace(0, T - 1, T / alpha).
std::vector<std::int64_t> slowPathwayIndices(int fastFrames, int alpha);

struct Size {
  int height = 0;
  int width = 0;
  bool operator==(const Size& o) const { return height == o.height && width == o.width; }
};

/// Short side drawn as int(round(uniform(min, max))) with Python's round half to even;
/// `inverseUniform` draws 1/size uniformly instead (DATA.INV_UNIFORM_SAMPLE).
int jitterShortSide(int minSize, int maxSize, double u, bool inverseUniform = false);

/// Frame size after scaling the short side to `shortSide` (long side floored), as PySlowFast.
Size scaleShortSide(Size in, int shortSide);

/// The size torchvision's video reader decodes to with video_min_dimension = `minDimension`
/// (PySlowFast's torchvision backend, max_spatial_scale): the short side `minDimension`, the long
/// side rounded half away from zero (a square frame counts as portrait).
Size decodeSizeAtMinDimension(Size in, int minDimension);

struct CropBox {
  int y = 0;
  int x = 0;
  int size = 0;
  bool operator==(const CropBox& o) const { return y == o.y && x == o.x && size == o.size; }
};

/// The frame size PySlowFast's decoder hands on: torchvision decodes at short side
/// `maxSpatialScale` (decodeSizeAtMinDimension; 0 keeps the size), pyav at the native size.
Size backendDecodeSize(DecodingBackend backend, Size in, int maxSpatialScale);

/// Random crop: offsets randint(0, extent - size) from draws uy, ux (0 when extent <= size).
CropBox randomCrop(Size in, int size, double uy, double ux);

/// Test crop: 0, 1, 2 = left, centre, right (top, centre, bottom for portrait frames).
CropBox uniformCrop(Size in, int size, int spatialIdx);

/// horizontal_flip: flips when the draw is below `prob`.
inline bool flipFromDraw(double prob, double u) {
  return u < prob;
}

}  // namespace amp::data
