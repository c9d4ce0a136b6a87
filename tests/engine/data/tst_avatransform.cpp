#include <QtTest>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "data/AvaBoxOps.h"
#include "data/AvaColor.h"
#include "data/AvaTransform.h"
#include "data/Cv2Resize.h"

using namespace amp::data;

namespace {

// A 5 x 4 frame of scrambled bytes; the results below are OpenCV 4.6's cv2.resize of it
// (python3-opencv of Debian 12, INTER_LINEAR).
std::vector<std::uint8_t> smallFrame() {
  std::vector<std::uint8_t> f;
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 3; ++c)
        f.push_back(static_cast<std::uint8_t>(((x * 37 + y * 91 + c * 53) ^ (x * y * 13)) % 256));
  return f;
}

std::vector<std::uint8_t> pattern(int h, int w, int (*value)(int y, int x, int c)) {
  std::vector<std::uint8_t> f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) f.push_back(static_cast<std::uint8_t>(value(y, x, c) % 256));
  return f;
}

std::int64_t sum(const std::vector<std::uint8_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t(0));
}

// Two 240 x 320 BGR frames whose byte at (t, y, x, c) is (3x + 5y + 50c + 7t) % 256.
DecodedClip twoFrames() {
  DecodedClip clip;
  clip.height = 240;
  clip.width = 320;
  for (int t = 0; t < 2; ++t)
    for (int y = 0; y < 240; ++y)
      for (int x = 0; x < 320; ++x)
        for (int c = 0; c < 3; ++c)
          clip.rgb.push_back(static_cast<std::uint8_t>((3 * x + 5 * y + 50 * c + 7 * t) % 256));
  return clip;
}

// (byte / 255 - 0.45) / 0.225 in float32, as the transform normalises.
float normalised(int byte) {
  return (static_cast<float>(byte) / 255.0f - 0.45f) / 0.225f;
}

void compareBox(const PixelBox& got, const PixelBox& want) {
  for (std::size_t i = 0; i < 4; ++i)
    if (std::abs(got[i] - want[i]) > 1e-9)
      QFAIL(qPrintable(QString("coordinate %1: got %2, want %3")
                           .arg(i)
                           .arg(got[i], 0, 'g', 17)
                           .arg(want[i], 0, 'g', 17)));
}

}  // namespace

class TestAvaTransform : public QObject {
  Q_OBJECT
 private slots:
  void cv2ResizeMatchesOpenCv() {
    const std::vector<std::uint8_t> src = smallFrame();
    std::vector<std::uint8_t> up(3 * 7 * 3);
    cv2ResizeLinear(src.data(), 4, 5, 3, up.data(), 3, 7);
    QCOMPARE(up, (std::vector<std::uint8_t>{
                     15,  68,  121, 37,  90,  142, 65,  115, 156, 93,  138, 153, 121, 163, 175, 144,
                     171, 204, 160, 170, 230, 137, 190, 115, 154, 136, 142, 154, 97,  133, 122, 97,
                     58,  157, 112, 92,  152, 76,  131, 127, 20,  165, 44,  97,  108, 45,  79,  119,
                     40,  99,  129, 26,  185, 131, 166, 169, 155, 150, 120, 162, 53,  62,  159}));
    std::vector<std::uint8_t> tall(6 * 4 * 3);
    cv2ResizeLinear(src.data(), 4, 5, 3, tall.data(), 6, 4);
    QCOMPARE(tall, (std::vector<std::uint8_t>{
                       5,   58,  110, 51,  104, 157, 97,  150, 203, 143, 196, 249, 51,  103, 156,
                       105, 145, 154, 158, 179, 111, 182, 119, 173, 112, 158, 174, 156, 157, 143,
                       197, 175, 42,  191, 38,  117, 169, 197, 67,  143, 37,  104, 108, 45,  133,
                       73,  26,  197, 100, 139, 82,  79,  69,  116, 124, 108, 154, 62,  54,  183,
                       17,  71,  124, 18,  131, 136, 161, 203, 151, 80,  85,  148}));
    std::vector<std::uint8_t> flat(2 * 5 * 3);
    cv2ResizeLinear(src.data(), 4, 5, 3, flat.data(), 2, 5);
    QCOMPARE(flat, (std::vector<std::uint8_t>{46,  99,  152, 89,  137, 187, 133, 160, 101, 174,
                                              190, 118, 184, 109, 182, 100, 153, 78,  105, 43,
                                              115, 37,  112, 117, 176, 106, 176, 46,  47,  184}));
  }

  // Larger frames, where OpenCV's 16-byte vertical pass and its right-edge columns matter, and
  // an exact halving (cv2 takes INTER_AREA's 2x2 mean then): sums and a few bytes from cv2.
  void cv2ResizeMatchesOpenCvOnLargerFrames() {
    const auto big =
        pattern(30, 40, [](int y, int x, int c) { return x * x * 7 + y * 29 + c * 101 + x * y; });
    std::vector<std::uint8_t> out(17 * 53 * 3);
    cv2ResizeLinear(big.data(), 30, 40, 3, out.data(), 17, 53);
    QCOMPARE(sum(out), std::int64_t(342485));
    auto at = [&](int y, int x, int c) {
      return int(out[(static_cast<std::size_t>(y) * 53 + x) * 3 + c]);
    };
    QCOMPARE(at(0, 0, 0), 11);
    QCOMPARE(at(16, 52, 2), 93);
    QCOMPARE(at(8, 26, 1), 76);
    QCOMPARE(at(3, 50, 0), 135);
    std::vector<std::uint8_t> half(15 * 20 * 3);
    cv2ResizeLinear(big.data(), 30, 40, 3, half.data(), 15, 20);
    QCOMPARE(sum(half), std::int64_t(113786));
    QCOMPARE(int(half[(7 * 20 + 9) * 3 + 2]), 88);
  }

  // Each box operation by hand.
  void boxOperations() {
    std::vector<PixelBox> boxes{{0.1, 0.2, 0.5, 0.9}};
    boxesToPixels(boxes, 240, 320);
    compareBox(boxes[0], {32, 48, 160, 216});
    std::vector<PixelBox> outside{{-5, 10, 400, 300}};
    clipBoxes(outside, 240, 320);
    compareBox(outside[0], {0, 10, 319, 239});
    // 320 x 240 to short side 256: the long side floor(320 / 240 x 256) = 341, factor 341/320.
    QCOMPARE(shortSideBoxFactor({240, 320}, 256), 341.0 / 320.0);
    QCOMPARE(shortSideBoxFactor({320, 240}, 256), 341.0 / 320.0);
    QCOMPARE(shortSideBoxFactor({240, 320}, 240), 1.0);
    QCOMPARE(shortSideBoxFactor({100, 100}, 50), 0.5);
    QCOMPARE(shortSideBoxSides({240, 320}, 256), (std::array<int, 2>{341, 320}));
    QCOMPARE(shortSideBoxSides({240, 320}, 240), (std::array<int, 2>{1, 1}));
    // Training multiplies, then divides (PySlowFast's proposal * new / old): 0.7 x 341 / 320
    // and 0.7 x (341 / 320) differ in the last bit.
    std::vector<PixelBox> jittered{{0.7, 0.7, 0.7, 0.7}};
    scaleBoxes(jittered, 341, 320);
    QCOMPARE(jittered[0][0], 0.7 * 341 / 320);
    QVERIFY(0.7 * 341 / 320 != 0.7 * (341.0 / 320));
    cropBoxes(boxes, 10, 20);
    compareBox(boxes[0], {22, 28, 150, 196});
    flipBoxes(boxes, 224);
    compareBox(boxes[0], {73, 28, 201, 196});
    scaleBoxes(boxes, 0.5);
    compareBox(boxes[0], {36.5, 14, 100.5, 98});
  }

  // Training: scale draw 0 gives short side 320 (1 / (1/320)): 240 x 320 -> 320 x 426, boxes
  // x 426/320; crop y = floor(0.5 x 96) = 48, x = floor(0.25 x 202) = 50; flip (0.3 < 0.5) at
  // width 224; clipped to 0 .. 223.
  void trainingScalesCropsAndFlipsBoxes() {
    AvaTransformParams p;
    p.jitter_min = 256;
    p.jitter_max = 320;
    p.train_crop = 224;
    FixedDraws draws({0.0, 0.5, 0.25, 0.3});
    AvaClip clip;
    std::string error;
    QVERIFY2(
        transformAvaClip(p, Split::Train, twoFrames(), {{0.1, 0.2, 0.5, 0.9}}, draws, clip, &error),
        error.c_str());
    QCOMPARE(draws.used(), std::size_t(4));
    QCOMPARE(draws.overrun(), std::size_t(0));
    QCOMPARE(clip.scaled, (Size{320, 426}));
    QCOMPARE(clip.crop_y, 48);
    QCOMPARE(clip.crop_x, 50);
    QVERIFY(clip.flipped);
    QCOMPARE(clip.frames, 2);
    QCOMPARE(clip.height, 224);
    QCOMPARE(clip.width, 224);
    QCOMPARE(clip.pixels.size(), std::size_t(3 * 2 * 224 * 224));
    // {32, 48, 160, 216} x 1.33125 = {42.6, 63.9, 213, 287.55}; - (50, 48) = {-7.4, 15.9, 163,
    // 239.55}; flipped at 224: {60, 15.9, 230.4, 239.55}; clipped: {60, 15.9, 223, 223}.
    QCOMPARE(clip.boxes.size(), std::size_t(1));
    const double f = 426.0 / 320.0;
    compareBox(clip.boxes[0], {224 - (160 * f - 50) - 1, 48 * f - 48, 223, 223});
    QCOMPARE(224 - (160 * f - 50) - 1, 60.0);
  }

  // Without scaling (the short side already drawn), the pixels are the crop of the frame,
  // mirrored, normalised, with B, G, R reversed to R, G, B.
  void trainingPixelsAreTheMirroredCrop() {
    AvaTransformParams p;
    p.jitter_min = p.jitter_max = 240;
    p.train_crop = 224;
    FixedDraws draws({0.5, 0.5, 0.5, 0.1});  // y = 8, x = 48, flipped
    AvaClip clip;
    std::string error;
    const DecodedClip frames = twoFrames();
    QVERIFY2(transformAvaClip(p, Split::Train, frames, {{0, 0, 1, 1}}, draws, clip, &error),
             error.c_str());
    QCOMPARE(clip.scaled, (Size{240, 320}));
    QCOMPARE(clip.crop_y, 8);
    QCOMPARE(clip.crop_x, 48);
    QVERIFY(clip.flipped);
    const std::size_t plane = 224 * 224;
    auto out = [&](int c, int t, int y, int x) {
      return clip.pixels[(static_cast<std::size_t>(c) * 2 + t) * plane +
                         static_cast<std::size_t>(y) * 224 + x];
    };
    auto source = [&](int c, int t, int y, int x) {
      return int(frames.rgb[((static_cast<std::size_t>(t) * 240 + y) * 320 + x) * 3 + c]);
    };
    // Output (y, x) shows frame (8 + y, 48 + 223 - x); output channel 0 is stored channel 2.
    QCOMPARE(out(0, 0, 0, 0), normalised(source(2, 0, 8, 48 + 223)));
    QCOMPARE(out(2, 1, 10, 5), normalised(source(0, 1, 18, 48 + 218)));
    QCOMPARE(out(1, 1, 223, 223), normalised(source(1, 1, 231, 48)));
    // The whole frame as a box: {0, 0, 320, 240} clipped to {0, 0, 319, 239}; - (48, 8):
    // {-48, -8, 271, 231}; flipped: {-48, -8, 271, 231}; clipped to {0, 0, 223, 223}.
    compareBox(clip.boxes[0], {0, 0, 223, 223});

    p.bgr = true;  // AVA.BGR keeps the stored order
    FixedDraws again({0.5, 0.5, 0.5, 0.9});
    QVERIFY(transformAvaClip(p, Split::Train, frames, {{0, 0, 1, 1}}, again, clip, &error));
    QVERIFY(!clip.flipped);
    QCOMPARE(out(0, 0, 0, 0), normalised(source(0, 0, 8, 48)));
  }

  // Validation: short side to TEST_CROP_SIZE (240 x 320 -> 224 x 298, boxes x 298/320), the
  // centre crop x = ceil(74 / 2) = 37, y = 0; no draws. AVA.TEST_FORCE_FLIP flips at 224.
  void validationScalesAndCentreCrops() {
    AvaTransformParams p;
    p.test_crop = 224;
    FixedDraws draws({});
    AvaClip clip;
    std::string error;
    QVERIFY2(
        transformAvaClip(p, Split::Val, twoFrames(), {{0.1, 0.2, 0.5, 0.9}}, draws, clip, &error),
        error.c_str());
    QCOMPARE(draws.used() + draws.overrun(), std::size_t(0));
    QCOMPARE(clip.scaled, (Size{224, 298}));
    QCOMPARE(clip.crop_x, 37);
    QCOMPARE(clip.crop_y, 0);
    QCOMPARE(clip.width, 224);
    // {32, 48, 160, 216} x 0.93125 = {29.8, 44.7, 149, 201.15}; - 37: {-7.2, 44.7, 112,
    // 201.15}; clipped: {0, 44.7, 112, 201.15}.
    const double f = 298.0 / 320.0;
    compareBox(clip.boxes[0], {0, 48 * f, 160 * f - 37, 216 * f});

    p.test_force_flip = true;
    QVERIFY(
        transformAvaClip(p, Split::Val, twoFrames(), {{0.1, 0.2, 0.5, 0.9}}, draws, clip, &error));
    QVERIFY(clip.flipped);
    // Flipped at 224 before the last clip: {224 - 112 - 1, .., 224 + 7.2 - 1, ..} -> x2 = 223.
    compareBox(clip.boxes[0], {224 - (160 * f - 37) - 1, 48 * f, 223, 216 * f});
    QCOMPARE(draws.used() + draws.overrun(), std::size_t(0));
  }

  // Test: only the short-side scaling (the clip keeps the aspect ratio); its pixels are cv2's
  // resize of the frame (sum and bytes from OpenCV itself).
  void testScalesWithoutCrop() {
    AvaTransformParams p;
    p.test_crop = 224;
    p.bgr = true;
    FixedDraws draws({});
    AvaClip clip;
    std::string error;
    DecodedClip one;
    one.height = 240;
    one.width = 320;
    one.rgb = pattern(240, 320, [](int y, int x, int c) { return x * 3 + y * 5 + c * 50; });
    QVERIFY2(transformAvaClip(p, Split::Test, one, {{0.1, 0.2, 0.5, 0.9}}, draws, clip, &error),
             error.c_str());
    QCOMPARE(clip.height, 224);
    QCOMPARE(clip.width, 298);
    QCOMPARE(clip.frames, 1);
    const double f = 298.0 / 320.0;
    compareBox(clip.boxes[0], {32 * f, 48 * f, 160 * f, 216 * f});
    std::vector<std::uint8_t> resized(224 * 298 * 3);
    cv2ResizeLinear(one.rgb.data(), 240, 320, 3, resized.data(), 224, 298);
    QCOMPARE(sum(resized), std::int64_t(25521914));
    QCOMPARE(int(resized[(100 * 298 + 150) * 3 + 0]), 246);
    QCOMPARE(int(resized[(223 * 298 + 297) * 3 + 2]), 204);
    const std::size_t plane = 224 * 298;
    QCOMPARE(clip.pixels[100 * 298 + 150], normalised(246));
    QCOMPARE(clip.pixels[2 * plane + 223 * 298 + 297], normalised(204));
  }

  void framesTooSmallForTheCropAreRefused() {
    AvaTransformParams p;
    p.jitter_min = p.jitter_max = 100;
    p.train_crop = 224;
    FixedDraws draws({0.5});
    AvaClip clip;
    std::string error;
    QVERIFY(!transformAvaClip(p, Split::Train, twoFrames(), {}, draws, clip, &error));
    QVERIFY2(QString::fromStdString(error).contains("smaller than the 224 px crop"), error.c_str());
    QVERIFY(!transformAvaClip(p, Split::Train, DecodedClip{}, {}, draws, clip, &error));
  }

  // Brightness alone (no order to draw): alpha = 1 + uniform(-0.4, 0.4) = 1.2 at draw 0.75.
  void brightnessScales() {
    std::vector<float> px(3 * 2 * 4, 0.5f);
    FixedDraws draws({0.75});
    avaColorJitter({px.data(), 2, 2, 2}, 0.4, 0, 0, draws);
    QCOMPARE(draws.used(), std::size_t(1));
    for (float v : px) QCOMPARE(v, 0.5f * 1.2f);
  }

  // Contrast blends each frame with the mean of its own gray image; a gray pixel keeps its
  // value under saturation (0.299 + 0.587 + 0.114 = 1).
  void contrastUsesEachFramesMean() {
    // One frame, 1 x 2 pixels, B = G = R: values 0.2 and 0.6 (mean 0.4).
    std::vector<float> px{0.2f, 0.6f, 0.2f, 0.6f, 0.2f, 0.6f};
    FixedDraws draws({0.25});  // alpha = 1 - 0.2 = 0.8
    avaColorJitter({px.data(), 1, 1, 2}, 0, 0.4, 0, draws);
    QVERIFY(std::abs(px[0] - (0.2f * 0.8f + 0.4f * 0.2f)) < 1e-6f);
    QVERIFY(std::abs(px[1] - (0.6f * 0.8f + 0.4f * 0.2f)) < 1e-6f);
    std::vector<float> gray{0.3f, 0.3f, 0.3f};
    FixedDraws more({0.9});
    avaColorJitter({gray.data(), 1, 1, 1}, 0, 0, 0.4, more);
    for (float v : gray) QVERIFY(std::abs(v - 0.3f) < 1e-6f);
    // All three: two draws order them (Fisher-Yates), three draw their alphas.
    FixedDraws all({0.0, 0.0, 0.5, 0.5, 0.5});
    avaColorJitter({gray.data(), 1, 1, 1}, 0.4, 0.4, 0.4, all);
    QCOMPARE(all.used(), std::size_t(5));
  }

  // PCA lighting with every alpha 0.1 (draws 1 - e^-0.5 and 0 make a standard normal of 1): rgb
  // = 0.1 x eigvec . eigval = {0.01252194, -0.0318094, -0.01906965}; B gets rgb[2], R rgb[0].
  void lightingAddsThePcaOffsetInBgrOrder() {
    AvaTransformParams p;
    std::vector<float> px(3, 0.5f);
    const double u = 1.0 - std::exp(-0.5);
    FixedDraws draws({u, 0.0, u, 0.0, u, 0.0});
    avaLighting({px.data(), 1, 1, 1}, 0.1, p.pca_eigval, p.pca_eigvec, draws);
    QCOMPARE(draws.used(), std::size_t(6));
    QVERIFY(std::abs(px[0] - (0.5f - 0.01906965f)) < 1e-6f);
    QVERIFY(std::abs(px[1] - (0.5f - 0.0318094f)) < 1e-6f);
    QVERIFY(std::abs(px[2] - (0.5f + 0.01252194f)) < 1e-6f);
  }

  // Colour augmentation in training takes its draws after the flip: PCA only, 6 more.
  void trainingDrawsColourAfterTheFlip() {
    AvaTransformParams p;
    p.jitter_min = p.jitter_max = 240;
    p.color_augmentation = true;
    FixedDraws draws({0.5, 0.5, 0.5, 0.9, 0.3, 0.5, 0.3, 0.5, 0.3, 0.5});
    AvaClip clip;
    std::string error;
    QVERIFY(transformAvaClip(p, Split::Train, twoFrames(), {}, draws, clip, &error));
    QCOMPARE(draws.used(), std::size_t(10));
    p.pca_jitter_only = false;  // then the jitter's order (2) and alphas (3) come first
    FixedDraws more(std::vector<double>(15, 0.5));
    QVERIFY(transformAvaClip(p, Split::Train, twoFrames(), {}, more, clip, &error));
    QCOMPARE(more.used(), std::size_t(15));
  }
};

QTEST_GUILESS_MAIN(TestAvaTransform)
#include "tst_avatransform.moc"
