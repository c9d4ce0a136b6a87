#include <QtTest>

#include "data/Sampling.h"

using namespace amp::data;
using Indices = std::vector<std::int64_t>;

// Expected values are worked out by hand from PySlowFast's formulas (PYSLOWFAST_FACTS.md).
namespace {
// A 30 fps stream in time base 1/15360 (512 per frame), 300 frames, 10 s.
StreamTiming tenSecondsAt30Fps() {
  StreamTiming s;
  s.fps = s.slot_fps = 30;
  s.duration_s = 10;
  s.duration_pts = 153600;
  s.header_frames = s.frames = 300;
  s.timebase_den = 15360;
  return s;
}
}  // namespace

class TestSampling : public QObject {
  Q_OBJECT
 private slots:
  void clipSpan() {
    QCOMPARE(clipSpanFrames(8, 8, 30, 30), 64.0);
    QVERIFY(qFuzzyCompare(clipSpanFrames(2, 32, 30, 28),
                          2.0 * 32 / 30 * 28));  // 59.73 frames of a 28 fps video
    QCOMPARE(clipSpanFrames(8, 8, 30, 15), 32.0);
    QCOMPARE(clipSpanFrames(1, 1, 30, 10), 1.0);  // np.maximum(1.0, 1/3)
  }

  void temporalStart() {
    QCOMPARE(clipStart(280, 64, -1, 1, false, 0.5), 108.0);  // random: uniform(0, 216)
    QCOMPARE(clipStart(280, 64, -1, 1, false, 0.0), 0.0);
    QCOMPARE(clipStart(280, 64, 3, 10, false, 0.9), 64.8);  // test view 3 of 10: 216 * 3 / 10
    QCOMPARE(clipStart(280, 64, 0, 1, true, 0.9), 108.0);   // offset sampling, one view: centre
    QCOMPARE(clipStart(280, 64, 2, 5, true, 0.9), 108.0);   // 2 * floor(216 / 4)
    QCOMPARE(clipStart(50, 64, -1, 1, false, 0.7), 0.0);    // video shorter than the clip
  }

  void frameIndices() {
    QCOMPARE(clipFrameIndices(108, 64, 8, 280), (Indices{108, 117, 126, 135, 144, 153, 162, 171}));
    QCOMPARE(clipFrameIndices(64.8, 64, 8, 280), (Indices{64, 73, 82, 91, 100, 109, 118, 127}));
    // A 50-frame video and a 64-frame span: indices clamp at the last frame.
    QCOMPARE(clipFrameIndices(0, 64, 8, 50), (Indices{0, 9, 18, 27, 36, 45, 49, 49}));
    QCOMPARE(clipFrameIndices(0, 64, 4, 1), (Indices{0, 0, 0, 0}));  // a one-frame video
    QCOMPARE(clipFrameIndices(3.5, 10, 1, 100), (Indices{3}));
  }

  // DATA.DECODING_BACKEND torchvision (PySlowFast's default): selective decoding keeps the frames
  // whose pts lie in [int(start ppf), int(end ppf)] and samples linspace(0, span - 1, T) from the
  // first kept frame. A 30 fps stream in time base 1/15360 (512 per frame), 300 frames, 10 s;
  // Slow 8x8: span 64 frames. Start 10.3 keeps frames 11..73 (pts 5273..37529):
  // 11 + trunc(0, 9, ..., 63 clamped to 62), where the whole-video formula takes 10, 19, ..., 73.
  void torchvisionTrimsToThePtsRange() {
    StreamTiming s = tenSecondsAt30Fps();
    const auto plan = temporalPlan(DecodingBackend::TorchVision, s, 8, 8, 30);
    QVERIFY(plan.trimmed);
    QCOMPARE(plan.video_size, 300.0);  // fps x duration
    QCOMPARE(plan.clip_size, 64.0);
    QCOMPARE(torchvisionFrameIndices(s, plan, 10.3, 8), (Indices{11, 20, 29, 38, 47, 56, 65, 73}));
    QCOMPARE(clipFrameIndices(10.3, 64, 8, 300), (Indices{10, 19, 28, 37, 46, 55, 64, 73}));
    // A whole-frame start keeps 64 frames: the same indices as the whole-video formula.
    QCOMPARE(torchvisionFrameIndices(s, plan, 108, 8), clipFrameIndices(108, 64, 8, 300));
    // PySlowFast compares raw pts: a stream starting at pts 1024 (two frames in) shifts the kept
    // run.
    s.start_pts = 1024;
    QCOMPARE(torchvisionFrameIndices(s, plan, 10.3, 8), (Indices{9, 18, 27, 36, 45, 54, 63, 71}));
    // Too short for selective decoding (fps x duration = 60 <= 8 x 8): everything is decoded and
    // the clip is cut by the whole-video formula over the frame count.
    s.start_pts = 0;
    s.duration_s = 2;
    s.frames = s.header_frames = 60;
    const auto shortPlan = temporalPlan(DecodingBackend::TorchVision, s, 8, 8, 30);
    QVERIFY(!shortPlan.trimmed);
    QCOMPARE(shortPlan.video_size, 60.0);
    QCOMPARE(torchvisionFrameIndices(s, shortPlan, 0, 8), (Indices{0, 9, 18, 27, 36, 45, 54, 59}));
    // No duration: the same.
    s.duration_s = 0;
    QVERIFY(!temporalPlan(DecodingBackend::TorchVision, s, 8, 8, 30).trimmed);
  }

  // pyav: the start over the header's frame count for ceil(rate (T - 1) / target x fps) frames,
  // pts per frame = duration / frames. Start 10.3: pts [5273, 33433]; PyAV's frames in that range
  // (11..65) plus the one after it (its decode loop stores the first frame past the end before it
  // stops) are PySlowFast's list, 56 frames, and decode()'s 64-frame linspace from its first
  // clamps at the last: list positions 0, 9, ..., 54, 55 (frames 11, 20, ..., 65, 66). Which
  // frames the list holds is decided by the timestamps PyAV reads (tst_clipsampler,
  // tst_videodecoder).
  void pyavHasItsOwnSpan() {
    StreamTiming s = tenSecondsAt30Fps();
    const auto plan = temporalPlan(DecodingBackend::PyAv, s, 8, 8, 30);
    QVERIFY(plan.trimmed);
    QCOMPARE(plan.video_size, 300.0);
    QCOMPARE(plan.clip_size, 56.0);  // ceil(8 x 7 / 30 x 30)
    QCOMPARE(plan.sample_size, 64.0);
    const PtsRange r = pyavPtsRange(s, plan, 10.3);
    QCOMPARE(r.start_pts, std::int64_t(5273));  // int(10.3 x 512)
    QCOMPARE(r.end_pts, std::int64_t(33433));   // int(65.3 x 512)
    QCOMPARE(clipFrameIndices(0, plan.sample_size, 8, 56), (Indices{0, 9, 18, 27, 36, 45, 54, 55}));
    // Without the stream's duration (or frame count) PyAV decodes everything.
    s.duration_pts = 0;
    QVERIFY(!temporalPlan(DecodingBackend::PyAv, s, 8, 8, 30).trimmed);
    QCOMPARE(temporalPlan(DecodingBackend::PyAv, s, 8, 8, 30).clip_size, 64.0);
  }

  // PyAV's fields of tests/data/videos/mpeg4_bframes.avi (AVI: time base 1/25, duration 100,
  // 100 frames, 25 fps) and SlowFast 8x8's sampling (rate 2, 32 frames, 10 views): the clip spans
  // ceil(2 x 31 / 30 x 25) = 52 frames, view 1 starts at 48 / 10 = 4.8, pts [4, 55]. From
  //   /usr/bin/python3 bench/pyslowfast_pyav_indices.py tests/data/videos/mpeg4_bframes.avi
  // (its start_pts and end_pts).
  void pyavPtsRangeOfAnAvi() {
    StreamTiming s;
    s.fps = s.slot_fps = 25;
    s.duration_pts = 100;
    s.header_frames = s.frames = 100;
    s.timebase_den = 25;
    const auto plan = temporalPlan(DecodingBackend::PyAv, s, 2, 32, 30);
    QCOMPARE(plan.clip_size, 52.0);
    QCOMPARE(clipStart(plan.video_size, plan.clip_size, 1, 10, false, 0), 4.8);
    const PtsRange r = pyavPtsRange(s, plan, 4.8);
    QCOMPARE(r.start_pts, std::int64_t(4));
    QCOMPARE(r.end_pts, std::int64_t(55));
  }

  // torchvision decodes at short side max_spatial_scale with the long side rounded, and the jitter
  // scales from that size with the long side floored: 320x240 at 256 is 341x256, jittered to 300
  // it is 399 wide (pyav: from 320x240 directly, 400).
  void backendSizes() {
    const Size tv = backendDecodeSize(DecodingBackend::TorchVision, {240, 320}, 256);
    QCOMPARE(tv, (Size{256, 341}));
    QCOMPARE(scaleShortSide(tv, 300), (Size{300, 399}));
    const Size av = backendDecodeSize(DecodingBackend::PyAv, {240, 320}, 256);
    QCOMPARE(av, (Size{240, 320}));
    QCOMPARE(scaleShortSide(av, 300), (Size{300, 400}));
    QCOMPARE(backendDecodeSize(DecodingBackend::TorchVision, {288, 352}, 256),
             (Size{256, 313}));  // 312.9 rounds up
    QCOMPARE(backendDecodeSize(DecodingBackend::TorchVision, {240, 320}, 0),
             (Size{240, 320}));  // no scale: native
    DecodingBackend b;
    QVERIFY(decodingBackendFromName("pyav", b) && b == DecodingBackend::PyAv);
    QVERIFY(decodingBackendFromName("torchvision", b) && b == DecodingBackend::TorchVision);
    QVERIFY(!decodingBackendFromName("decord", b));
  }

  void slowPathway() {
    QCOMPARE(slowPathwayIndices(32, 4),
             (Indices{0, 4, 8, 13, 17, 22, 26, 31}));  // linspace(0, 31, 8)
    QCOMPARE(slowPathwayIndices(32, 8), (Indices{0, 10, 20, 31}));
    QCOMPARE(slowPathwayIndices(8, 8), (Indices{0}));
  }

  void shortSideJitter() {
    QCOMPARE(jitterShortSide(256, 320, 0.5), 288);
    QCOMPARE(jitterShortSide(256, 320, 0.0078125), 256);  // 256.5 rounds half to even
    QCOMPARE(jitterShortSide(256, 320, 0.0234375), 258);  // 257.5 rounds half to even
    QCOMPARE(jitterShortSide(256, 320, 0.999), 320);
    QCOMPARE(jitterShortSide(256, 320, 0.0, true), 320);  // inverse uniform: 1 / (1/320)
    QCOMPARE(jitterShortSide(224, 224, 0.3), 224);
  }

  void scaling() {
    QCOMPARE(scaleShortSide({256, 340}, 288),
             (Size{288, 382}));  // floor(340 / 256 * 288) = floor(382.5)
    QCOMPARE(scaleShortSide({240, 320}, 288), (Size{288, 384}));
    QCOMPARE(scaleShortSide({340, 256}, 288), (Size{382, 288}));  // portrait
    QCOMPARE(scaleShortSide({256, 340}, 256), (Size{256, 340}));  // already there
  }

  void crops() {
    QCOMPARE(randomCrop({288, 382}, 224, 0.5, 0.25),
             (CropBox{32, 39, 224}));  // floor(.5*64), floor(.25*158)
    QCOMPARE(randomCrop({224, 300}, 224, 0.9, 0.0), (CropBox{0, 0, 224}));
    QCOMPARE(uniformCrop({256, 340}, 256, 0), (CropBox{0, 0, 256}));   // left
    QCOMPARE(uniformCrop({256, 340}, 256, 1), (CropBox{0, 42, 256}));  // centre
    QCOMPARE(uniformCrop({256, 340}, 256, 2), (CropBox{0, 84, 256}));  // right
    QCOMPARE(uniformCrop({340, 256}, 256, 2), (CropBox{84, 0, 256}));  // portrait: bottom
    QCOMPARE(uniformCrop({257, 340}, 224, 1),
             (CropBox{17, 58, 224}));  // ceil(33 / 2), ceil(116 / 2)
    QVERIFY(flipFromDraw(0.5, 0.49));
    QVERIFY(!flipFromDraw(0.5, 0.5));
  }
};

QTEST_APPLESS_MAIN(TestSampling)
#include "tst_sampling.moc"
