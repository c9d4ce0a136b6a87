#include <QtTest>

#include <cmath>
#include <vector>

#include "metrics/MeanAveragePrecision.h"

using namespace amp::metrics;

namespace {
constexpr double kEps = 1e-12;
}

class TestMeanAveragePrecision : public QObject {
  Q_OBJECT
 private slots:
  // Every positive ranked above every negative: precision 1 at each recall step.
  void perfectRankingIsOne() {
    QCOMPARE(averagePrecision({0.9f, 0.7f, 0.3f, 0.1f}, {1, 1, 0, 0}), 1.0);
    QCOMPARE(averagePrecision({0.2f, 0.4f}, {0, 1}), 1.0);
  }

  // scores 0.9 0.8 0.7 0.6, positives 1 0 1 0:
  //   0.9: P = 1/1, R = 1/2 (step 1/2); 0.8: P = 1/2, R = 1/2 (no step);
  //   0.7: P = 2/3, R = 1 (step 1/2);   0.6: P = 2/4, R = 1 (no step)
  //   AP = 1/2 * 1 + 1/2 * 2/3 = (1 + 2/3) / 2
  void mixedRanking() {
    QVERIFY(std::fabs(averagePrecision({0.9f, 0.8f, 0.7f, 0.6f}, {1, 0, 1, 0}) -
                      (1 + 2.0 / 3) / 2) < kEps);
    // scikit-learn's docstring example, y_true 0 0 1 1 and scores 0.1 0.4 0.35 0.8:
    //   0.8: P = 1, R = 1/2; 0.4: P = 1/2, R = 1/2; 0.35: P = 2/3, R = 1  ->  1/2 + 1/3
    QVERIFY(std::fabs(averagePrecision({0.1f, 0.4f, 0.35f, 0.8f}, {0, 0, 1, 1}) - 5.0 / 6) < kEps);
  }

  // Tied scores are one threshold: scores 0.5 0.5 0.2, positives 1 0 1:
  //   0.5: P = 1/2, R = 1/2; 0.2: P = 2/3, R = 1  ->  AP = 1/2 * 1/2 + 1/2 * 2/3
  // whichever of the tied samples comes first.
  void tiesAreOneStep() {
    const double expected = 0.5 * 0.5 + 0.5 * 2.0 / 3;
    QVERIFY(std::fabs(averagePrecision({0.5f, 0.5f, 0.2f}, {1, 0, 1}) - expected) < kEps);
    QVERIFY(std::fabs(averagePrecision({0.5f, 0.5f, 0.2f}, {0, 1, 1}) - expected) < kEps);
    QVERIFY(std::fabs(averagePrecision({0.2f, 0.5f, 0.5f}, {1, 0, 1}) - expected) < kEps);
    // All tied: one threshold, P = 2/4 at R = 1.
    QVERIFY(std::fabs(averagePrecision({0.3f, 0.3f, 0.3f, 0.3f}, {1, 0, 0, 1}) - 0.5) < kEps);
  }

  void degenerateClasses() {
    QCOMPARE(averagePrecision({0.3f, 0.1f}, {1, 1}), 1.0);  // every sample positive
    QCOMPARE(averagePrecision({0.3f, 0.1f}, {0, 0}), 0.0);  // none: scikit-learn's 0
    QCOMPARE(averagePrecision({}, {}), 0.0);
    QVERIFY(std::isnan(averagePrecision({NAN, 0.1f}, {1, 0})));  // scikit-learn raises
    QVERIFY(std::isnan(averagePrecision({INFINITY, 0.1f}, {1, 0})));
  }

  // 4 samples x 3 classes. Class 0 is mixedRanking's (1 + 2/3) / 2, class 1 has no positive and
  // is dropped, class 2 is all positive (AP 1): mAP = ((1 + 2/3) / 2 + 1) / 2.
  void meanOverClassesWithPositives() {
    const std::vector<float> scores = {0.9f, 0.1f, 0.3f,  //
                                       0.8f, 0.2f, 0.1f,  //
                                       0.7f, 0.3f, 0.2f,  //
                                       0.6f, 0.4f, 0.9f};
    const std::vector<float> targets = {1, 0, 1,  //
                                        0, 0, 1,  //
                                        1, 0, 1,  //
                                        0, 0, 1};
    const MapResult r = meanAveragePrecision(scores.data(), targets.data(), 4, 3);
    QCOMPARE(r.classes, 3);
    QCOMPARE(r.classes_used, 2);
    QVERIFY(!r.undefined);
    QVERIFY2(std::fabs(r.map - ((1 + 2.0 / 3) / 2 + 1) / 2) < kEps,
             qPrintable(QString::number(r.map)));
    // Per class, what the run directory records: the dropped class has no AP and no positive.
    QCOMPARE(r.ap.size(), std::size_t{3});
    QVERIFY(std::fabs(r.ap[0] - (1 + 2.0 / 3) / 2) < kEps);
    QVERIFY(std::isnan(r.ap[1]));
    QCOMPARE(r.ap[2], 1.0);
    QCOMPARE(r.positives, (std::vector<std::int64_t>{2, 0, 4}));
  }

  // One class left after dropping is scikit-learn's binary case: the same AP (1 when every
  // sample is positive).
  void oneClassLeft() {
    const std::vector<float> scores = {0.2f, 0.9f, 0.4f, 0.1f};
    const std::vector<float> targets = {1, 0, 1, 0};
    const MapResult r = meanAveragePrecision(scores.data(), targets.data(), 2, 2);
    QCOMPARE(r.classes_used, 1);
    QCOMPARE(r.map, 1.0);
  }

  // No class has a positive: every column is dropped, scikit-learn raises ValueError on the
  // N x 0 matrix, and get_map returns np.mean of its initial aps = [0], i.e. 0.
  void noPositiveAnywhereIsZero() {
    const std::vector<float> scores = {0.5f, 0.4f, 0.3f, 0.2f};
    const std::vector<float> targets = {0, 0, 0, 0};
    const MapResult r = meanAveragePrecision(scores.data(), targets.data(), 2, 2);
    QCOMPARE(r.classes_used, 0);
    QVERIFY(r.undefined);
    QCOMPARE(r.map, 0.0);
    QCOMPARE(meanAveragePrecision(nullptr, nullptr, 0, 5).map, 0.0);  // no samples at all
  }

  // scikit-learn raises, and get_map gives 0, when a used score is NaN or a used target is not
  // 0/1 (soft labels); a NaN in a dropped class does not matter.
  void whatScikitLearnRefusesIsZero() {
    std::vector<float> scores = {0.9f, NAN, 0.1f, NAN};
    std::vector<float> targets = {1, 0, 0, 0};
    MapResult r = meanAveragePrecision(scores.data(), targets.data(), 2, 2);
    QVERIFY(!r.undefined);
    QCOMPARE(r.map, 1.0);
    targets = {1, 1, 0, 0};
    r = meanAveragePrecision(scores.data(), targets.data(), 2, 2);
    QVERIFY(r.undefined);
    QCOMPARE(r.map, 0.0);
    scores = {0.9f, 0.8f, 0.1f, 0.2f};
    targets = {1, 0.5f, 0, 1};
    r = meanAveragePrecision(scores.data(), targets.data(), 2, 2);
    QVERIFY(r.undefined);
    QCOMPARE(r.map, 0.0);
  }

  // Ranks gather their rows one rank after another: any order of the rows gives the same value,
  // ties included (scores on a 0.1 grid tie often).
  void rowOrderDoesNotMatter() {
    const std::size_t n = 24, k = 5;
    std::vector<float> scores(n * k), targets(n * k);
    for (std::size_t i = 0; i < n * k; ++i) {
      scores[i] = static_cast<float>((i * 37 % 11)) / 10.0f;
      targets[i] = (i * 53 % 7) < 3 ? 1.0f : 0.0f;
    }
    const MapResult all = meanAveragePrecision(scores.data(), targets.data(), n, k);
    QVERIFY(all.classes_used > 0 && !all.undefined);
    // Two ranks: rank 0 had the even rows, rank 1 the odd ones, gathered rank after rank.
    std::vector<float> s2, t2;
    for (int rank = 0; rank < 2; ++rank)
      for (std::size_t i = rank; i < n; i += 2) {
        s2.insert(s2.end(), scores.begin() + i * k, scores.begin() + (i + 1) * k);
        t2.insert(t2.end(), targets.begin() + i * k, targets.begin() + (i + 1) * k);
      }
    const MapResult gathered = meanAveragePrecision(s2.data(), t2.data(), n, k);
    QCOMPARE(gathered.map, all.map);
    QCOMPARE(gathered.classes_used, all.classes_used);
  }
};

QTEST_APPLESS_MAIN(TestMeanAveragePrecision)
#include "tst_meanaverageprecision.moc"
