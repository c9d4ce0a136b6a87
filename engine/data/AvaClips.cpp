#include "data/AvaClips.h"

#include <algorithm>
#include <stdexcept>

#include "data/FrameSampling.h"
#include "data/JpegFrames.h"
#include "data/Sampling.h"

namespace amp::data {
namespace {

std::string keyframeName(const SampleList& list, int sample) {
  const Sample& s = list.videos[static_cast<std::size_t>(sample)];
  const int second = list.ava && s.keyframe >= 0
                         ? list.ava->keyframes[static_cast<std::size_t>(s.keyframe)].second
                         : 0;
  return "'" + s.name + "' (second " + std::to_string(second) + ")";
}

std::string sizeText(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

std::vector<std::int64_t> avaClipFrames(const ClipParams& p, const AvaDataset& ava,
                                        const AvaKeyframe& keyframe) {
  // Python's // on non-negative ints: the seq_len of NUM_FRAMES x SAMPLING_RATE, halved.
  const std::int64_t halfLen = static_cast<std::int64_t>(p.num_frames) * p.sampling_rate / 2;
  const auto length =
      static_cast<std::int64_t>(ava.videos[static_cast<std::size_t>(keyframe.video)].frames.size());
  return avaFrameIndices(keyframe.center_frame, halfLen, p.sampling_rate, length);
}

bool makeAvaClip(const ClipParams& p, const AvaDataset& ava, int keyframe, Split split,
                 DrawSource& draws, AvaClip& out, std::vector<std::int64_t>& frames,
                 std::string* error) {
  const AvaKeyframe& key = ava.keyframes.at(static_cast<std::size_t>(keyframe));
  const AvaVideo& video = ava.videos.at(static_cast<std::size_t>(key.video));
  frames = avaClipFrames(p, ava, key);
  std::vector<std::string> paths;
  paths.reserve(frames.size());
  for (const std::int64_t i : frames) {
    if (i < 0 || static_cast<std::size_t>(i) >= video.frames.size()) {  // a video with no frames
      if (error)
        *error = "AVA video '" + video.name + "' has " + std::to_string(video.frames.size()) +
                 " frames in its frame list; its second " + std::to_string(key.second) +
                 " needs frame " + std::to_string(i);
      return false;
    }
    paths.push_back(video.frames[static_cast<std::size_t>(i)]);
  }
  thread_local DecodedClip decoded;  // reused by each loader thread: no per-clip allocation
  if (!decodeJpegFrames(paths, decoded, error)) return false;
  std::vector<PixelBox> boxes;
  boxes.reserve(key.boxes.size());
  for (const AvaBox& b : key.boxes) boxes.push_back(b.box);
  std::string why;
  if (!transformAvaClip(p.ava, split, decoded, std::move(boxes), draws, out, &why)) {
    if (error)
      *error = "AVA video '" + video.name + "' second " + std::to_string(key.second) + ": " + why;
    return false;
  }
  // pack_pathway_output reverses the channels once more when DATA.REVERSE_INPUT_CHANNEL.
  if (p.reverse_channels) reverseChannels(out);
  return true;
}

void reverseChannels(AvaClip& clip) {
  const std::size_t channel =
      static_cast<std::size_t>(clip.frames) * static_cast<std::size_t>(clip.height) * clip.width;
  std::swap_ranges(clip.pixels.begin(), clip.pixels.begin() + static_cast<std::ptrdiff_t>(channel),
                   clip.pixels.begin() + static_cast<std::ptrdiff_t>(2 * channel));
}

void copySlowPathway(const AvaClip& clip, const std::vector<std::int64_t>& slowIdx, float* out) {
  const std::size_t plane = static_cast<std::size_t>(clip.height) * clip.width;
  for (int c = 0; c < 3; ++c)
    for (std::size_t t = 0; t < slowIdx.size(); ++t)
      std::copy_n(clip.pixels.data() + (static_cast<std::size_t>(c) * clip.frames +
                                        static_cast<std::size_t>(slowIdx[t])) *
                                           plane,
                  plane, out + (static_cast<std::size_t>(c) * slowIdx.size() + t) * plane);
}

bool addAvaClip(const ClipParams& p, const SampleList& list, int sample, const AvaClip& clip,
                const std::vector<std::int64_t>& frames, int numClasses, std::size_t index,
                std::size_t count, Batch& out, std::string* error) {
  const AvaKeyframe& key =
      list.ava->keyframes.at(static_cast<std::size_t>(list.videos.at(sample).keyframe));
  const std::vector<std::int64_t> slowIdx = p.slowfast_alpha > 0
                                                ? slowPathwayIndices(clip.frames, p.slowfast_alpha)
                                                : std::vector<std::int64_t>{};
  const std::size_t plane = static_cast<std::size_t>(clip.height) * clip.width;
  const std::size_t fastSize = 3 * static_cast<std::size_t>(clip.frames) * plane,
                    slowSize = 3 * slowIdx.size() * plane;
  if (index == 0) {
    out.channels = 3;
    out.frames = clip.frames;
    out.slow_frames = static_cast<int>(slowIdx.size());
    out.height = clip.height;
    out.width = clip.width;
    out.num_classes = numClasses;
    out.fast.resize(fastSize * count);  // a recycled batch's buffer keeps its capacity
    out.slow.resize(slowSize * count);
  } else if (clip.height != out.height || clip.width != out.width || clip.frames != out.frames) {
    // Test clips keep their frames' aspect ratio (no crop): videos of another shape give
    // clips that cannot share a tensor. PySlowFast's default_collate fails on them too.
    if (error)
      *error = "AVA clips of one batch differ in size: " + keyframeName(list, out.videos.front()) +
               " gives " + sizeText(out.width, out.height) + " x " + std::to_string(out.frames) +
               " frames, " + keyframeName(list, sample) + " " + sizeText(clip.width, clip.height) +
               " x " + std::to_string(clip.frames) +
               " (test clips are scaled to short side DATA.TEST_CROP_SIZE without a crop, so "
               "videos of other aspect ratios differ; PySlowFast cannot stack them either). Test "
               "one clip per process: TEST.BATCH_SIZE = the processes per machine (NUM_GPUS, or "
               "DIST.CPU_PROCESSES on the CPU)";
    return false;
  }
  std::copy(clip.pixels.begin(), clip.pixels.begin() + static_cast<std::ptrdiff_t>(fastSize),
            out.fast.begin() + static_cast<std::ptrdiff_t>(index * fastSize));
  copySlowPathway(clip, slowIdx, out.slow.data() + index * slowSize);

  if (clip.boxes.size() != key.boxes.size())  // the transform moves boxes, never drops them
    throw std::logic_error("AVA clip with " + std::to_string(clip.boxes.size()) + " boxes for " +
                           std::to_string(key.boxes.size()) + " of its keyframe");
  // detection_collate: boxes with the clip's index in front, then everything per box.
  for (const PixelBox& b : clip.boxes) {
    out.boxes.push_back(static_cast<float>(index));
    for (const double v : b) out.boxes.push_back(static_cast<float>(v));
  }
  const std::vector<float> targets = avaTargets(key, numClasses);
  out.box_targets.insert(out.box_targets.end(), targets.begin(), targets.end());
  for (const AvaBox& b : key.boxes) {
    for (const double v : b.box) out.ori_boxes.push_back(static_cast<float>(v));
    out.box_meta.push_back(key.video);
    out.box_meta.push_back(key.second);
  }
  out.num_boxes += static_cast<int>(key.boxes.size());

  const Sample& s = list.videos[static_cast<std::size_t>(sample)];
  out.labels.push_back(s.labels.empty() ? 0 : s.labels.front());
  out.videos.push_back(sample);
  out.views.push_back(0);
  ClipInfo info;
  info.frame_indices = frames;
  info.decoded = clip.scaled;
  info.region = CropRect{clip.crop_y, clip.crop_x, clip.height, clip.width};
  info.flipped = clip.flipped;
  out.info.push_back(std::move(info));
  return true;
}

}  // namespace amp::data
