#include <QtTest>

#include "data/Sampling.h"

using namespace amp::data;
using Indices = std::vector<std::int64_t>;

// Expected values are worked out by hand from PySlowFast's formulas (PYSLOWFAST_FACTS.md).
class TestSampling : public QObject {
  Q_OBJECT
 private slots:
  void clipSpan() {
    QCOMPARE(clipSpanFrames(8, 8, 30, 30), 64.0);
    QVERIFY(qFuzzyCompare(clipSpanFrames(2, 32, 30, 28), 2.0 * 32 / 30 * 28));  // 59.73 frames of a 28 fps video
    QCOMPARE(clipSpanFrames(8, 8, 30, 15), 32.0);
  }

  void temporalStart() {
    QCOMPARE(clipStart(280, 64, -1, 1, false, 0.5), 108.0);    // random: uniform(0, 216)
    QCOMPARE(clipStart(280, 64, -1, 1, false, 0.0), 0.0);
    QCOMPARE(clipStart(280, 64, 3, 10, false, 0.9), 64.8);     // test view 3 of 10: 216 * 3 / 10
    QCOMPARE(clipStart(280, 64, 0, 1, true, 0.9), 108.0);      // offset sampling, one view: centre
    QCOMPARE(clipStart(280, 64, 2, 5, true, 0.9), 108.0);      // 2 * floor(216 / 4)
    QCOMPARE(clipStart(50, 64, -1, 1, false, 0.7), 0.0);       // video shorter than the clip
  }

  void frameIndices() {
    QCOMPARE(clipFrameIndices(108, 64, 8, 280), (Indices{108, 117, 126, 135, 144, 153, 162, 171}));
    QCOMPARE(clipFrameIndices(64.8, 64, 8, 280), (Indices{64, 73, 82, 91, 100, 109, 118, 127}));
    // A 50-frame video and a 64-frame span: indices clamp at the last frame.
    QCOMPARE(clipFrameIndices(0, 64, 8, 50), (Indices{0, 9, 18, 27, 36, 45, 49, 49}));
    QCOMPARE(clipFrameIndices(0, 64, 4, 1), (Indices{0, 0, 0, 0}));  // a one-frame video
    QCOMPARE(clipFrameIndices(3.5, 10, 1, 100), (Indices{3}));
  }

  void slowPathway() {
    QCOMPARE(slowPathwayIndices(32, 4), (Indices{0, 4, 8, 13, 17, 22, 26, 31}));  // linspace(0, 31, 8)
    QCOMPARE(slowPathwayIndices(32, 8), (Indices{0, 10, 20, 31}));
    QCOMPARE(slowPathwayIndices(8, 8), (Indices{0}));
  }

  void shortSideJitter() {
    QCOMPARE(jitterShortSide(256, 320, 0.5), 288);
    QCOMPARE(jitterShortSide(256, 320, 0.0078125), 256);  // 256.5 rounds half to even
    QCOMPARE(jitterShortSide(256, 320, 0.0234375), 258);  // 257.5 rounds half to even
    QCOMPARE(jitterShortSide(256, 320, 0.999), 320);
    QCOMPARE(jitterShortSide(256, 320, 0.0, true), 320);   // inverse uniform: 1 / (1/320)
    QCOMPARE(jitterShortSide(224, 224, 0.3), 224);
  }

  void scaling() {
    QCOMPARE(scaleShortSide({256, 340}, 288), (Size{288, 382}));  // floor(340 / 256 * 288) = floor(382.5)
    QCOMPARE(scaleShortSide({240, 320}, 288), (Size{288, 384}));
    QCOMPARE(scaleShortSide({340, 256}, 288), (Size{382, 288}));  // portrait
    QCOMPARE(scaleShortSide({256, 340}, 256), (Size{256, 340}));  // already there
  }

  void crops() {
    QCOMPARE(randomCrop({288, 382}, 224, 0.5, 0.25), (CropBox{32, 39, 224}));  // floor(.5*64), floor(.25*158)
    QCOMPARE(randomCrop({224, 300}, 224, 0.9, 0.0), (CropBox{0, 0, 224}));
    QCOMPARE(uniformCrop({256, 340}, 256, 0), (CropBox{0, 0, 256}));     // left
    QCOMPARE(uniformCrop({256, 340}, 256, 1), (CropBox{0, 42, 256}));    // centre
    QCOMPARE(uniformCrop({256, 340}, 256, 2), (CropBox{0, 84, 256}));    // right
    QCOMPARE(uniformCrop({340, 256}, 256, 2), (CropBox{84, 0, 256}));    // portrait: bottom
    QCOMPARE(uniformCrop({257, 340}, 224, 1), (CropBox{17, 58, 224}));   // ceil(33 / 2), ceil(116 / 2)
    QVERIFY(flipFromDraw(0.5, 0.49));
    QVERIFY(!flipFromDraw(0.5, 0.5));
  }
};

QTEST_APPLESS_MAIN(TestSampling)
#include "tst_sampling.moc"
