#include "data/AvaTransform.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "config/Config.h"
#include "data/AvaColor.h"
#include "data/Cv2Resize.h"

namespace amp::data {
namespace {

// cv2_transform's colour jitter ratios and PCA jitter strength, fixed in Ava's dataset code.
constexpr double kJitterRatio = 0.4;
constexpr double kLightingStd = 0.1;

std::array<float, 3> floats3(const std::vector<double>& v, std::array<float, 3> fallback) {
  if (v.size() != 3) return fallback;
  return {static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
}

}  // namespace

AvaTransformParams AvaTransformParams::fromConfig(const config::Config& c) {
  // PySlowFast's two image paths (cv2 and pytorch) differ in resize and colour code; the cv2 one
  // (its default) is the one built, and the schema allows no other value.
  if (c.getString("AVA.IMG_PROC_BACKEND") != "cv2")
    throw std::invalid_argument("AVA.IMG_PROC_BACKEND: '" + c.getString("AVA.IMG_PROC_BACKEND") +
                                "' is not built; use cv2");
  AvaTransformParams p;
  p.train_crop = static_cast<int>(c.getInt("DATA.TRAIN_CROP_SIZE"));
  p.test_crop = static_cast<int>(c.getInt("DATA.TEST_CROP_SIZE"));
  const auto jitter = c.getIntList("DATA.TRAIN_JITTER_SCALES");
  if (jitter.size() >= 2) {
    p.jitter_min = static_cast<int>(jitter[0]);
    p.jitter_max = static_cast<int>(jitter[1]);
  }
  p.random_flip = c.getBool("DATA.RANDOM_FLIP");
  p.test_force_flip = c.getBool("AVA.TEST_FORCE_FLIP");
  p.color_augmentation = c.getBool("AVA.TRAIN_USE_COLOR_AUGMENTATION");
  p.pca_jitter_only = c.getBool("AVA.TRAIN_PCA_JITTER_ONLY");
  p.pca_eigval = floats3(c.getFloatList("DATA.TRAIN_PCA_EIGVAL"), p.pca_eigval);
  // A list of lists has no typed getter: read the rows from the value itself, keeping the
  // default for a row that is not three numbers (the schema's type check has seen it already).
  const config::Value& vec = c.get("DATA.TRAIN_PCA_EIGVEC");
  if (vec.is_array() && vec.size() == 3)
    for (std::size_t i = 0; i < 3; ++i) {
      const config::Value& row = vec[i];
      if (!row.is_array() || row.size() != 3) continue;
      for (std::size_t j = 0; j < 3; ++j)
        if (row[j].is_number()) p.pca_eigvec[i][j] = row[j].get<float>();
    }
  p.mean = floats3(c.getFloatList("DATA.MEAN"), p.mean);
  p.std = floats3(c.getFloatList("DATA.STD"), p.std);
  p.bgr = c.getBool("AVA.BGR");
  return p;
}

bool transformAvaClip(const AvaTransformParams& p, Split split, const DecodedClip& frames,
                      std::vector<PixelBox> boxes, DrawSource& draws, AvaClip& out,
                      std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  const int H = frames.height, W = frames.width;
  const std::size_t frameBytes = static_cast<std::size_t>(std::max(H, 0)) * std::max(W, 0) * 3;
  if (frameBytes == 0 || frames.rgb.size() < frameBytes)
    return fail("an AVA clip needs at least one decoded frame");
  const int T = static_cast<int>(frames.rgb.size() / frameBytes);
  const Size in{H, W};

  boxesToPixels(boxes, H, W);
  clipBoxes(boxes, H, W);

  // The short side: a draw in training, TEST_CROP_SIZE otherwise; the frames are scaled only
  // when it changes (cv2_transform returns them untouched otherwise).
  const int shortSide = split == Split::Train
                            ? jitterShortSide(p.jitter_min, p.jitter_max, draws.uniform(), true)
                            : p.test_crop;
  out.scaled = scaleShortSide(in, shortSide);
  if (split == Split::Train) {
    const std::array<int, 2> sides = shortSideBoxSides(in, shortSide);
    scaleBoxes(boxes, sides[0], sides[1]);
  } else {
    scaleBoxes(boxes, shortSideBoxFactor(in, shortSide));
  }
  const std::uint8_t* scaled = frames.rgb.data();
  thread_local std::vector<std::uint8_t> resized;
  if (!(out.scaled == in)) {
    const std::size_t scaledBytes =
        static_cast<std::size_t>(out.scaled.height) * out.scaled.width * 3;
    resized.resize(scaledBytes * static_cast<std::size_t>(T));
    for (int t = 0; t < T; ++t)
      cv2ResizeLinear(frames.rgb.data() + frameBytes * static_cast<std::size_t>(t), H, W, 3,
                      resized.data() + scaledBytes * static_cast<std::size_t>(t), out.scaled.height,
                      out.scaled.width);
    scaled = resized.data();
  }

  // The crop: random in training (numpy's randint(0, n) excludes n), the centre for val, none
  // for test.
  int cropH = out.scaled.height, cropW = out.scaled.width;
  out.crop_x = out.crop_y = 0;
  if (split == Split::Train) {
    const int crop = p.train_crop;
    if (out.scaled.height < crop || out.scaled.width < crop)
      return fail("AVA frames of " + std::to_string(W) + "x" + std::to_string(H) + " scale to " +
                  std::to_string(out.scaled.width) + "x" + std::to_string(out.scaled.height) +
                  ", smaller than the " + std::to_string(crop) +
                  " px crop (DATA.TRAIN_CROP_SIZE); raise DATA.TRAIN_JITTER_SCALES");
    if (out.scaled.height > crop) out.crop_y = randInt(draws, 0, out.scaled.height - crop - 1);
    if (out.scaled.width > crop) out.crop_x = randInt(draws, 0, out.scaled.width - crop - 1);
    cropH = cropW = crop;
  } else if (split == Split::Val) {
    const int crop = p.test_crop;
    // math.ceil((side - size) / 2) with Python's true division.
    out.crop_y = static_cast<int>(std::ceil((out.scaled.height - crop) / 2.0));
    out.crop_x = static_cast<int>(std::ceil((out.scaled.width - crop) / 2.0));
    cropH = cropW = crop;
  }
  cropBoxes(boxes, out.crop_x, out.crop_y);

  out.flipped = split == Split::Train ? p.random_flip && flipFromDraw(0.5, draws.uniform())
                                      : p.test_force_flip;
  if (out.flipped) flipBoxes(boxes, cropW);

  // HWC bytes of the crop (mirrored when flipped) to C x T x H x W floats in [0, 1]: the bytes
  // are what cv2 left as float32 whole numbers, so nothing is lost by keeping them as bytes.
  out.frames = T;
  out.height = cropH;
  out.width = cropW;
  const std::size_t plane = static_cast<std::size_t>(cropH) * cropW;
  out.pixels.resize(3 * plane * static_cast<std::size_t>(T));
  const std::size_t scaledRow = static_cast<std::size_t>(out.scaled.width) * 3;
  const std::size_t scaledFrame = scaledRow * out.scaled.height;
  for (int t = 0; t < T; ++t)
    for (int y = 0; y < cropH; ++y) {
      const std::uint8_t* row = scaled + scaledFrame * static_cast<std::size_t>(t) +
                                scaledRow * static_cast<std::size_t>(out.crop_y + y);
      for (int x = 0; x < cropW; ++x) {
        const int sx = out.crop_x + (out.flipped ? cropW - 1 - x : x);
        const std::uint8_t* px = row + static_cast<std::size_t>(sx) * 3;
        const std::size_t at = static_cast<std::size_t>(y) * cropW + static_cast<std::size_t>(x);
        for (int c = 0; c < 3; ++c)
          out.pixels[(static_cast<std::size_t>(c) * T + static_cast<std::size_t>(t)) * plane + at] =
              static_cast<float>(px[c]) / 255.0f;
      }
    }

  const FloatClip clip{out.pixels.data(), T, cropH, cropW};
  if (split == Split::Train && p.color_augmentation) {
    if (!p.pca_jitter_only) avaColorJitter(clip, kJitterRatio, kJitterRatio, kJitterRatio, draws);
    avaLighting(clip, kLightingStd, p.pca_eigval, p.pca_eigvec, draws);
  }

  // DATA.MEAN and DATA.STD by stored channel (B, G, R), then R, G, B unless AVA.BGR.
  const std::size_t channel = plane * static_cast<std::size_t>(T);
  for (int c = 0; c < 3; ++c) {
    float* v = out.pixels.data() + channel * static_cast<std::size_t>(c);
    const float mean = p.mean[static_cast<std::size_t>(c)],
                stdv = p.std[static_cast<std::size_t>(c)];
    for (std::size_t i = 0; i < channel; ++i) v[i] = (v[i] - mean) / stdv;
  }
  if (!p.bgr)
    std::swap_ranges(out.pixels.begin(), out.pixels.begin() + static_cast<std::ptrdiff_t>(channel),
                     out.pixels.begin() + static_cast<std::ptrdiff_t>(2 * channel));

  clipBoxes(boxes, cropH, cropW);
  out.boxes = std::move(boxes);
  return true;
}

}  // namespace amp::data
