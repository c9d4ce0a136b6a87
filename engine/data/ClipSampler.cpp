#include "data/ClipSampler.h"

#include <cmath>

#include <algorithm>
#include <chrono>

#include "config/Config.h"
#include "data/FrameSampling.h"
#include "data/JpegFrames.h"
#include "data/TrainTransform.h"

namespace amp::data {
namespace {

// SlowFast's slow pathway: frames linspace(0, T - 1, T / alpha) of the fast clip.
void writeSlow(const ClipParams& p, const float* fast, std::size_t plane, Clip& out) {
  out.slow.clear();
  if (p.slowfast_alpha <= 0) return;
  const auto slowIdx = slowPathwayIndices(p.num_frames, p.slowfast_alpha);
  const size_t slowT = slowIdx.size();
  float* slow = out.slow_out;
  if (!slow) {
    out.slow.resize(3 * slowT * plane);
    slow = out.slow.data();
  }
  for (int c = 0; c < 3; ++c)
    for (size_t t = 0; t < slowT; ++t)
      std::copy_n(
          fast + (static_cast<size_t>(c) * p.num_frames + static_cast<size_t>(slowIdx[t])) * plane,
          plane, slow + (static_cast<size_t>(c) * slowT + t) * plane);
}

}  // namespace

ClipParams ClipParams::fromConfig(const config::Config& c) {
  ClipParams p;
  p.num_frames = static_cast<int>(c.getInt("DATA.NUM_FRAMES"));
  p.sampling_rate = static_cast<int>(c.getInt("DATA.SAMPLING_RATE"));
  p.target_fps = static_cast<double>(c.getInt("DATA.TARGET_FPS"));
  const auto jitter = c.getIntList("DATA.TRAIN_JITTER_SCALES");
  p.jitter_min = p.test_jitter_min = static_cast<int>(jitter.at(0));
  p.jitter_max = static_cast<int>(jitter.at(1));
  p.inverse_uniform = c.getBool("DATA.INV_UNIFORM_SAMPLE");
  p.train_crop = static_cast<int>(c.getInt("DATA.TRAIN_CROP_SIZE"));
  p.test_crop = static_cast<int>(c.getInt("DATA.TEST_CROP_SIZE"));
  p.random_flip = c.getBool("DATA.RANDOM_FLIP");
  p.test_views = static_cast<int>(c.getInt("TEST.NUM_ENSEMBLE_VIEWS"));
  p.test_crops = static_cast<int>(c.getInt("TEST.NUM_SPATIAL_CROPS"));
  p.use_offset = c.getBool("DATA.USE_OFFSET_SAMPLING");
  const auto mean = c.getFloatList("DATA.MEAN");
  const auto stdv = c.getFloatList("DATA.STD");
  for (size_t i = 0; i < 3; ++i) {
    p.mean[i] = static_cast<float>(mean.at(i));
    p.std[i] = static_cast<float>(stdv.at(i));
  }
  p.reverse_channels = c.getBool("DATA.REVERSE_INPUT_CHANNEL");
  decodingBackendFromName(c.getString("DATA.DECODING_BACKEND"),
                          p.backend);  // the schema allows only the two
  const auto multi = c.getStringList("MODEL.MULTI_PATHWAY_ARCH");
  if (std::find(multi.begin(), multi.end(), c.getString("MODEL.ARCH")) != multi.end())
    p.slowfast_alpha = static_cast<int>(c.getInt("SLOWFAST.ALPHA"));
  p.aug = AugmentParams::fromConfig(c);
  (void)datasetKindFromName(c.getString("TRAIN.DATASET"), p.dataset);  // the validator checks it
  if (p.dataset == DatasetKind::Ssv2 && !p.aug.enabled) {
    // ssv2.py augments (relative crops, RandAugment, erasing, AUG.NUM_SAMPLE copies) only with
    // AUG.ENABLE; without it, plain spatial_sampling.
    p.aug = AugmentParams{};
  } else if (p.dataset == DatasetKind::Ssv2) {
    p.aug.crop_num_spatial = p.aug.crop_num_temporal = 1;  // Kinetics-only keys
  } else if (p.dataset == DatasetKind::Charades || p.dataset == DatasetKind::Ava) {
    p.aug = AugmentParams{};  // charades.py and ava_dataset.py have no such augmentation path
  }
  p.ava = AvaTransformParams::fromConfig(c);
  // PySlowFast's Kinetics dataset under multigrid: a smaller crop takes a smaller minimum scale
  // (Python's round, halves to even), and long cycles draw the sampling rate.
  if (const auto defaultS = c.getInt("MULTIGRID.DEFAULT_S"); defaultS > 0)
    p.jitter_min = static_cast<int>(std::nearbyint(static_cast<double>(p.test_jitter_min) *
                                                   p.train_crop / static_cast<double>(defaultS)));
  p.max_sampling_rate = static_cast<int>(c.getInt("MULTIGRID.LONG_CYCLE_SAMPLING_RATE"));
  return p;
}

namespace {
StreamTiming streamTiming(const VideoInfo& info, std::int64_t frames) {
  StreamTiming t;
  t.fps = info.fps;
  t.slot_fps = info.slot_fps;
  t.duration_s = info.duration_s;
  t.duration_pts = info.duration_pts;
  t.header_frames = info.header_frames;
  t.frames = frames;
  t.timebase_num = info.timebase_num;
  t.timebase_den = info.timebase_den;
  t.start_pts = info.start_pts;
  return t;
}

// The decoder a clip needs: PySlowFast's pyav backend picks frames by the timestamps PyAV reads.
DecoderOptions decoderFor(DecoderOptions o, DecodingBackend backend) {
  o.pyav_timestamps = backend == DecodingBackend::PyAv;
  return o;
}

// What the pyav backend draws a clip's start over: the header's frame count when it decodes a
// clip's pts range, else the number of frames it decoded (`whole`, the scan of all of them), not
// an estimate from the container's duration.
bool pyavVideoSize(VideoDecoder& d, const TemporalPlan& plan, PyAvScan& whole, double& videoSize,
                   std::string* error) {
  videoSize = plan.video_size;
  if (plan.trimmed) return true;
  if (!d.scanAsPyAv(0, kPyAvStreamEnd, whole, error)) return false;
  videoSize = static_cast<double>(whole.pts.size());
  return true;
}

// One pyav clip from `start`: trimmed, the frames of the clip's pts range sampled from the first;
// else cut from the list of all frames at `start`.
bool decodePyAvClip(VideoDecoder& d, const StreamTiming& t, const TemporalPlan& plan,
                    const PyAvScan& whole, double start, int numFrames, Size size, DecodedClip& out,
                    std::string* error) {
  PyAvScan window;
  const PyAvScan* scan = &whole;
  std::string range = "the stream";
  if (plan.trimmed) {
    const PtsRange r = pyavPtsRange(t, plan, start);
    if (!d.scanAsPyAv(r.start_pts, r.end_pts, window, error)) return false;
    scan = &window;
    start = 0;
    range = "pts [" + std::to_string(r.start_pts) + ", " + std::to_string(r.end_pts) + "]";
  }
  if (scan->pts.empty()) {  // PySlowFast's np.stack of no frames raises: it fails too
    if (error)
      *error = d.info().path + ": no frame decoded in " + range +
               " (PySlowFast's pyav decoding fails on it too)";
    return false;
  }
  const auto positions = clipFrameIndices(start, plan.sample_size, numFrames,
                                          static_cast<std::int64_t>(scan->pts.size()));
  return d.decodeScanned(*scan, positions, size.height, size.width, out, error);
}
}  // namespace

ClipSampler::ClipSampler(ClipParams params, DecoderOptions decoder)
    : params_(params), decoderOptions_(decoder) {}

bool ClipSampler::sample(const std::string& path, Split split, int view, const ClipDraws& draws,
                         Clip& out, std::string* error) {
  const ClipParams& p = params_;
  if (split == Split::Train && p.augmentedTrain())
    return sampleCopies(path, split, view, &draws, &out, 1, error);
  const bool pyav = p.backend == DecodingBackend::PyAv;
  VideoDecoder decoder(decoderFor(decoderOptions_, p.backend));
  if (!decoder.open(path, error)) return false;
  const VideoInfo& info = decoder.info();
  std::int64_t videoFrames = info.frames;
  if (videoFrames <= 0 && !pyav) {  // neither a frame count nor a duration: count once
    videoFrames = decoder.countFrames(nullptr, error);
    if (videoFrames <= 0) return false;
  }

  // Temporal sampling (decoder.py): random clip in train/val, uniform views in test.
  const bool test = split == Split::Test;
  const int temporalIdx = test ? view / p.test_crops : -1;
  const int spatialIdx = test ? (p.test_crops > 1 ? view % p.test_crops : 1) : -1;
  const StreamTiming timing = streamTiming(info, videoFrames);
  const TemporalPlan plan = temporalPlan(p.backend, timing, p.samplingRateFor(draws.rate, split),
                                         p.num_frames, p.target_fps);
  PyAvScan whole;
  double videoSize = plan.video_size;
  if (pyav && !pyavVideoSize(decoder, plan, whole, videoSize, error)) return false;
  const double start =
      clipStart(videoSize, plan.clip_size, temporalIdx, p.test_views, p.use_offset, draws.temporal);

  // Spatial sampling (transform.py): the backend's decoded size (torchvision: at the smallest
  // scale, max_spatial_scale), then the short side scaled from that size, then the crop.
  int minScale = p.jitter_min, maxScale = p.jitter_max;
  if (test) minScale = maxScale = p.test_crops > 1 ? p.test_crop : p.test_jitter_min;
  const int crop = p.cropSize(split);
  const int shortSide =
      jitterShortSide(minScale, maxScale, draws.scale, p.inverse_uniform && !test);
  out.decoded = backendDecodeSize(p.backend, {info.height, info.width}, minScale);
  out.scaled = scaleShortSide(out.decoded, shortSide);
  if (out.scaled.height < crop || out.scaled.width < crop) {
    if (error)
      *error = path + ": frames scale to " + std::to_string(out.scaled.width) + "x" +
               std::to_string(out.scaled.height) + ", smaller than the " + std::to_string(crop) +
               " px crop; raise the jitter scales or lower the crop size";
    return false;
  }
  thread_local DecodedClip decoded;  // reused by each loader thread: no per-clip allocation
  if (pyav ? !decodePyAvClip(decoder, timing, plan, whole, start, p.num_frames, out.scaled, decoded,
                             error)
           : !decoder.decode(torchvisionFrameIndices(timing, plan, start, p.num_frames),
                             out.scaled.height, out.scaled.width, decoded, error))
    return false;
  out.box = test ? uniformCrop(out.scaled, crop, spatialIdx)
                 : randomCrop(out.scaled, crop, draws.crop_y, draws.crop_x);
  out.flipped = !test && p.random_flip && flipFromDraw(0.5, draws.flip);
  out.frame_indices = decoded.indices;
  out.corrupt_packets = decoded.corrupt_packets;
  out.decode_s = decoded.decode_s;
  out.resize_s = decoded.convert_s;
  const auto transformStart = std::chrono::steady_clock::now();

  // Crop, flip, /255, minus mean, over std, C x T x H x W.
  out.channels = 3;
  out.frames = p.num_frames;
  out.height = out.width = crop;
  const size_t plane = static_cast<size_t>(crop) * crop;
  float* fast = out.fast_out;
  if (!fast) {
    out.fast.resize(3 * static_cast<size_t>(p.num_frames) * plane);
    fast = out.fast.data();
  }
  float scale[3], shift[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * p.std[static_cast<size_t>(c)]);
    shift[c] = p.mean[static_cast<size_t>(c)] / p.std[static_cast<size_t>(c)];
  }
  for (int t = 0; t < p.num_frames; ++t) {
    const std::uint8_t* frame = decoded.frame(static_cast<size_t>(t));
    for (int y = 0; y < crop; ++y) {
      const std::uint8_t* row =
          frame + (static_cast<size_t>(y + out.box.y) * out.scaled.width + out.box.x) * 3;
      for (int x = 0; x < crop; ++x) {
        const int sx = out.flipped ? crop - 1 - x : x;
        for (int c = 0; c < 3; ++c) {
          // PySlowFast normalises first and reverses after: channel c is (x[2-c] - mean[2-c]) /
          // std[2-c].
          const int src = p.reverse_channels ? 2 - c : c;
          fast[((static_cast<size_t>(c) * p.num_frames + t) * crop + y) * crop + x] =
              static_cast<float>(row[sx * 3 + src]) * scale[src] - shift[src];
        }
      }
    }
  }
  writeSlow(p, fast, plane, out);
  out.transform_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - transformStart).count();
  return true;
}

bool ClipSampler::sampleCopies(const std::string& path, Split split, int view,
                               const ClipDraws* draws, Clip* outs, int copies, std::string* error) {
  const ClipParams& p = params_;
  if (copies < 1) return true;
  if (split != Split::Train || !p.augmentedTrain()) {
    for (int j = 0; j < copies; ++j)  // no augmented path: plain clips (one decode each)
      if (!sample(path, split, view, draws[j], outs[j], error)) return false;
    return true;
  }
  const bool pyav = p.backend == DecodingBackend::PyAv;
  VideoDecoder decoder(decoderFor(decoderOptions_, p.backend));
  if (!decoder.open(path, error)) return false;
  const VideoInfo& info = decoder.info();
  std::int64_t videoFrames = info.frames;
  if (videoFrames <= 0 && !pyav) {
    videoFrames = decoder.countFrames(nullptr, error);
    if (videoFrames <= 0) return false;
  }
  const StreamTiming timing = streamTiming(info, videoFrames);
  const TemporalPlan plan = temporalPlan(p.backend, timing, p.samplingRateFor(draws[0].rate, split),
                                         p.num_frames, p.target_fps);
  PyAvScan whole;
  double videoSize = plan.video_size;
  if (pyav && !pyavVideoSize(decoder, plan, whole, videoSize, error)) return false;
  // DATA.TRAIN_CROP_NUM_TEMPORAL windows, each giving copies / windows augmented copies: window k's
  // start from the temporal draw of its first copy (and, to keep CONTRASTIVE.DELTA_CLIPS_MIN/MAX
  // gaps, further draws from that copy's stream).
  const int windows = copies % p.aug.crop_num_temporal == 0 ? p.aug.crop_num_temporal : 1;
  const int perWindow = copies / windows;
  std::vector<double> starts;
  if (windows == 1) {
    starts.push_back(
        clipStart(videoSize, plan.clip_size, -1, p.test_views, p.use_offset, draws[0].temporal));
  } else {
    std::vector<int> used(static_cast<std::size_t>(windows), 0);
    Draws fallback(0, 0x54454d50ULL, 0, 0);
    starts = randomWindowStarts(videoSize, plan.clip_size, windows, p.aug.delta_min,
                                p.aug.delta_max, [&](int k) {
                                  const ClipDraws& first = draws[k * perWindow];
                                  if (used[static_cast<std::size_t>(k)]++ == 0)
                                    return first.temporal;
                                  return first.more ? first.more->uniform() : fallback.uniform();
                                });
  }
  // PySlowFast's torchvision backend decodes at short side TRAIN_JITTER_SCALES[0]
  // (max_spatial_scale: the windows' smallest scale when they all share it, else the native size;
  // multigrid lowers the first window's only); every copy is cut from these frames.
  const int maxSpatialScale = windows > 1 && p.jitter_min != p.test_jitter_min ? 0 : p.jitter_min;
  const Size decodeSize = backendDecodeSize(p.backend, {info.height, info.width}, maxSpatialScale);
  thread_local std::vector<DecodedClip> decodedWindows;
  decodedWindows.resize(
      std::max<std::size_t>(decodedWindows.size(), static_cast<std::size_t>(windows)));
  for (int k = 0; k < windows; ++k) {
    const double start = starts[static_cast<std::size_t>(k)];
    DecodedClip& decoded = decodedWindows[static_cast<std::size_t>(k)];
    if (pyav ? !decodePyAvClip(decoder, timing, plan, whole, start, p.num_frames, decodeSize,
                               decoded, error)
             : !decoder.decode(torchvisionFrameIndices(timing, plan, start, p.num_frames),
                               decodeSize.height, decodeSize.width, decoded, error))
      return false;
  }
  const int crop = p.train_crop;
  const size_t plane = static_cast<size_t>(crop) * crop;
  for (int j = 0; j < copies; ++j) {
    Clip& out = outs[j];
    const DecodedClip& decoded = decodedWindows[static_cast<std::size_t>(j / perWindow)];
    const bool firstOfWindow = j % perWindow == 0;
    const auto transformStart = std::chrono::steady_clock::now();
    out.channels = 3;
    out.frames = p.num_frames;
    out.height = out.width = crop;
    out.frame_indices = decoded.indices;
    out.decoded = decodeSize;
    out.corrupt_packets = decoded.corrupt_packets;
    out.decode_s = firstOfWindow ? decoded.decode_s : 0;
    out.resize_s = firstOfWindow ? decoded.convert_s : 0;
    float* fast = out.fast_out;
    if (!fast) {
      out.fast.resize(3 * static_cast<size_t>(p.num_frames) * plane);
      fast = out.fast.data();
    }
    Draws fallback(0, 0x4d4f5245ULL, static_cast<std::uint64_t>(j), 0);
    DrawSource& more = draws[j].more ? *draws[j].more : fallback;
    std::string why;
    if (!transformTrainCopy(p, decoded, draws[j], more, fast, out, &why)) {
      if (error) *error = path + ": " + why;
      return false;
    }
    writeSlow(p, fast, plane, out);
    out.transform_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - transformStart).count();
  }
  return true;
}

bool ClipSampler::sample(const Sample& s, Split split, int view, const ClipDraws& draws, Clip& out,
                         std::string* error) {
  if (s.keyframe >= 0) return sampleCopies(s, split, view, &draws, &out, 1, error);
  if (s.frames.empty()) return sample(s.path, split, view, draws, out, error);
  return sampleFrames(s, split, view, &draws, &out, 1, error);
}

bool ClipSampler::sampleCopies(const Sample& s, Split split, int view, const ClipDraws* draws,
                               Clip* outs, int copies, std::string* error) {
  if (s.keyframe >= 0) {  // its frames and boxes are in the list's AvaDataset, not the sample
    if (error)
      *error = s.path +
               ": an AVA keyframe's clip is built with its boxes (data/AvaClips.h), not "
               "as a classification clip";
    return false;
  }
  if (s.frames.empty()) return sampleCopies(s.path, split, view, draws, outs, copies, error);
  return sampleFrames(s, split, view, draws, outs, copies, error);
}

bool ClipSampler::sampleFrames(const Sample& s, Split split, int view, const ClipDraws* draws,
                               Clip* outs, int copies, std::string* error) {
  const ClipParams& p = params_;
  if (copies < 1) return true;
  const bool test = split == Split::Test;
  const auto length = static_cast<std::int64_t>(s.frames.size());
  Draws fallback(0, 0x4652414dULL, 0, 0);
  DrawSource& more = draws[0].more ? *draws[0].more : fallback;
  const std::vector<std::int64_t> seq =
      p.dataset == DatasetKind::Ssv2
          ? ssv2FrameIndices(length, p.num_frames, split == Split::Train,
                             [&] { return more.uniform(); })
          : charadesFrameIndices(length, p.num_frames, p.samplingRateFor(draws[0].rate, split),
                                 test ? view / std::max(1, p.test_crops) : -1, p.test_views,
                                 draws[0].temporal);
  std::vector<std::string> paths;
  paths.reserve(seq.size());
  for (const std::int64_t i : seq) paths.push_back(s.frames[static_cast<std::size_t>(i)]);
  thread_local DecodedClip decoded;
  if (!decodeJpegFrames(paths, decoded, error)) return false;
  decoded.indices = seq;
  // Validation is spatial_sampling with random crops and no augmentation; test a uniform crop
  // (PySlowFast's frame datasets take view % NUM_SPATIAL_CROPS even for one crop: the left/top).
  ClipParams plain = p;
  plain.aug = AugmentParams{};
  const int crop = p.cropSize(split);
  const size_t plane = static_cast<size_t>(crop) * crop;
  for (int j = 0; j < copies; ++j) {
    Clip& out = outs[j];
    const auto transformStart = std::chrono::steady_clock::now();
    out.channels = 3;
    out.frames = p.num_frames;
    out.height = out.width = crop;
    out.frame_indices = seq;
    out.decoded = {decoded.height, decoded.width};
    out.decode_s = j == 0 ? decoded.decode_s : 0;
    out.resize_s = 0;
    float* fast = out.fast_out;
    if (!fast) {
      out.fast.resize(3 * static_cast<size_t>(p.num_frames) * plane);
      fast = out.fast.data();
    }
    Draws copyFallback(0, 0x4d4f5245ULL, static_cast<std::uint64_t>(j), 0);
    DrawSource& copyMore = draws[j].more ? *draws[j].more : copyFallback;
    std::string why;
    const bool ok =
        test ? transformTestCopy(p, decoded, view % std::max(1, p.test_crops), fast, out, &why)
             : transformTrainCopy(split == Split::Train ? p : plain, decoded, draws[j], copyMore,
                                  fast, out, &why);
    if (!ok) {
      if (error) *error = s.path + ": " + why;
      return false;
    }
    writeSlow(p, fast, plane, out);
    out.transform_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - transformStart).count();
  }
  return true;
}

}  // namespace amp::data
