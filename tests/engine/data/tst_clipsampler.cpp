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

  // DATA.DECODING_BACKEND pyav on AVI and MKV files: the source frames PySlowFast's pyav backend
  // puts in SlowFast 8x8's clips (SAMPLING_RATE 2, NUM_FRAMES 32, TARGET_FPS 30, 10 views), as
  //   /usr/bin/python3 bench/pyslowfast_pyav_indices.py tests/data/videos/FILE [--draw 0.5]
  // prints them (`frames`: places in the decoder's output order). PyAV opens files with
  // AVFMT_FLAG_GENPTS, so in AVI (no presentation times) FFmpeg makes pts up from the decoding
  // times: MPEG-4 part 2 with B-frames numbers its frames from pts 1, so view 0 (pts [0, 51])
  // takes 0, 1, 3, ... (not 1, 1, 3, ...); H.264 with B-frames gets its pts in decoding order and
  // PySlowFast's pts-sorted list is in that order (0, 4, 1, 8, ...). The MKV has neither a frame
  // count nor a stream duration: PySlowFast decodes its 120 frames and draws over them (its
  // container says 4.128 s because the audio starts 0.128 s earlier: 124 frames at 30 fps).
  void pyavFramesOfAviAndMkv_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("view");  // -1: a training clip whose temporal draw is 0.5
    QTest::addColumn<std::vector<std::int64_t>>("frames");
    auto row = [](const char* name, const char* file, int view, std::vector<std::int64_t> f) {
      QTest::newRow(name) << QString(file) << view << f;
    };
    row("mpeg4 avi view 0", "mpeg4_bframes.avi", 0,
        {0,  1,  3,  5,  6,  8,  10, 11, 13, 15, 16, 18, 20, 21, 23, 25,
         27, 28, 30, 32, 33, 35, 37, 38, 40, 42, 43, 45, 47, 48, 50, 51});
    row("mpeg4 avi view 1", "mpeg4_bframes.avi", 1,
        {3,  4,  6,  8,  9,  11, 13, 14, 16, 18, 19, 21, 23, 24, 26, 28,
         30, 31, 33, 35, 36, 38, 40, 41, 43, 45, 46, 48, 50, 51, 53, 55});
    row("mpeg4 avi view 9", "mpeg4_bframes.avi", 9,
        {42, 43, 45, 47, 48, 50, 52, 53, 55, 57, 58, 60, 62, 63, 65, 67,
         69, 70, 72, 74, 75, 77, 79, 80, 82, 84, 85, 87, 89, 90, 92, 94});
    row("mpeg4 avi train", "mpeg4_bframes.avi", -1,
        {23, 24, 26, 28, 29, 31, 33, 34, 36, 38, 39, 41, 43, 44, 46, 48,
         50, 51, 53, 55, 56, 58, 60, 61, 63, 65, 66, 68, 70, 71, 73, 75});
    row("h264 avi view 0", "h264_bframes.avi", 0,
        {0,  4,  1,  8,  6,  7,  10, 9,  16, 13, 15, 18, 19, 24, 21, 28,
         25, 27, 30, 31, 36, 33, 40, 38, 39, 42, 41, 48, 45, 47, 49, 49});
    row("h264 avi view 1", "h264_bframes.avi", 1,
        {1,  3,  6,  7,  12, 9,  16, 14, 15, 18, 17, 24, 21, 23, 26, 27,
         30, 29, 36, 33, 35, 38, 39, 44, 41, 48, 46, 47, 50, 49, 53, 53});
    row("h264 avi view 9", "h264_bframes.avi", 9,
        {42, 41, 48, 45, 47, 50, 51, 56, 53, 60, 58, 59, 62, 61, 68, 65,
         72, 70, 71, 74, 73, 80, 77, 79, 82, 83, 88, 85, 92, 90, 91, 93});
    row("h264 avi train", "h264_bframes.avi", -1,
        {21, 23, 26, 27, 32, 29, 36, 34, 35, 38, 37, 44, 41, 43, 46, 47,
         50, 49, 56, 53, 55, 58, 59, 64, 61, 68, 66, 67, 70, 69, 73, 73});
    row("mkv view 0", "h264_aac.mkv", 0,
        {0,  2,  4,  6,  8,  10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
         32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 63});
    row("mkv view 1", "h264_aac.mkv", 1,
        {5,  7,  9,  11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 32, 34, 36,
         38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62, 64, 66, 68});
    row("mkv view 9", "h264_aac.mkv", 9,
        {50, 52, 54, 56, 58, 60, 62, 64, 66, 68,  70,  72,  74,  76,  78,  80,
         82, 84, 86, 89, 91, 93, 95, 97, 99, 101, 103, 105, 107, 109, 111, 113});
    row("mkv train", "h264_aac.mkv", -1,
        {28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58,
         60, 62, 64, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 91});
  }
  void pyavFramesOfAviAndMkv() {
    QFETCH(QString, file);
    QFETCH(int, view);
    QFETCH(std::vector<std::int64_t>, frames);
    ClipParams p = params(32, 2, 48);  // the files are 64x48
    p.jitter_min = p.jitter_max = p.test_jitter_min = p.test_crop = 48;
    p.test_crops = 1;
    p.backend = DecodingBackend::PyAv;
    ClipDraws draws;
    draws.temporal = 0.5;
    Clip clip;
    std::string error;
    QVERIFY2(ClipSampler(p).sample(testVideo(file.toUtf8().constData()),
                                   view < 0 ? Split::Train : Split::Test, std::max(view, 0), draws,
                                   clip, &error),
             error.c_str());
    QCOMPARE(clip.frame_indices, frames);
    QCOMPARE(clip.decoded, (Size{48, 64}));
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
