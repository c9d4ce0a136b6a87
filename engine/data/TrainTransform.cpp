#include "data/TrainTransform.h"

#include <algorithm>
#include <cstring>

#include "data/RandAugment.h"
#include "data/RandomErasing.h"
#include "data/ResizedCrop.h"

namespace amp::data {
namespace {

// /255, - MEAN, / STD in float32, C x T x H x W (REVERSE_INPUT_CHANNEL as the plain path).
const std::vector<float>& normalise(const ClipParams& p, const std::uint8_t* pixels, int T,
                                    std::size_t framePixels) {
  thread_local std::vector<float> normalised;
  normalised.resize(3 * framePixels * static_cast<std::size_t>(T));
  for (int c = 0; c < 3; ++c) {
    const int src = p.reverse_channels ? 2 - c : c;
    const float mean = p.mean[static_cast<std::size_t>(src)],
                stdv = p.std[static_cast<std::size_t>(src)];
    for (int t = 0; t < T; ++t) {
      const std::uint8_t* f = pixels + static_cast<std::size_t>(t) * framePixels * 3;
      float* plane = normalised.data() +
                     (static_cast<std::size_t>(c) * T + static_cast<std::size_t>(t)) * framePixels;
      for (std::size_t i = 0; i < framePixels; ++i)
        plane[i] = (static_cast<float>(f[i * 3 + static_cast<std::size_t>(src)]) * (1.0f / 255.0f) -
                    mean) /
                   stdv;
    }
  }
  return normalised;
}

}  // namespace

bool transformTestCopy(const ClipParams& p, const DecodedClip& frames, int spatialIdx, float* out,
                       Clip& info, std::string* error) {
  const int T = p.num_frames, H = frames.height, W = frames.width, crop = p.test_crop;
  const std::size_t framePixels = static_cast<std::size_t>(H) * W;
  const std::vector<float>& normalised = normalise(p, frames.rgb.data(), T, framePixels);
  info.scaled = scaleShortSide({H, W}, crop);
  if (info.scaled.height < crop || info.scaled.width < crop) {
    if (error)
      *error = "frames scale to " + std::to_string(info.scaled.width) + "x" +
               std::to_string(info.scaled.height) + ", smaller than the " + std::to_string(crop) +
               " px test crop (DATA.TEST_CROP_SIZE)";
    return false;
  }
  info.box = uniformCrop(info.scaled, crop, spatialIdx);
  info.region = {info.box.y, info.box.x, crop, crop};
  info.flipped = false;
  const std::size_t outPlane = static_cast<std::size_t>(crop) * crop;
  for (int c = 0; c < 3; ++c)
    for (int t = 0; t < T; ++t) {
      const std::size_t at = static_cast<std::size_t>(c) * T + static_cast<std::size_t>(t);
      resizeBilinear(normalised.data() + at * framePixels, W, H, W, info.scaled.height,
                     info.scaled.width, info.box.y, info.box.x, crop, crop, false,
                     out + at * outPlane);
    }
  return true;
}

bool transformTrainCopy(const ClipParams& p, const DecodedClip& frames, const ClipDraws& draws,
                        DrawSource& more, float* out, Clip& info, std::string* error) {
  const AugmentParams& aug = p.aug;
  const int T = p.num_frames, H = frames.height, W = frames.width, crop = p.train_crop;
  const std::size_t framePixels = static_cast<std::size_t>(H) * W;

  // RandAugment: one draw of ops for the clip, every frame the same (its list-of-images call).
  // torchvision's ToPILImage turns x/255 back into x exactly (mul(255).byte() truncates, and
  // float32 x * (1/255) * 255 is x for every byte), so the ops see the decoded bytes.
  const std::uint8_t* rgb = frames.rgb.data();
  thread_local std::vector<std::uint8_t> augmented;
  info.augment_ops.clear();
  if (aug.rand_augment) {
    augmented.assign(frames.rgb.begin(),
                     frames.rgb.begin() + static_cast<std::ptrdiff_t>(framePixels * 3 * T));
    info.augment_ops = drawRandAugment(aug.policy, more);
    applyRandAugment(info.augment_ops, augmented.data(), T, H, W, aug.interpolation, more);
    rgb = augmented.data();
  }

  const std::vector<float>& normalised = normalise(p, rgb, T, framePixels);

  info.flipped = p.random_flip && flipFromDraw(0.5, draws.flip);
  const std::size_t outPlane = static_cast<std::size_t>(crop) * crop;
  auto plane = [&](int c, int t) {
    return normalised.data() +
           (static_cast<std::size_t>(c) * T + static_cast<std::size_t>(t)) * framePixels;
  };
  auto target = [&](int c, int t) {
    return out + (static_cast<std::size_t>(c) * T + static_cast<std::size_t>(t)) * outPlane;
  };
  if (aug.relative()) {
    const double s0 = aug.relative_scale[0], s1 = aug.relative_scale[1];
    const double r0 = aug.relative_aspect[0], r1 = aug.relative_aspect[1];
    const CropRect first = relativeCropRect(s0, s1, r0, r1, H, W, more);
    std::vector<CropRect> rects(static_cast<std::size_t>(T), first);
    if (aug.motion_shift)
      rects = motionShiftRects(first, relativeCropRect(s0, s1, r0, r1, H, W, more), T);
    info.region = first;
    info.scaled = {H, W};
    info.box = {first.y, first.x, 0};
    for (int t = 0; t < T; ++t) {
      const CropRect& r = rects[static_cast<std::size_t>(t)];
      // Python slicing: a region running past the frame is cut at its edge.
      const int h = std::min(r.y + r.height, H) - r.y, w = std::min(r.x + r.width, W) - r.x;
      for (int c = 0; c < 3; ++c)
        resizeBilinear(plane(c, t) + static_cast<std::size_t>(r.y) * W + r.x, W, h, w, crop, crop,
                       0, 0, crop, crop, info.flipped, target(c, t));
    }
  } else {
    const int shortSide =
        jitterShortSide(p.jitter_min, p.jitter_max, draws.scale, p.inverse_uniform);
    info.scaled = scaleShortSide({H, W}, shortSide);
    if (info.scaled.height < crop || info.scaled.width < crop) {
      if (error)
        *error = "frames scale to " + std::to_string(info.scaled.width) + "x" +
                 std::to_string(info.scaled.height) + ", smaller than the " + std::to_string(crop) +
                 " px crop; raise the jitter scales or lower the crop size";
      return false;
    }
    info.box = randomCrop(info.scaled, crop, draws.crop_y, draws.crop_x);
    info.region = {info.box.y, info.box.x, crop, crop};
    for (int c = 0; c < 3; ++c)
      for (int t = 0; t < T; ++t)
        resizeBilinear(plane(c, t), W, H, W, info.scaled.height, info.scaled.width, info.box.y,
                       info.box.x, crop, crop, info.flipped, target(c, t));
  }

  info.erased_boxes.clear();
  if (aug.erase) {
    info.erased_boxes = drawEraseBoxes(aug.erasing, crop, crop, more);
    eraseClip(out, 3, T, crop, crop, info.erased_boxes, aug.erasing, more);
  }
  return true;
}

}  // namespace amp::data
