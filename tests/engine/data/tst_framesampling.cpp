#include <QtTest>

#include <vector>

#include "data/FrameSampling.h"

using namespace amp::data;
using V = std::vector<std::int64_t>;

// Frame indices worked out by hand from PySlowFast's get_seq_frames (datasets/ssv2.py and
// datasets/charades.py); np.round and Python's round take halves to the even neighbour.
class TestFrameSampling : public QObject {
  Q_OBJECT
 private slots:
  void randintCoversBothEnds() {
    QCOMPARE(randintFromDraw(3, 7, 0.0), std::int64_t(3));
    QCOMPARE(randintFromDraw(3, 7, 0.999999), std::int64_t(7));
    QCOMPARE(randintFromDraw(3, 7, 0.5), std::int64_t(5));  // 3 + floor(0.5 x 5)
    QCOMPARE(randintFromDraw(-19, 0, 0.0), std::int64_t(-19));
    QCOMPARE(randintFromDraw(4, 4, 0.7), std::int64_t(4));
  }

  void ssv2MiddleOfEachSegment() {
    // 48 frames, 8 segments of 47 / 8 = 5.875: edges 0 6 12 18 24 (23.5 to even) 29 35 41 47.
    QCOMPARE(ssv2FrameIndices(48, 8, false, nullptr), (V{3, 9, 15, 21, 26, 32, 38, 44}));
  }

  void ssv2TrainingDrawsWithinEachSegment() {
    double u = 0.0;
    auto draw = [&u] { return u; };
    QCOMPARE(ssv2FrameIndices(48, 8, true, draw), (V{0, 6, 12, 18, 24, 29, 35, 41}));
    u = 0.9999;
    QCOMPARE(ssv2FrameIndices(48, 8, true, draw), (V{6, 12, 18, 24, 29, 35, 41, 47}));
    // One draw per segment, in order.
    std::vector<double> draws{0.0, 0.99, 0.0, 0.99, 0.0, 0.99, 0.0, 0.99};
    size_t next = 0;
    QCOMPARE(ssv2FrameIndices(48, 8, true, [&] { return draws[next++]; }),
             (V{0, 12, 12, 24, 24, 35, 35, 47}));
    QCOMPARE(next, size_t(8));
  }

  void ssv2VideoShorterThanTheClip() {
    // 5 frames, 8 segments of 0.5: edges 0 0 (0.5 to even) 1 2 (1.5) 2 2 (2.5) 3 4 (3.5) 4.
    QCOMPARE(ssv2FrameIndices(5, 8, false, nullptr), (V{0, 0, 1, 2, 2, 2, 3, 4}));
    QCOMPARE(ssv2FrameIndices(1, 4, false, nullptr), (V{0, 0, 0, 0}));
    QVERIFY(ssv2FrameIndices(0, 4, false, nullptr).empty());
  }

  void charadesTrainingStart() {
    // 8 frames 4 apart span 29 of 48: the start is randint(0, 19).
    QCOMPARE(charadesFrameIndices(48, 8, 4, -1, 10, 0.0), (V{0, 4, 8, 12, 16, 20, 24, 28}));
    QCOMPARE(charadesFrameIndices(48, 8, 4, -1, 10, 0.9999), (V{19, 23, 27, 31, 35, 39, 43, 47}));
  }

  void charadesVideoShorterThanTheClip() {
    // 10 frames: randint(10 - 29, 0), then clamped into the video.
    QCOMPARE(charadesFrameIndices(10, 8, 4, -1, 10, 0.0), (V{0, 0, 0, 0, 0, 1, 5, 9}));
    QCOMPARE(charadesFrameIndices(10, 8, 4, -1, 10, 0.9999), (V{0, 4, 8, 9, 9, 9, 9, 9}));
    // Test: the gap is max(10 - 29, 0) = 0, every view starts at 0.
    QCOMPARE(charadesFrameIndices(10, 8, 4, 3, 10, 0.5), (V{0, 4, 8, 9, 9, 9, 9, 9}));
  }

  void charadesTestViews() {
    // gap 19 / (2 - 1): views start at 0 and 19.
    QCOMPARE(charadesFrameIndices(48, 8, 4, 0, 2, 0.5), (V{0, 4, 8, 12, 16, 20, 24, 28}));
    QCOMPARE(charadesFrameIndices(48, 8, 4, 1, 2, 0.5), (V{19, 23, 27, 31, 35, 39, 43, 47}));
    // gap 19 / 9: view 4 round(8.44) = 8, view 5 round(10.56) = 11.
    QCOMPARE(charadesFrameIndices(48, 8, 4, 4, 10, 0.5).front(), std::int64_t(8));
    QCOMPARE(charadesFrameIndices(48, 8, 4, 5, 10, 0.5).front(), std::int64_t(11));
    // 34 frames, 3 views: gap 5 / 2 = 2.5, Python's round(2.5) = 2.
    QCOMPARE(charadesFrameIndices(34, 8, 4, 1, 3, 0.5).front(), std::int64_t(2));
    // One view: PySlowFast divides by zero; here it starts at 0.
    QCOMPARE(charadesFrameIndices(48, 8, 4, 0, 1, 0.5).front(), std::int64_t(0));
  }

  // AVA's get_sequence, by hand: 8 frames 4 apart around frame 10 start at 10 - 16 = -6, and
  // the two before frame 0 read frame 0.
  void avaClipAtTheStartOfAVideo() {
    QCOMPARE(avaFrameIndices(10, 8 * 4 / 2, 4, 1000),
             (std::vector<std::int64_t>{0, 0, 2, 6, 10, 14, 18, 22}));
  }

  // Around frame 18 of a 20-frame video, 8 frames 2 apart run to 24: the last three read 19.
  void avaClipAtTheEndOfAVideo() {
    QCOMPARE(avaFrameIndices(18, 8 * 2 / 2, 2, 20),
             (std::vector<std::int64_t>{10, 12, 14, 16, 18, 19, 19, 19}));
  }

  // SlowFast 32x2 at second 903 (frame 90): range(58, 122, 2), 32 frames, none clamped.
  void avaClipInsideTheVideo() {
    const auto seq = avaFrameIndices(90, 32 * 2 / 2, 2, 27030);
    QCOMPARE(seq.size(), std::size_t(32));
    QCOMPARE(seq.front(), std::int64_t(58));
    QCOMPARE(seq.back(), std::int64_t(120));
  }

  // An odd NUM_FRAMES x SAMPLING_RATE loses a frame to the floor division, as in PySlowFast:
  // 3 frames at rate 1 give range(c - 1, c + 1).
  void avaOddClipLengthGivesOneFrameLess() {
    QCOMPARE(avaFrameIndices(5, 3 * 1 / 2, 1, 100), (std::vector<std::int64_t>{4, 5}));
    QVERIFY(avaFrameIndices(5, 4, 0, 100).empty());
  }
};

QTEST_GUILESS_MAIN(TestFrameSampling)
#include "tst_framesampling.moc"
