#include <QtTest>

#include "configfile/ConfigLoader.h"
#include "data/ClipSampler.h"
#include "data/RandAugment.h"

using namespace amp::data;

namespace {
std::string testVideo(const char* name) {
  return std::string(AMPSTUDIO_TEST_DATA_DIR) + "/videos/" + name;
}

ClipParams params(int frames, int rate, int crop) {
  ClipParams p;
  p.num_frames = frames;
  p.sampling_rate = rate;
  p.target_fps = 30;
  p.jitter_min = 256;
  p.jitter_max = 320;
  p.train_crop = crop;
  p.test_crop = 256;
  p.test_views = 10;
  p.test_crops = 3;
  return p;
}
}  // namespace

class TestClipSampler : public QObject {
  Q_OBJECT
 private slots:
  void trainClipFollowsTheDraws() {
    // demo.mp4: 340x256, 28 fps, 280 frames. 8 frames at rate 8: span 8*8/30*28 = 59.73 frames.
    ClipSampler sampler(params(8, 8, 224));
    ClipDraws draws{0.5, 0.5, 0.5, 0.25, 0.1};
    Clip clip;
    std::string error;
    QVERIFY2(sampler.sample(testVideo("demo.mp4"), Split::Train, 0, draws, clip, &error),
             error.c_str());
    // torchvision (the default): start (280 - 59.73) x 0.5 = 110.13; pts 512 per frame keep frames
    // 111..168, sampled at 111 + trunc(linspace(0, 58.73, 8)) (the whole-video formula: 110, 118,
    // ...).
    QCOMPARE(clip.frame_indices,
             (std::vector<std::int64_t>{111, 119, 127, 136, 144, 152, 161, 168}));
    QCOMPARE(clip.decoded, (Size{256, 340}));
    QCOMPARE(clip.scaled, (Size{288, 382}));     // short side round(256 + 64 * 0.5)
    QCOMPARE(clip.box, (CropBox{32, 39, 224}));  // floor(.5 * 64), floor(.25 * 158)
    QVERIFY(clip.flipped);                       // draw 0.1 < 0.5
    QCOMPARE(clip.fast.size(), size_t(3) * 8 * 224 * 224);
    QVERIFY(clip.slow.empty());
    // Normalised: (x/255 - 0.45) / 0.225 lies in [-2, 2.45].
    const auto [lo, hi] = std::minmax_element(clip.fast.begin(), clip.fast.end());
    QVERIFY(*lo >= -2.0001f && *hi <= 2.4445f);
    QVERIFY(*hi - *lo > 1.0f);  // a real picture, not a constant
  }

  // pyav: start over the 280 header frames for ceil(8 x 7 / 30 x 28) = 53 frames: 113.5; frames
  // 114..165 plus the one after, 53 frames, sampled with the 59.73-frame linspace (clamped at 52).
  // Sizes: test.avi is 320x240; torchvision decodes it at 341x256 and jitters that to 383x288,
  // pyav jitters 320x240 to 384x288.
  void framesAndSizesFollowTheBackend() {
    ClipParams p = params(8, 8, 224);
    p.backend = DecodingBackend::PyAv;
    ClipDraws draws{0.5, 0.5, 0.5, 0.25, 0.1};
    Clip clip;
    std::string error;
    QVERIFY2(ClipSampler(p).sample(testVideo("demo.mp4"), Split::Train, 0, draws, clip, &error),
             error.c_str());
    QCOMPARE(clip.frame_indices,
             (std::vector<std::int64_t>{114, 122, 130, 139, 147, 155, 164, 166}));
    QVERIFY2(ClipSampler(p).sample(testVideo("test.avi"), Split::Train, 0, draws, clip, &error),
             error.c_str());
    QCOMPARE(clip.decoded, (Size{240, 320}));
    QCOMPARE(clip.scaled, (Size{288, 384}));
    p.backend = DecodingBackend::TorchVision;
    QVERIFY2(ClipSampler(p).sample(testVideo("test.avi"), Split::Train, 0, draws, clip, &error),
             error.c_str());
    QCOMPARE(clip.decoded, (Size{256, 341}));
    QCOMPARE(clip.scaled, (Size{288, 383}));
    QCOMPARE(clip.box, (CropBox{32, 39, 224}));  // floor(.5 x 64), floor(.25 x 159)
  }

  void flipMirrorsTheCrop() {
    ClipSampler sampler(params(4, 4, 224));
    Clip a, b;
    std::string error;
    QVERIFY(sampler.sample(testVideo("demo.mp4"), Split::Train, 0,
                           ClipDraws{0.3, 0.0, 0.0, 0.0, 0.9}, a, &error));
    QVERIFY(sampler.sample(testVideo("demo.mp4"), Split::Train, 0,
                           ClipDraws{0.3, 0.0, 0.0, 0.0, 0.1}, b, &error));
    QVERIFY(!a.flipped && b.flipped);
    const int s = 224;
    for (int y : {0, 100, 223})
      for (int x : {0, 57, 223})
        QCOMPARE(a.fast[static_cast<size_t>(y * s + x)],
                 b.fast[static_cast<size_t>(y * s + (s - 1 - x))]);
  }

  // DATA.REVERSE_INPUT_CHANNEL as PySlowFast: normalise, then reverse the channels, so channel c
  // of the reversed clip is channel 2-c of the plain one, each with its own mean and std.
  void reverseInputChannelNormalisesFirst() {
    ClipParams p = params(4, 4, 224);
    p.mean = {0.1f, 0.5f, 0.9f};
    p.std = {0.2f, 0.3f, 0.4f};
    ClipParams r = p;
    r.reverse_channels = true;
    Clip a, b;
    std::string error;
    const ClipDraws draws{0.3, 0.2, 0.4, 0.6, 0.9};
    QVERIFY(ClipSampler(p).sample(testVideo("demo.mp4"), Split::Train, 0, draws, a, &error));
    QVERIFY(ClipSampler(r).sample(testVideo("demo.mp4"), Split::Train, 0, draws, b, &error));
    const size_t plane = a.fast.size() / 3;
    for (size_t c = 0; c < 3; ++c)
      for (size_t i : {size_t(0), plane / 3, plane - 1})
        QCOMPARE(b.fast[c * plane + i], a.fast[(2 - c) * plane + i]);
  }

  void testViewsAreUniform() {
    ClipSampler sampler(params(8, 8, 224));
    std::string error;
    // View 7 of 10 x 3: temporal view 2, spatial crop 1 (centre); 256 short side, 256 crop.
    Clip clip;
    QVERIFY(sampler.sample(testVideo("demo.mp4"), Split::Test, 7, ClipDraws{}, clip, &error));
    // Start 220.27 x 2 / 10 = 44.05: torchvision keeps frames 45..102 (the whole-video formula: 44,
    // 52, ...).
    QCOMPARE(clip.frame_indices, (std::vector<std::int64_t>{45, 53, 61, 70, 78, 86, 95, 102}));
    QCOMPARE(clip.scaled, (Size{256, 340}));
    QCOMPARE(clip.box, (CropBox{0, 42, 256}));
    QVERIFY(!clip.flipped);
    Clip right;
    QVERIFY(sampler.sample(testVideo("demo.mp4"), Split::Test, 8, ClipDraws{}, right, &error));
    QCOMPARE(right.box, (CropBox{0, 84, 256}));
  }

  void slowFastPathways() {
    ClipParams p = params(32, 2, 224);
    p.slowfast_alpha = 4;
    ClipSampler sampler(p);
    Clip clip;
    std::string error;
    QVERIFY(sampler.sample(testVideo("test.avi"), Split::Val, 0, ClipDraws{}, clip, &error));
    QCOMPARE(clip.slow.size(), size_t(3) * 8 * 224 * 224);
    // The slow pathway's frame t is the fast pathway's frame slowPathwayIndices(32, 4)[t].
    const auto idx = slowPathwayIndices(32, 4);
    const size_t plane = 224 * 224;
    for (size_t t = 0; t < idx.size(); ++t)
      QVERIFY(
          std::equal(clip.slow.begin() + static_cast<long>(t * plane),
                     clip.slow.begin() + static_cast<long>((t + 1) * plane),
                     clip.fast.begin() + static_cast<long>(static_cast<size_t>(idx[t]) * plane)));
  }

  void paramsFromConfig() {
    auto r = amp::config::ConfigLoader().loadFile(std::string(AMPSTUDIO_SOURCE_DIR) +
                                                  "/configs/Kinetics/SLOWFAST_8x8_R50.yaml");
    QVERIFY(r.ok());
    const ClipParams p = ClipParams::fromConfig(r.config);
    QCOMPARE(p.num_frames, 32);
    QCOMPARE(p.sampling_rate, 2);
    QCOMPARE(p.slowfast_alpha, 4);
    QCOMPARE(p.viewsPerTestVideo(), 30);
    auto x3d = amp::config::ConfigLoader().loadFile(std::string(AMPSTUDIO_SOURCE_DIR) +
                                                    "/configs/Kinetics/X3D_XS.yaml");
    QCOMPARE(ClipParams::fromConfig(x3d.config).slowfast_alpha, 0);
  }

  void tooSmallForTheCrop() {
    ClipParams p = params(4, 4, 224);
    p.jitter_min = p.jitter_max = 100;
    ClipSampler sampler(p);
    Clip clip;
    std::string error;
    QVERIFY(!sampler.sample(testVideo("demo.mp4"), Split::Train, 0, ClipDraws{}, clip, &error));
    QVERIFY2(error.find("smaller than the 224 px crop") != std::string::npos, error.c_str());
  }
  void augmentedTrainCopiesShareOneDecode() {
    // The MViT recipe on demo.mp4 (340x256, decoded at short side 256): two copies, each with its
    // own relative crop, RandAugment ops and erasing, from the same temporal position.
    ClipParams p = params(8, 8, 112);
    p.aug.relative_scale = {0.08, 1.0};
    p.aug.relative_aspect = {0.75, 1.3333};
    p.aug.rand_augment = p.aug.enabled = p.aug.erase = true;
    p.aug.erasing.probability = 1.0;
    std::string error;
    QVERIFY2(parseRandAugment("rand-m7-n4-mstd0.5-inc1", p.aug.policy, &error), error.c_str());
    p.aug.num_sample = 2;
    ClipSampler sampler(p);
    Draws m0(1, 2, 3, 4), m1(5, 6, 7, 8);
    ClipDraws draws[2];
    draws[0].more = &m0;
    draws[1].more = &m1;
    Clip clips[2];
    QVERIFY2(sampler.sampleCopies(testVideo("demo.mp4"), Split::Train, 0, draws, clips, 2, &error),
             error.c_str());
    for (const Clip& c : clips) {
      QCOMPARE(c.fast.size(), size_t(3) * 8 * 112 * 112);
      QCOMPARE(c.scaled, (Size{256, 340}));
      QVERIFY(c.region.y >= 0 && c.region.y + c.region.height <= 256 &&
              c.region.x + c.region.width <= 340);
      QCOMPARE(c.erased_boxes.size(), std::size_t(1));  // RE_PROB 1, RE_COUNT 1
    }
    QCOMPARE(clips[0].frame_indices, clips[1].frame_indices);
    QVERIFY(clips[0].decode_s > 0 && clips[1].decode_s == 0);  // one decode
    QVERIFY(!(clips[0].region == clips[1].region));
    QVERIFY(clips[0].fast != clips[1].fast);
    // The same draws give the same clip.
    Draws again(1, 2, 3, 4);
    ClipDraws one;
    one.more = &again;
    Clip repeat;
    QVERIFY2(sampler.sample(testVideo("demo.mp4"), Split::Train, 0, one, repeat, &error),
             error.c_str());
    QVERIFY(repeat.fast == clips[0].fast);
    QVERIFY(repeat.augment_ops == clips[0].augment_ops);
    QVERIFY(repeat.erased_boxes == clips[0].erased_boxes);
    // Validation never augments.
    Clip val;
    QVERIFY2(sampler.sample(testVideo("demo.mp4"), Split::Val, 0, one, val, &error), error.c_str());
    QVERIFY(val.augment_ops.empty());
    QVERIFY(val.erased_boxes.empty());
  }
};

QTEST_APPLESS_MAIN(TestClipSampler)
#include "tst_clipsampler.moc"
