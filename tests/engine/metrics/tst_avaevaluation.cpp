// AVA frame-mAP@0.5IOU (AvaEvaluation, pascalAveragePrecision) on cases small enough to work out
// by hand, each worked out in its comment. Random files were also checked bit for bit against
// PySlowFast's ava_eval_helper with numpy 1.24 (docs/training.md); these are the cases
// that pin down each rule.
#include <QtTest>

#include <cmath>
#include <vector>

#include "metrics/AvaEvaluation.h"
#include "metrics/PascalAveragePrecision.h"
#include "support/TestFiles.h"

using namespace amp::metrics;

namespace {

constexpr double kEps = 1e-12;

AvaBox box(double x1, double y1, double x2, double y2, int action, double score = 1.0) {
  AvaBox b;
  b.x1 = x1, b.y1 = y1, b.x2 = x2, b.y2 = y2, b.action = action, b.score = score;
  return b;
}

// The AP of class `id` in `r`.
double apOf(const AvaResult& r, int id) {
  for (const auto& c : r.classes)
    if (c.id == id) return c.ap;
  return -1;
}

const std::vector<AvaClass> kOneClass = {{1, "stand"}};

}  // namespace

class TestAvaEvaluation : public QObject {
  Q_OBJECT
 private slots:
  // ranked TP FP TP with 3 groundtruth boxes: P 1, 1/2, 2/3 at R 1/3, 1/3, 2/3; made
  // non-increasing from the right: 1, 2/3, 2/3; recall steps 1/3 (P 1) and 1/3 (P 2/3):
  // AP = 1/3 + 2/9 = 5/9. The groundtruth never found adds nothing (recall 1 at precision 0).
  void pascalAreaUnderInterpolatedCurve() {
    QVERIFY(std::fabs(pascalAveragePrecision({0.9, 0.8, 0.7}, {1, 0, 1}, 3) - 5.0 / 9) < kEps);
    QCOMPARE(pascalAveragePrecision({0.9}, {1}, 1), 1.0);
    QCOMPARE(pascalAveragePrecision({}, {}, 4), 0.0);            // groundtruth, no detection
    QVERIFY(std::isnan(pascalAveragePrecision({0.9}, {0}, 0)));  // no groundtruth: None -> NaN
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pascalAveragePrecision({0.9}, {1, 0}, 1));
  }

  // Tied scores keep numpy's argsort order reversed: for fewer than 17 that is the later
  // detection first. 0.5 (TP), 0.5 (FP), 1 groundtruth: the FP ranks first, P 0 then 1/2 at
  // R 1, AP 1/2; the other way round the TP ranks first and AP is 1.
  void tiesRankTheLaterDetectionFirst() {
    QVERIFY(std::fabs(pascalAveragePrecision({0.5, 0.5}, {1, 0}, 1) - 0.5) < kEps);
    QCOMPARE(pascalAveragePrecision({0.5, 0.5}, {0, 1}, 1), 1.0);
    const std::vector<std::size_t> order = numpyDescendingOrder({0.2, 0.7, 0.2, NAN, 0.7});
    QCOMPARE(order, (std::vector<std::size_t>{3, 4, 1, 2, 0}));  // NaN above every number
  }

  void nanMeanSkipsNaN() {
    QCOMPARE(numpyNanMean({NAN, 1.0, 0.5}), 0.75);
    QVERIFY(std::isnan(numpyNanMean({NAN, NAN})));
    // numpy's pairwise sum of ten 0.1: 8 accumulators, the 2 left over added one by one, which
    // gives 1.0 (np.sum) where adding them in a row gives 0.9999999999999999.
    const std::vector<double> tenths(10, 0.1);
    QCOMPARE(numpySum(tenths.data(), tenths.size()), 1.0);
    double inARow = 0;
    for (double v : tenths) inARow += v;
    QVERIFY(inARow != 1.0);
  }

  void oneImageOneClassPerfect() {
    AvaEvaluation eval(kOneClass);
    QVERIFY(eval.addGroundTruthImage("v,0902", {box(0.1, 0.1, 0.5, 0.9, 1)}));
    QVERIFY(eval.addDetectedImage("v,0902", {box(0.1, 0.1, 0.5, 0.9, 1, 0.3)}));
    const AvaResult r = eval.evaluate();
    QCOMPARE(r.map, 1.0);
    QCOMPARE(r.classes.size(), std::size_t(1));
    QCOMPARE(r.classes[0].name, std::string("stand"));
    QCOMPARE(r.classes[0].groundtruth_boxes, std::int64_t(1));
    QCOMPARE(r.classes[0].detections, std::int64_t(1));
    QCOMPARE(r.classes_with_groundtruth, 1);
  }

  // Groundtruth g1, g2; detections g1 (0.9), g1 again (0.8), g2 (0.7). The second detection of
  // g1 is a false positive: TP FP TP over 2 boxes, P 1, 1/2, 2/3 at R 1/2, 1/2, 1;
  // AP = 1/2 * 1 + 1/2 * 2/3 = 5/6.
  void secondDetectionOfABoxIsFalsePositive() {
    AvaEvaluation eval(kOneClass);
    const AvaBox g1 = box(0.0, 0.0, 0.4, 0.4, 1), g2 = box(0.6, 0.6, 1.0, 1.0, 1);
    QVERIFY(eval.addGroundTruthImage("v,0001", {g1, g2}));
    QVERIFY(eval.addDetectedImage("v,0001",
                                  {box(0.0, 0.0, 0.4, 0.4, 1, 0.9), box(0.0, 0.0, 0.4, 0.4, 1, 0.8),
                                   box(0.6, 0.6, 1.0, 1.0, 1, 0.7)}));
    QVERIFY(std::fabs(eval.evaluate().map - 5.0 / 6) < kEps);
  }

  // ActivityNet matches an image's detections in their order in the file, not by score: the
  // first detection (0.8) takes the box, the second (0.9) is the duplicate. Ranked: FP (0.9)
  // then TP (0.8), P 0 then 1/2 at R 1: AP 1/2 (matching by score would give 1).
  void matchingFollowsFileOrder() {
    AvaEvaluation eval(kOneClass);
    QVERIFY(eval.addGroundTruthImage("v,0001", {box(0.0, 0.0, 0.4, 0.4, 1)}));
    QVERIFY(eval.addDetectedImage(
        "v,0001", {box(0.0, 0.0, 0.4, 0.4, 1, 0.8), box(0.0, 0.0, 0.4, 0.4, 1, 0.9)}));
    QVERIFY(std::fabs(eval.evaluate().map - 0.5) < kEps);
  }

  // Groundtruth (0,0)-(1,1), area 1; a detection (0,0)-(1,h) has IoU h: 0.5 exactly is a match
  // (>= 0.5), 0.499 is not, 0.501 is.
  void iouThresholdIsInclusive() {
    const std::vector<std::pair<double, double>> cases = {{0.5, 1.0}, {0.499, 0.0}, {0.501, 1.0}};
    for (const auto& [h, expected] : cases) {
      AvaEvaluation eval(kOneClass);
      QVERIFY(eval.addGroundTruthImage("v,0001", {box(0, 0, 1, 1, 1)}));
      QVERIFY(eval.addDetectedImage("v,0001", {box(0, 0, 1, h, 1, 0.9)}));
      QCOMPARE(eval.evaluate().map, expected);
    }
  }

  // A detection on a keyframe without groundtruth is a false positive; one with x2 <= x1 is
  // dropped (not counted at all). Ranked: FP (0.9, other keyframe), TP (0.5): AP 1/2.
  void detectionsElsewhereAndInvalidBoxes() {
    AvaEvaluation eval(kOneClass);
    QVERIFY(eval.addGroundTruthImage("v,0001", {box(0, 0, 0.5, 0.5, 1)}));
    QVERIFY(eval.addDetectedImage("v,0001",
                                  {box(0, 0, 0.5, 0.5, 1, 0.5), box(0.5, 0, 0.4, 0.5, 1, 0.99)}));
    QVERIFY(eval.addDetectedImage("w,0001", {box(0, 0, 0.5, 0.5, 1, 0.9)}));
    QVERIFY(!eval.addDetectedImage("w,0001", {}));  // a key comes once
    const AvaResult r = eval.evaluate();
    QVERIFY(std::fabs(r.map - 0.5) < kEps);
    QCOMPARE(r.classes[0].detections, std::int64_t(2));
  }

  // Classes 1 and 2 in the label map, groundtruth only for class 1 (AP 1): class 2's AP is NaN
  // and the mean skips it (1, not 1/2), as np.nanmean does. With no groundtruth at all the mean
  // is NaN.
  void classWithoutGroundTruthIsNaNAndSkipped() {
    AvaEvaluation eval({{1, "stand"}, {2, "sit"}});
    QVERIFY(eval.addGroundTruthImage("v,0001", {box(0, 0, 0.5, 0.5, 1)}));
    QVERIFY(eval.addDetectedImage("v,0001",
                                  {box(0, 0, 0.5, 0.5, 1, 0.5), box(0, 0, 0.5, 0.5, 2, 0.9)}));
    const AvaResult r = eval.evaluate();
    QCOMPARE(r.map, 1.0);
    QVERIFY(std::isnan(apOf(r, 2)));
    QCOMPARE(r.classes_with_groundtruth, 1);

    AvaEvaluation none({{1, "stand"}});
    QVERIFY(none.addDetectedImage("v,0001", {box(0, 0, 0.5, 0.5, 1, 0.5)}));
    QVERIFY(std::isnan(none.evaluate().map));
  }

  // Detections and groundtruth of class 5, which the label map lacks, change nothing: the
  // high-scoring class-5 false positive would otherwise be a class of its own.
  void classesOutsideTheLabelMapAreIgnored() {
    AvaEvaluation eval({{1, "stand"}, {3, "walk"}});
    QVERIFY(eval.addGroundTruthImage("v,0001", {box(0, 0, 0.5, 0.5, 1), box(0, 0, 0.5, 0.5, 5)}));
    QVERIFY(eval.addDetectedImage("v,0001",
                                  {box(0, 0, 0.5, 0.5, 1, 0.5), box(0.5, 0.5, 1, 1, 5, 0.99)}));
    const AvaResult r = eval.evaluate();
    QCOMPARE(r.map, 1.0);
    QCOMPARE(r.classes.size(), std::size_t(2));  // ids 1 and 3, not 2, 4 or 5
    QCOMPARE(r.classes[1].id, 3);
  }

  // Through files: keyframe v,0002 holds one groundtruth box and a far-off 0.9 detection.
  // Counted: ranked FP (0.9) then TP (0.5) over 2 boxes: P 0, 1/2 at R 0, 1/2: AP 1/4.
  // Excluded: both go, the 0.5 detection finds the only box: AP 1.
  void exclusionsDropGroundTruthAndDetections() {
    QTemporaryDir dir;
    using amp::testsupport::writeFile;
    AvaFiles files;
    files.labelMap = writeFile(dir, "lm.pbtxt", "item {\n  name: \"stand\"\n  id: 1\n}\n");
    files.groundTruth = writeFile(dir, "gt.csv",
                                  "v,0001,0.0,0.0,0.5,0.5,1,0\n"
                                  "v,0002,0.0,0.0,0.5,0.5,1,0\n");
    files.detections = writeFile(dir, "det.csv",
                                 "v,0001,0.0,0.0,0.5,0.5,1,0.5\n"
                                 "v,0002,0.6,0.6,0.9,0.9,1,0.9\n");
    std::string error;
    auto counted = AvaEvaluation::evaluateFiles(files, &error);
    QVERIFY2(counted, error.c_str());
    QVERIFY(std::fabs(counted->map - 0.25) < kEps);
    files.exclusions = writeFile(dir, "ex.csv", "v,2\n");  // "2" is the key "v,0002"
    auto excluded = AvaEvaluation::evaluateFiles(files, &error);
    QVERIFY2(excluded, error.c_str());
    QCOMPARE(excluded->map, 1.0);
    QCOMPARE(excluded->excluded_groundtruth_images, std::int64_t(1));
    QCOMPARE(excluded->excluded_detection_images, std::int64_t(1));
    QCOMPARE(excluded->groundtruth_images, std::int64_t(1));
  }

  // evaluateFiles names the file of the first problem.
  void fileErrorsNameTheFile() {
    QTemporaryDir dir;
    using amp::testsupport::writeFile;
    AvaFiles files;
    files.labelMap = writeFile(dir, "lm.pbtxt", "item { name: \"stand\" id: 1 }\n");
    files.groundTruth = writeFile(dir, "gt.csv", "v,0001,0.0,0.0,0.5,0.5,1\n");
    files.detections = writeFile(dir, "det.csv", "v,0001,0.0,0.0,0.5,0.5,1,high\n");
    std::string error;
    QVERIFY(!AvaEvaluation::evaluateFiles(files, &error));
    QVERIFY2(error.find("det.csv:1: score 'high' is not a number") != std::string::npos,
             error.c_str());
    files.exclusions = dir.path().toStdString() + "/missing.csv";
    QVERIFY(!AvaEvaluation::evaluateFiles(files, &error));
    QVERIFY2(error.find("missing.csv") != std::string::npos, error.c_str());
  }

  void labelMapMustHoldValidIds() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AvaEvaluation({}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AvaEvaluation({{0, "zero"}}));
  }
};

QTEST_GUILESS_MAIN(TestAvaEvaluation)
#include "tst_avaevaluation.moc"
