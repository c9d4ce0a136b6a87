#include <QtTest>

#include <cmath>

#include "configfile/ConfigLoader.h"
#include "data/AugmentParams.h"
#include "data/ClipSampler.h"
#include "data/RandAugment.h"
#include "data/RandomErasing.h"
#include "data/ResizedCrop.h"
#include "data/TrainTransform.h"

using namespace amp::data;

namespace {

RandAugmentPolicy parsed(const std::string& text) {
  RandAugmentPolicy p;
  std::string error;
  if (!parseRandAugment(text, p, &error)) qFatal("%s", error.c_str());
  return p;
}

std::string parseError(const std::string& text) {
  RandAugmentPolicy p;
  std::string error;
  return parseRandAugment(text, p, &error) ? std::string() : error;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

amp::config::Config mvitConfig(std::vector<std::string> overrides = {}) {
  auto r = amp::config::ConfigLoader().loadFile(
      std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/MVITv2_S_16x4.yaml", overrides);
  if (!r.ok()) qFatal("MViTv2-S config does not load");
  return r.config;
}

std::string fromConfigError(std::vector<std::string> overrides) {
  try {
    AugmentParams::fromConfig(mvitConfig(std::move(overrides)));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestAugment : public QObject {
  Q_OBJECT
 private slots:
  // --- AUG.AA_TYPE ---------------------------------------------------------------------------
  void parsesPySlowFastPolicies() {
    auto p = parsed("rand-m7-n4-mstd0.5-inc1");
    QCOMPARE(p.magnitude, 7);
    QCOMPARE(p.num_layers, 4);
    QCOMPARE(p.magnitude_std, 0.5);
    QVERIFY(p.increasing && !p.weighted);
    QCOMPARE(p.ops.size(), std::size_t(15));
    QCOMPARE(p.ops[4], AugOp::PosterizeIncreasing);
    QCOMPARE(p.ops[10], AugOp::SharpnessIncreasing);
    p = parsed("rand-m9-mstd0.5");  // n defaults to 2, the plain set
    QCOMPARE(p.num_layers, 2);
    QVERIFY(!p.increasing);
    QCOMPARE(p.ops[4], AugOp::Posterize);
    p = parsed("rand");  // magnitude 10, 2 ops, no noise
    QCOMPARE(p.magnitude, 10);
    QCOMPARE(p.magnitude_std, 0.0);
    p = parsed("rand-mstd1-w0-mstd3");  // hparams.setdefault: the first mstd wins
    QCOMPARE(p.magnitude_std, 1.0);
    QVERIFY(p.weighted);
    QVERIFY(parsed("rand-inc0").increasing);  // bool("0") is True in Python
  }

  void refusesWhatPySlowFastRefusesOrIgnores() {
    QVERIFY(contains(parseError("augmix-m5"), "AUG.AA_TYPE 'augmix-m5'"));
    QVERIFY(contains(parseError("augmix-m5"), "first section must be 'rand'"));
    QVERIFY(contains(parseError("rand-m7.5"), "'m7.5'"));
    QVERIFY(contains(parseError("rand-m7.5"), "not a whole number"));
    QVERIFY(contains(parseError("rand-mstd0.5x"), "'mstd0.5x'"));
    QVERIFY(contains(parseError("rand-w1"), "w0"));
    QVERIFY(contains(parseError("rand-m9-mmax10"), "'mmax10'"));
    QVERIFY(contains(parseError("rand-m9-mmax10"), "timm"));
    QVERIFY(contains(parseError("rand-p0.5"), "'p0.5' has no effect"));
    QVERIFY(contains(parseError("rand-m9-foo"), "'foo'"));
    QVERIFY(contains(parseError("rand-n14-w0"), "without replacement"));
  }

  // --- magnitude -> argument -----------------------------------------------------------------
  void magnitudeToArgument() {
    QCOMPARE(augOpArgument(AugOp::Rotate, 7, false), 21.0);
    QCOMPARE(augOpArgument(AugOp::Rotate, 7, true), -21.0);
    QCOMPARE(augOpArgument(AugOp::ShearX, 7, false), 0.21);
    QCOMPARE(augOpArgument(AugOp::ShearY, 7, true), -0.21);
    QCOMPARE(augOpArgument(AugOp::TranslateXRel, 7, false), 0.315);
    QCOMPARE(augOpArgument(AugOp::Posterize, 7, false), 2.0);            // int(2.8)
    QCOMPARE(augOpArgument(AugOp::PosterizeIncreasing, 7, false), 2.0);  // 4 - int(2.8)
    QCOMPARE(augOpArgument(AugOp::PosterizeIncreasing, 10, false), 0.0);
    QCOMPARE(augOpArgument(AugOp::Solarize, 7, false), 179.0);           // int(179.2)
    QCOMPARE(augOpArgument(AugOp::SolarizeIncreasing, 7, false), 77.0);  // 256 - 179
    QCOMPARE(augOpArgument(AugOp::SolarizeAdd, 7, false), 77.0);
    QCOMPARE(augOpArgument(AugOp::Color, 7, false), 1.36);
    QCOMPARE(augOpArgument(AugOp::Sharpness, 0, false), 0.1);
    QCOMPARE(augOpArgument(AugOp::ContrastIncreasing, 7, false), 1.63);
    QCOMPARE(augOpArgument(AugOp::BrightnessIncreasing, 7, true), 1.0 - 0.63);
    QVERIFY(augOpNegates(AugOp::ColorIncreasing) && !augOpNegates(AugOp::Color) &&
            !augOpNegates(AugOp::Solarize));
  }

  // What the clip preview and `data preview` print for each applied op.
  void opsAreNamedWithTheirArguments() {
    QCOMPARE(describeAugOp({AugOp::Rotate, -21.0}), std::string("Rotate -21.0\u00b0"));
    QCOMPARE(describeAugOp({AugOp::ShearY, 0.21}), std::string("ShearY +0.210"));
    QCOMPARE(describeAugOp({AugOp::TranslateXRel, -0.315}),
             std::string("TranslateXRel -31.5% of the width"));
    QCOMPARE(describeAugOp({AugOp::TranslateYRel, 0.045}),
             std::string("TranslateYRel +4.5% of the height"));
    QCOMPARE(describeAugOp({AugOp::Posterize, 2.0}), std::string("Posterize 2 bits"));
    QCOMPARE(describeAugOp({AugOp::PosterizeIncreasing, 1.0}),
             std::string("PosterizeIncreasing 1 bit"));
    QCOMPARE(describeAugOp({AugOp::Solarize, 179.0}), std::string("Solarize from 179"));
    QCOMPARE(describeAugOp({AugOp::SolarizeAdd, 77.0}), std::string("SolarizeAdd +77 below 128"));
    QCOMPARE(describeAugOp({AugOp::BrightnessIncreasing, 1.0 - 0.63}),
             std::string("BrightnessIncreasing x0.37"));
    QCOMPARE(describeAugOp({AugOp::Color, 1.36}), std::string("Color x1.36"));
    QCOMPARE(describeAugOp({AugOp::Equalize, 0}), std::string("Equalize"));
  }

  // --- one clip's draw of operations -----------------------------------------------------------
  void drawsOpsThenPerOpApplyNoiseAndSign() {
    const auto p = parsed("rand-m9-n3-inc1");
    // choices: index 0 (AutoContrast), 3 (Rotate), 13 (TranslateXRel); then per op: apply draw,
    // the sign draw for the ops that negate.
    FixedDraws d({0.0, 3.5 / 15, 13.2 / 15, 0.3, 0.2, 0.7, 0.9});
    const auto ops = drawRandAugment(p, d);
    QCOMPARE(ops.size(), std::size_t(2));  // TranslateXRel skipped: 0.9 > 0.5
    QCOMPARE(ops[0].op, AugOp::AutoContrast);
    QCOMPARE(ops[1].op, AugOp::Rotate);
    QCOMPARE(ops[1].arg, -27.0);  // 0.7 > 0.5 negates
    QCOMPARE(d.used(), std::size_t(7));
    QCOMPARE(d.overrun(), std::size_t(0));
  }

  void magnitudeNoiseIsClipped() {
    // Box-Muller with u1 = 1 - e^-2, u2 = 0 gives +2 standard deviations.
    const double plus2 = 1.0 - std::exp(-2.0);
    FixedDraws d({0.0, 0.1, plus2, 0.0});
    const auto ops = drawRandAugment(parsed("rand-m9-n1-mstd0.25"),
                                     d);  // AutoContrast ... take Solarize instead
    QCOMPARE(ops.size(), std::size_t(1));
    FixedDraws s({5.5 / 15, 0.1, plus2, 0.0});  // Solarize: 9 + 0.25 * 2 = 9.5 -> int(243.2)
    QCOMPARE(drawRandAugment(parsed("rand-m9-n1-mstd0.25"), s)[0].arg, 243.0);
    FixedDraws c({5.5 / 15, 0.1, plus2, 0.0});  // 10 + 0.5 * 2 = 11, clipped to 10 -> 256
    QCOMPARE(drawRandAugment(parsed("rand-m10-n1-mstd0.5"), c)[0].arg, 256.0);
  }

  void weightedChoiceHasNoRepeats() {
    FixedDraws d({0.0, 0.0, 0.0, 0.4, 0.4, 0.4});
    const auto ops = drawRandAugment(parsed("rand-n3-w0"), d);
    QCOMPARE(ops.size(), std::size_t(3));
    QCOMPARE(ops[0].op, AugOp::AutoContrast);  // first weight above 0
    QCOMPARE(ops[1].op, AugOp::Equalize);      // AutoContrast is used up; Invert weighs 0
    QCOMPARE(ops[2].op, AugOp::Rotate);
  }

  void everyFrameGetsTheSameOps() {
    std::vector<std::uint8_t> frames(2 * 4 * 5 * 3);
    for (std::size_t i = 0; i < frames.size() / 2; ++i)
      frames[i] = frames[i + frames.size() / 2] = static_cast<std::uint8_t>(i * 7);
    FixedDraws d({0.5, 0.5});  // the per-frame filter draws of a random interpolation
    applyRandAugment({{AugOp::ShearX, 0.3}, {AugOp::Invert, 0}}, frames.data(), 2, 4, 5,
                     AugInterpolation::Random, d);
    QVERIFY(std::equal(frames.begin(), frames.begin() + 60, frames.begin() + 60));
    QCOMPARE(d.used(), std::size_t(2));  // one filter draw per frame, only for the shear
  }

  // --- relative random resized crop ----------------------------------------------------------
  void relativeCropFromDraws() {
    // area (0.08 + 0.92 * 0.5) * 100 * 200 = 10800, aspect 1.3333: w = round(120.0), h =
    // round(90.0); offsets randint(0, 10) -> 5, randint(0, 80) -> 20.
    FixedDraws d({0.5, 1.0, 0.5, 0.25});
    QCOMPARE(relativeCropRect(0.08, 1.0, 0.75, 1.3333, 100, 200, d), (CropRect{5, 20, 90, 120}));
    QCOMPARE(d.used(), std::size_t(4));
  }

  void relativeCropFallsBackToTheCentre() {
    FixedDraws wide(
        std::vector<double>(20, 0.5));  // areas of 2.5 frames never fit: 10 tries, 2 draws each
    QCOMPARE(relativeCropRect(2.0, 3.0, 0.75, 1.3333, 100, 200, wide), (CropRect{0, 33, 100, 133}));
    QCOMPARE(wide.used(), std::size_t(20));
    FixedDraws tall(std::vector<double>(20, 0.5));
    QCOMPARE(relativeCropRect(2.0, 3.0, 0.75, 1.3333, 200, 100, tall), (CropRect{33, 0, 133, 100}));
    FixedDraws square(std::vector<double>(20, 0.5));
    QCOMPARE(relativeCropRect(2.0, 3.0, 0.75, 1.3333, 90, 100, square), (CropRect{0, 0, 90, 100}));
  }

  void motionShiftInterpolatesAndTruncates() {
    const auto r = motionShiftRects({0, 0, 10, 20}, {9, 5, 4, 8}, 4);
    QCOMPARE(r.size(), std::size_t(4));
    QCOMPARE(r[0], (CropRect{0, 0, 10, 20}));
    QCOMPARE(r[1], (CropRect{3, 1, 8, 16}));  // x: 1.667 -> 1
    QCOMPARE(r[2], (CropRect{6, 3, 6, 12}));  // x: 3.333 -> 3
    QCOMPARE(r[3], (CropRect{9, 5, 4, 8}));
  }

  // --- bilinear resize (torch, align_corners=False) ------------------------------------------
  void bilinearUpscaleByHand() {
    const float src[4] = {0, 10, 20, 30};
    float out[16];
    resizeBilinear(src, 2, 2, 2, 4, 4, 0, 0, 4, 4, false, out);
    // source positions 0 (clamped from -0.25), 0.25, 0.75, 1.25 (edge): weights 0, .25, .75, 1
    const float expected[16] = {0,  2.5,  7.5,  10, 5,  7.5,  12.5, 15,
                                15, 17.5, 22.5, 25, 20, 22.5, 27.5, 30};
    for (int i = 0; i < 16; ++i) QCOMPARE(out[i], expected[i]);
  }

  void bilinearDownscaleWindowAndFlip() {
    const float src[8] = {0, 1, 2, 3, 10, 11, 12, 13};  // 2 x 4
    float out[2];
    resizeBilinear(src, 4, 2, 4, 2, 2, 0, 0, 1, 2, false,
                   out);  // row 0 at 0 (clamped): cols at 0.5, 2.5
    QCOMPARE(out[0], 0.5f);
    QCOMPARE(out[1], 2.5f);
    resizeBilinear(src, 4, 2, 4, 2, 2, 1, 0, 1, 2, true, out);  // row 1 at 1 (edge), mirrored
    QCOMPARE(out[0], 12.5f);
    QCOMPARE(out[1], 10.5f);
    float same[8];
    resizeBilinear(src, 4, 2, 4, 2, 4, 0, 0, 2, 4, false, same);  // equal size copies
    QVERIFY(std::equal(src, src + 8, same));
  }

  // --- random erasing ------------------------------------------------------------------------
  void erasingBoxesFromDraws() {
    ErasingParams p;
    p.probability = 0.25;
    FixedDraws skip({0.3});
    QVERIFY(drawEraseBoxes(p, 20, 20, skip).empty());
    QCOMPARE(skip.used(), std::size_t(1));
    // area (0.02 + (1/3 - 0.02) * 0.5) * 400 = 70.67, aspect 1: sides round(8.41) = 8;
    // top randint(0, 12) -> 6, left randint(0, 12) -> 0
    FixedDraws one({0.1, 0.5, 0.5, 0.5, 0.0});
    QCOMPARE(drawEraseBoxes(p, 20, 20, one), (std::vector<EraseBox>{{6, 0, 8, 8}}));
    p.max_count = 3;  // randint(1, 3) boxes, each of a third of the area
    FixedDraws three({0.1, 0.99, 0.5, 0.5, 0.5, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.5, 0.99, 0.99});
    const auto boxes = drawEraseBoxes(p, 20, 20, three);
    QCOMPARE(boxes.size(), std::size_t(3));
    QCOMPARE(boxes[0], (EraseBox{8, 0, 5, 5}));  // round(sqrt(23.56)) = 5, randint(0, 15) -> 8
    QCOMPARE(boxes[1], (EraseBox{0, 8, 5, 5}));
    QCOMPARE(boxes[2], (EraseBox{15, 15, 5, 5}));
  }

  void erasingSplitsSkipTheFirstFrames() {
    ErasingParams p;
    p.num_splits = 2;
    QCOMPARE(firstErasedFrame(p, 8), 4);  // kinetics.py passes num_splits = RE_COUNT
    p.num_splits = 1;
    QCOMPARE(firstErasedFrame(p, 8), 0);
    p.num_splits = 3;
    QCOMPARE(firstErasedFrame(p, 16), 5);
  }

  void erasingFillsTheBoxInEachErasedFrame() {
    const int C = 3, T = 4, H = 6, W = 5;
    std::vector<float> clip(static_cast<std::size_t>(C * T * H * W), 7.0f);
    ErasingParams p;
    p.mode = EraseMode::Const;
    p.num_splits = 2;
    Draws d(1, 2, 3, 4);
    eraseClip(clip.data(), C, T, H, W, {{1, 2, 3, 2}}, p, d);
    for (int c = 0; c < C; ++c)
      for (int t = 0; t < T; ++t)
        for (int y = 0; y < H; ++y)
          for (int x = 0; x < W; ++x) {
            const bool inside = t >= 2 && y >= 1 && y < 4 && x >= 2 && x < 4;
            QCOMPARE(clip[static_cast<std::size_t>(((c * T + t) * H + y) * W + x)],
                     inside ? 0.0f : 7.0f);
          }
    p.mode = EraseMode::Pixel;
    p.num_splits = 1;
    std::fill(clip.begin(), clip.end(), 7.0f);
    eraseClip(clip.data(), C, T, H, W, {{0, 0, 2, 2}}, p, d);
    QVERIFY(clip[0] != 7.0f && clip[0] != clip[1]);             // per-pixel noise
    QVERIFY(clip[0] != clip[static_cast<std::size_t>(H * W)]);  // and new noise in the next frame
    QCOMPARE(clip[2], 7.0f);
    EraseMode m;
    QVERIFY(parseEraseMode("PIXEL", m) && m == EraseMode::Pixel);
    QVERIFY(parseEraseMode("", m) && m == EraseMode::Const);
    QVERIFY(!parseEraseMode("noise", m));
  }

  // --- one training copy from decoded frames -------------------------------------------------
  void trainCopyCutsTheDrawnRegion() {
    // 2 frames of 4 x 6; mean 0, std 1, so values are bytes / 255. A 2 x 2 relative crop at
    // (1, 2) resized to the 2 px crop is a plain copy of that region; the flip mirrors it.
    DecodedClip frames;
    frames.height = 4;
    frames.width = 6;
    for (int i = 0; i < 2 * 4 * 6 * 3; ++i)
      frames.rgb.push_back(static_cast<std::uint8_t>(i * 3 % 251));
    ClipParams p;
    p.num_frames = 2;
    p.train_crop = 2;
    p.mean = {0, 0, 0};
    p.std = {1, 1, 1};
    p.aug.relative_scale = {0.08, 1.0};
    p.aug.relative_aspect = {0.75, 1.3333};
    const double area = (4.0 / 24 - 0.08) / 0.92;  // target area 4 px, aspect ~1: 2 x 2
    for (bool flip : {false, true}) {
      FixedDraws more({area, 0.5, 0.5, 0.5});  // offsets randint(0, 2) -> 1, randint(0, 4) -> 2
      ClipDraws draws;
      draws.flip = flip ? 0.1 : 0.9;
      Clip info;
      std::vector<float> out(3 * 2 * 2 * 2);
      std::string error;
      QVERIFY2(transformTrainCopy(p, frames, draws, more, out.data(), info, &error), error.c_str());
      QCOMPARE(info.region, (CropRect{1, 2, 2, 2}));
      QCOMPARE(info.flipped, flip);
      for (int c = 0; c < 3; ++c)
        for (int t = 0; t < 2; ++t)
          for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) {
              const int sx = flip ? 1 - x : x;
              const auto byte =
                  frames.rgb[static_cast<std::size_t>(((t * 4 + 1 + y) * 6 + 2 + sx) * 3 + c)];
              QCOMPARE(out[static_cast<std::size_t>(((c * 2 + t) * 2 + y) * 2 + x)],
                       static_cast<float>(byte) * (1.0f / 255.0f));
            }
    }
    // Short-side path (no relative keys): scale 4 (no resize), random crop offsets
    // np.random.randint(0, extent - crop), exclusive: floor(0.5 * 2) = 1, floor(0.99 * 4) = 3.
    p.aug.relative_scale.clear();
    p.aug.relative_aspect.clear();
    p.jitter_min = p.jitter_max = 4;
    ClipDraws draws{0.5, 0.5, 0.5, 0.99, 0.9};
    FixedDraws none({});
    Clip info;
    std::vector<float> out(3 * 2 * 2 * 2);
    QVERIFY(transformTrainCopy(p, frames, draws, none, out.data(), info, nullptr));
    QCOMPARE(info.box, (CropBox{1, 3, 2}));
    QCOMPARE(out[0], static_cast<float>(frames.rgb[static_cast<std::size_t>((1 * 6 + 3) * 3)]) *
                         (1.0f / 255.0f));
    QCOMPARE(none.used(), std::size_t(0));
  }

  void decodeSizeAsTorchvision() {
    QCOMPARE(decodeSizeAtMinDimension({256, 340}, 256), (Size{256, 340}));
    QCOMPARE(decodeSizeAtMinDimension({240, 320}, 256), (Size{256, 341}));  // 341.33
    QCOMPARE(decodeSizeAtMinDimension({4, 7}, 2),
             (Size{2, 4}));  // 3.5 rounds up (scaleShortSide floors)
    QCOMPARE(decodeSizeAtMinDimension({7, 4}, 2), (Size{4, 2}));
    QCOMPARE(decodeSizeAtMinDimension({90, 90}, 64), (Size{64, 64}));
  }

  // --- the keys --------------------------------------------------------------------------------
  void mvitRecipeFromTheConfig() {
    const auto a = AugmentParams::fromConfig(mvitConfig());
    QVERIFY(a.relative() && a.enabled && a.rand_augment && a.erase);
    QCOMPARE(a.relative_scale, (std::vector<double>{0.08, 1.0}));
    QCOMPARE(a.relative_aspect, (std::vector<double>{0.75, 1.3333}));
    QCOMPARE(a.policy.num_layers, 4);
    QCOMPARE(a.interpolation, AugInterpolation::Bicubic);
    QCOMPARE(a.erasing.mode, EraseMode::Pixel);
    QCOMPARE(a.trainCopies(), 2);
    ClipParams p = ClipParams::fromConfig(mvitConfig({"DATA.TRAIN_CROP_NUM_SPATIAL", "3"}));
    QCOMPARE(p.copiesPerVideo(Split::Train), 6);
    QCOMPARE(p.copiesPerVideo(Split::Val), 1);
    QCOMPARE(p.copiesPerVideo(Split::Test), 1);
    const auto off = AugmentParams::fromConfig(mvitConfig({"AUG.ENABLE", "False"}));
    QVERIFY(!off.rand_augment && !off.erase && off.relative());
  }

  void badKeysAreNamed() {
    QVERIFY(contains(fromConfigError({"AUG.AA_TYPE", "rand-m7-x"}), "AUG.AA_TYPE"));
    QVERIFY(contains(fromConfigError({"AUG.INTERPOLATION", "lanczos"}), "AUG.INTERPOLATION"));
    QVERIFY(contains(fromConfigError({"AUG.RE_MODE", "noise"}), "AUG.RE_MODE"));
    QVERIFY(contains(fromConfigError({"DATA.TRAIN_JITTER_ASPECT_RELATIVE", "[]"}), "go together"));
    QVERIFY(contains(fromConfigError({"DATA.TRAIN_JITTER_SCALES_RELATIVE", "[0.5]"}),
                     "DATA.TRAIN_JITTER_SCALES_RELATIVE"));
    QVERIFY2(fromConfigError({"AUG.AA_TYPE", "''"}).empty(),
             fromConfigError({"AUG.AA_TYPE", "''"}).c_str());  // empty: none, as kinetics.py
    QVERIFY(!AugmentParams::fromConfig(mvitConfig({"AUG.AA_TYPE", "''"})).rand_augment);
  }
};

QTEST_APPLESS_MAIN(TestAugment)
#include "tst_augment.moc"
