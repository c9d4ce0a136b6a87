#include "data/ClipPreview.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "config/Config.h"
#include "data/AvaDataset.h"
#include "data/ClassNames.h"
#include "data/Dataset.h"
#include "data/JpegFrames.h"
#include "data/ResizedCrop.h"
#include "data/VideoDecoder.h"
#include "multigrid/Schedule.h"

namespace amp::data {

int previewPosition(const config::Config& cfg, Split split, const std::string& video,
                    std::string* error) {
  if (split == Split::Train) {
    if (error) *error = "the training split is shuffled per epoch: find its clips by position";
    return -1;
  }
  SampleList list;
  if (!readSampleList(cfg, split, list, error)) return -1;
  for (std::size_t i = 0; i < list.videos.size(); ++i) {
    const Sample& s = list.videos[i];
    if ((s.frames.empty() ? s.path : s.name) != video) continue;
    const int views = split == Split::Test ? ClipParams::fromConfig(cfg).viewsPerTestVideo() : 1;
    return static_cast<int>(i) * views;
  }
  if (error)
    *error = list.listPath + " does not list '" + video +
             "' (its data changed since the evaluation?): it cannot be previewed";
  return -1;
}

std::vector<std::uint8_t> denormalise(const float* clip, int frames, int height, int width,
                                      const ClipParams& p) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(frames) * height * width * 3);
  const std::size_t plane = static_cast<std::size_t>(height) * width;
  for (int c = 0; c < 3; ++c) {
    // The model's channel c holds source channel 2 - c when the input channels are reversed.
    const int src = p.reverse_channels ? 2 - c : c;
    const float scale = p.std[static_cast<std::size_t>(src)],
                shift = p.mean[static_cast<std::size_t>(src)];
    for (int t = 0; t < frames; ++t) {
      const float* in = clip + (static_cast<std::size_t>(c) * frames + t) * plane;
      std::uint8_t* o = out.data() + static_cast<std::size_t>(t) * plane * 3 + src;
      for (std::size_t i = 0; i < plane; ++i) {
        const float v = std::nearbyint((in[i] * scale + shift) * 255.0f);
        o[i * 3] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
      }
    }
  }
  return out;
}

// A decoded frame (H x W x 3 bytes) at `size` by torch's bilinear resize, plane by plane.
static std::vector<std::uint8_t> scaledTo(const DecodedClip& frame, Size size) {
  if (size.height == frame.height && size.width == frame.width) return frame.rgb;
  const std::size_t in = static_cast<std::size_t>(frame.height) * frame.width,
                    outPlane = static_cast<std::size_t>(size.height) * size.width;
  std::vector<float> plane(in), scaled(outPlane);
  std::vector<std::uint8_t> out(outPlane * 3);
  for (std::size_t c = 0; c < 3; ++c) {
    for (std::size_t i = 0; i < in; ++i) plane[i] = frame.rgb[i * 3 + c];
    resizeBilinear(plane.data(), frame.width, frame.height, frame.width, size.height, size.width, 0,
                   0, size.height, size.width, false, scaled.data());
    for (std::size_t i = 0; i < outPlane; ++i)
      out[i * 3 + c] =
          static_cast<std::uint8_t>(std::clamp(std::nearbyint(scaled[i]), 0.0f, 255.0f));
  }
  return out;
}

// AVA: the keyframe (the frame its boxes belong to) at the size the clip's region refers to,
// and its boxes in the clip and in that frame, with their actions.
static bool addAvaKeyframe(const AvaDataset& ava, const Sample& sample, const Batch& batch,
                           int clip, bool clipIsBgr, PreviewClip& p, std::string* error) {
  const AvaKeyframe& key = ava.keyframes.at(static_cast<std::size_t>(sample.keyframe));
  p.second = key.second;
  DecodedClip frame;
  if (!decodeJpegFrames({sample.path}, frame, error)) return false;
  p.full = scaledTo(frame, p.info.decoded);
  // Shown as RGB: the frame is BGR as decoded; the clip is RGB after AVA's transform, unless
  // AVA.BGR kept the decoded order.
  std::vector<std::vector<std::uint8_t>*> bgr{&p.full};
  if (clipIsBgr) bgr.insert(bgr.end(), {&p.fast, &p.slow});
  for (auto* pixels : bgr)
    for (std::size_t i = 0; i + 2 < pixels->size(); i += 3)
      std::swap((*pixels)[i], (*pixels)[i + 2]);
  // detection_collate's rows: clip index, x1, y1, x2, y2; this clip's are its keyframe's boxes
  // in order (addAvaClip appends them so).
  std::size_t k = 0;
  for (int row = 0; row < batch.num_boxes; ++row) {
    const float* b = &batch.boxes[static_cast<std::size_t>(row) * 5];
    if (static_cast<int>(b[0]) != clip || k >= key.boxes.size()) continue;
    PreviewBox box;
    for (std::size_t c = 0; c < 4; ++c) {
      box.clip[c] = b[1 + c];
      box.frame[c] =
          key.boxes[k].box[c] * (c % 2 == 0 ? p.info.decoded.width : p.info.decoded.height);
    }
    box.labels = key.boxes[k].labels;
    p.boxes.push_back(std::move(box));
    ++k;
  }
  return true;
}

bool previewClips(const config::Config& runCfg, Split split, int epoch, int first, int count,
                  std::vector<PreviewClip>& out, std::string* error) {
  out.clear();
  // A multigrid run trains and validates each long-cycle phase at its own shape (frames, crop,
  // sampling rates): the clips of `epoch` are its phase's. The final test runs at the full shape.
  config::Config cfg = runCfg;
  std::string shape;
  if (split != Split::Test &&
      (runCfg.getBool("MULTIGRID.LONG_CYCLE") || runCfg.getBool("MULTIGRID.SHORT_CYCLE"))) {
    try {
      const auto schedule = multigrid::buildSchedule(runCfg);
      const auto& phase = multigrid::phaseAtEpoch(schedule, epoch);
      cfg = multigrid::phaseConfig(runCfg, schedule, phase, 1);
      shape = "multigrid phase " + std::to_string(phase.index + 1) + "/" +
              std::to_string(schedule.phases.size()) + " (epochs " +
              std::to_string(phase.start_epoch) + "-" + std::to_string(phase.end_epoch) +
              "): " + std::to_string(phase.t) + " frames, crop " + std::to_string(phase.s) +
              ", batch " + std::to_string(phase.batch_size);
      if (schedule.short_cycle)
        shape +=
            "; short cycles change the crop and batch from iteration to iteration, shown here at "
            "the phase's own crop";
    } catch (const std::exception& e) {
      if (error) *error = e.what();
      return false;
    }
  }
  SampleList list;
  if (!readSampleList(cfg, split, list, error)) return false;
  // Class names, as predict shows them: a names file that is not there costs the names only.
  std::map<int, std::string> names;
  if (const std::string labels = cfg.getString("DEMO.LABEL_FILE_PATH"); !labels.empty()) {
    std::error_code ec;
    std::string ignored;
    if (std::filesystem::exists(labels, ec) && !readClassNames(labels, names, ignored))
      names.clear();
  }
  const ClipParams params = ClipParams::fromConfig(cfg);
  LoaderOptions o = LoaderOptions::fromConfig(cfg, split);
  // One video per batch, built on this thread: the draws depend on the position in the epoch
  // only, so batch k is the video at position k whatever TRAIN.BATCH_SIZE is.
  o.batch_size = 1;
  o.workers = 0;
  o.drop_last = false;
  VideoLoader loader(list, params, split, o);
  const int total = static_cast<int>(loader.samplesPerEpoch());
  if (first < 0 || first >= total) {
    if (error)
      *error = list.listPath + ": clip " + std::to_string(first) + " is outside the " +
               splitName(split) + " epoch's " + std::to_string(total) + " clips (0 .. " +
               std::to_string(total - 1) + ")";
    return false;
  }
  count = std::min(count, total - first);
  loader.startEpoch(epoch, first);
  const int crop = params.cropSize(split);
  for (int k = 0; k < count; ++k) {
    auto batch = loader.next();
    if (!batch) {
      if (error) *error = loader.error().empty() ? "the loader ended early" : loader.error();
      return false;
    }
    // Per clip, from the batch: AVA's test clips are not crop x crop.
    const std::size_t fastSize = batch->fast.size() / static_cast<std::size_t>(batch->size),
                      slowSize = batch->slow.size() / static_cast<std::size_t>(batch->size);
    for (int j = 0; j < batch->size; ++j) {
      PreviewClip p;
      p.position = first + k;
      p.copy = j;
      p.view = batch->views[static_cast<std::size_t>(j)];
      const Sample& sample =
          list.videos[static_cast<std::size_t>(batch->videos[static_cast<std::size_t>(j)])];
      p.path = sample.frames.empty() ? sample.path : sample.name;
      p.label = batch->labels[static_cast<std::size_t>(j)];
      if (const auto name = names.find(p.label); name != names.end()) p.label_name = name->second;
      p.info = batch->info[static_cast<std::size_t>(j)];
      p.frames = batch->frames;
      p.slow_frames = batch->slow_frames;
      p.crop = crop;
      p.height = batch->height;
      p.width = batch->width;
      p.shape = shape;
      const float* fast = batch->fast.data() + static_cast<std::size_t>(j) * fastSize;
      p.input_fast.assign(fast, fast + fastSize);
      p.fast = denormalise(fast, p.frames, p.height, p.width, params);
      if (slowSize) {
        const float* slow = batch->slow.data() + static_cast<std::size_t>(j) * slowSize;
        p.input_slow.assign(slow, slow + slowSize);
        p.slow = denormalise(slow, p.slow_frames, p.height, p.width, params);
      }
      if (list.ava) {
        if (!addAvaKeyframe(*list.ava, sample, *batch, j, params.ava.bgr, p, error)) return false;
      } else if (!sample.frames.empty()) {  // a frame folder: its first frame file, decoded as BGR
        DecodedClip frame;
        const auto first = static_cast<std::size_t>(p.info.frame_indices.front());
        if (!decodeJpegFrames({sample.frames.at(first)}, frame, error)) return false;
        p.full = scaledTo(frame, p.info.decoded);         // the size the region refers to
        for (auto* pixels : {&p.fast, &p.slow, &p.full})  // shown as RGB
          for (std::size_t i = 0; i + 2 < pixels->size(); i += 3)
            std::swap((*pixels)[i], (*pixels)[i + 2]);
      } else if (j == 0 ||
                 !(p.info.decoded ==
                   out.back().info.decoded)) {  // the first source frame, at the region's size
        VideoDecoder decoder(o.decoder);
        DecodedClip frame;
        if (!decoder.open(p.path, error) ||
            !decoder.decode({p.info.frame_indices.front()}, p.info.decoded.height,
                            p.info.decoded.width, frame, error))
          return false;
        p.full = std::move(frame.rgb);
      } else {
        p.full = out.back().full;
      }
      out.push_back(std::move(p));
    }
  }
  return true;
}

std::array<std::uint8_t, 3> avaBoxColour(std::size_t k) {
  // Bright and far apart, readable on video frames; the region outline's green is not among them.
  static constexpr std::array<std::array<std::uint8_t, 3>, 6> kPalette{{{255, 220, 0},
                                                                        {0, 200, 255},
                                                                        {255, 80, 200},
                                                                        {255, 140, 0},
                                                                        {160, 110, 255},
                                                                        {255, 255, 255}}};
  return kPalette[k % kPalette.size()];
}

// The clip's frame size; a clip made by hand may give only the crop (square).
static Size frameSize(const PreviewClip& c) {
  return c.width > 0 && c.height > 0 ? Size{c.height, c.width} : Size{c.crop, c.crop};
}

SheetLayout contactSheetLayout(const PreviewClip& c) {
  constexpr int gap = 4;
  const Size clip = frameSize(c);
  SheetLayout l;
  l.full = {0, 0, c.info.decoded.width, c.info.decoded.height};
  for (int t = 0; t < c.frames; ++t)
    l.fast.push_back({t * (clip.width + gap), l.full.height + gap, clip.width, clip.height});
  return l;
}

// A rectangle's outline `thick` pixels wide, clipped to `bounds`.
static void outline(ContactSheet& s, const SheetRect& bounds, int x0, int y0, int x1, int y1,
                    int thick, const std::uint8_t* colour) {
  for (int y = std::max(y0, 0); y <= std::min(y1, bounds.height - 1); ++y)
    for (int x = std::max(x0, 0); x <= std::min(x1, bounds.width - 1); ++x)
      if (y - y0 < thick || y1 - y < thick || x - x0 < thick || x1 - x < thick)
        std::copy_n(
            colour, 3,
            s.rgb.data() + (static_cast<std::size_t>(bounds.y + y) * s.width + bounds.x + x) * 3);
}

ContactSheet contactSheet(const PreviewClip& c, bool drawBoxes) {
  constexpr int gap = 4;
  const SheetLayout layout = contactSheetLayout(c);
  const Size clip = frameSize(c);
  const int fullW = layout.full.width, fullH = layout.full.height;
  const int rowW = c.frames * (clip.width + gap) - gap;
  ContactSheet s;
  s.width = std::max(fullW, rowW);
  s.height = fullH + gap + clip.height + (c.slow.empty() ? 0 : gap + clip.height);
  s.rgb.assign(static_cast<std::size_t>(s.width) * s.height * 3, 32);  // dark grey background
  auto put = [&](int x, int y, const std::uint8_t* px) {
    std::copy_n(px, 3, s.rgb.data() + (static_cast<std::size_t>(y) * s.width + x) * 3);
  };
  for (int y = 0; y < fullH && !c.full.empty(); ++y)
    for (int x = 0; x < fullW; ++x)
      put(x, y, c.full.data() + (static_cast<std::size_t>(y) * fullW + x) * 3);
  // The region the clip shows, 2 px wide: green, red when the clip is flipped.
  const std::uint8_t mark[3] = {static_cast<std::uint8_t>(c.info.flipped ? 230 : 40),
                                static_cast<std::uint8_t>(c.info.flipped ? 40 : 220), 40};
  const auto& r = c.info.region;
  outline(s, layout.full, r.x, r.y, r.x + r.width - 1, r.y + r.height - 1, 2, mark);
  auto row = [&](const std::vector<std::uint8_t>& frames, int n, int top) {
    const std::size_t frame = static_cast<std::size_t>(clip.width) * clip.height * 3;
    // Slow frames sit under the fast frames they were taken from.
    const auto at =
        n < c.frames ? slowPathwayIndices(c.frames, c.frames / n) : std::vector<std::int64_t>{};
    for (int t = 0; t < n; ++t) {
      const int left =
          static_cast<int>(at.empty() ? t : at[static_cast<std::size_t>(t)]) * (clip.width + gap);
      for (int y = 0; y < clip.height; ++y)
        for (int x = 0; x < clip.width; ++x)
          put(left + x, top + y,
              frames.data() + t * frame + (static_cast<std::size_t>(y) * clip.width + x) * 3);
    }
  };
  row(c.fast, c.frames, fullH + gap);
  if (!c.slow.empty()) row(c.slow, c.slow_frames, fullH + gap + clip.height + gap);
  if (drawBoxes)
    for (std::size_t k = 0; k < c.boxes.size(); ++k) {
      const auto colour = avaBoxColour(k);
      const auto& f = c.boxes[k].frame;
      auto px = [](double v) { return static_cast<int>(std::lround(v)); };
      outline(s, layout.full, px(f[0]), px(f[1]), px(f[2]), px(f[3]), 2, colour.data());
      const auto& b = c.boxes[k].clip;
      for (const SheetRect& at : layout.fast)
        outline(s, at, px(b[0]), px(b[1]), px(b[2]), px(b[3]), 1, colour.data());
    }
  return s;
}

}  // namespace amp::data
