// A group's statistics against hand-computed numbers: runs on one grid, runs of unequal lengths
// and spacing (interpolated, not extended past their end), a run without the metric, non-finite
// points, the grid cap, and the summary figures' mean and sample standard deviation.
#include <QtTest>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "metrics/GroupBands.h"

using namespace amp;

namespace {
metrics::CurveView view(const std::vector<double>& x, const std::vector<double>& y) {
  return {x.data(), y.data(), std::min(x.size(), y.size())};
}
void compareVectors(const std::vector<double>& got, const std::vector<double>& want) {
  QCOMPARE(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    QVERIFY2(std::abs(got[i] - want[i]) < 1e-12,
             qPrintable(QString("[%1]: %2, expected %3").arg(i).arg(got[i]).arg(want[i])));
}
}  // namespace

class TestGroupBands : public QObject {
  Q_OBJECT
 private slots:
  void runsOnOneGrid() {
    const std::vector<double> x = {0, 1, 2}, a = {1, 2, 3}, b = {3, 4, 5};
    const metrics::GroupBand band = metrics::computeGroupBand({view(x, a), view(x, b)});
    QCOMPARE(band.members, 2);
    compareVectors(band.x, {0, 1, 2});
    compareVectors(band.mean, {2, 3, 4});
    // (1 - 2)^2 + (3 - 2)^2 = 2, over n - 1 = 1: std sqrt(2)
    compareVectors(band.std, {std::sqrt(2.0), std::sqrt(2.0), std::sqrt(2.0)});
    compareVectors(band.min, {1, 2, 3});
    compareVectors(band.max, {3, 4, 5});
    QCOMPARE(band.count, (std::vector<int>{2, 2, 2}));
  }

  // A logs every step to 3; B every other step and stops at 2; C lacks the metric; D has only
  // NaN. On the union grid {0, 1, 2, 3}: B at 1 is halfway between 4 and 8 (6); at 3 only A.
  void unequalLengthsAndMissingMetrics() {
    const std::vector<double> ax = {0, 1, 2, 3}, ay = {0, 10, 20, 30};
    const std::vector<double> bx = {0, 2}, by = {4, 8};
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> dx = {0, 1}, dy = {nan, nan};
    const metrics::GroupBand band =
        metrics::computeGroupBand({view(ax, ay), view(bx, by), metrics::CurveView{}, view(dx, dy)});
    QCOMPARE(band.members, 2);  // C and D do not count
    compareVectors(band.x, {0, 1, 2, 3});
    compareVectors(band.mean, {2, 8, 14, 30});
    // x=0: 0 and 4 -> (4 + 4) / 1; x=1: 10 and 6 -> 8; x=2: 20 and 8 -> 72; x=3: one run
    compareVectors(band.std, {std::sqrt(8.0), std::sqrt(8.0), std::sqrt(72.0), 0});
    compareVectors(band.min, {0, 6, 8, 30});
    compareVectors(band.max, {4, 10, 20, 30});
    QCOMPARE(band.count, (std::vector<int>{2, 2, 2, 1}));
  }

  // A NaN step is left out and the member interpolated across it; an x logged twice counts once,
  // with its later value; a member given out of order is sorted.
  void nonFiniteRepeatedAndUnsortedPoints() {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> ax = {0, 1, 2}, ay = {1, inf, 3};
    const std::vector<double> bx = {2, 0, 1, 1}, by = {1, 1, 5, 1};
    const metrics::GroupBand band = metrics::computeGroupBand({view(ax, ay), view(bx, by)});
    compareVectors(band.x, {0, 1, 2});
    compareVectors(band.mean, {1, 1.5, 2});  // x=1: A 2 (interpolated), B 1 (the later value)
    QCOMPARE(band.count, (std::vector<int>{2, 2, 2}));
  }

  // More x than maxPoints: an even grid from the first to the last x; B (0..4) ends before 5.
  void evenGridBeyondMaxPoints() {
    std::vector<double> ax, ay, bx, by;
    for (int i = 0; i <= 10; ++i) ax.push_back(i), ay.push_back(i);
    for (int i = 0; i <= 4; ++i) bx.push_back(i), by.push_back(2 * i);
    metrics::BandOptions options;
    options.maxPoints = 3;
    const metrics::GroupBand band =
        metrics::computeGroupBand({view(ax, ay), view(bx, by)}, options);
    compareVectors(band.x, {0, 5, 10});
    compareVectors(band.mean, {0, 5, 10});
    QCOMPARE(band.count, (std::vector<int>{2, 1, 1}));
    // A group where nobody has the metric has an empty band.
    QVERIFY(metrics::computeGroupBand({metrics::CurveView{}}).x.empty());
    QCOMPARE(metrics::computeGroupBand({}).members, 0);
  }

  void figuresOfAGroup() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto s = metrics::figureStats({1.0, 2.0, std::nullopt, nan, 4.0});
    QVERIFY(s);
    QCOMPARE(s->n, 3);
    QVERIFY(std::abs(s->mean - 7.0 / 3.0) < 1e-12);
    // deviations -4/3, -1/3, 5/3: squares sum to 42/9, over n - 1 = 2: 7/3
    QVERIFY(std::abs(s->std - std::sqrt(7.0 / 3.0)) < 1e-12);
    QCOMPARE(s->min, 1.0);
    QCOMPARE(s->max, 4.0);
    const auto one = metrics::figureStats({std::nullopt, 5.0});
    QVERIFY(one && one->n == 1 && one->mean == 5.0 && one->std == 0.0);
    QVERIFY(!metrics::figureStats({std::nullopt, nan}));
  }
};

QTEST_APPLESS_MAIN(TestGroupBands)
#include "tst_groupbands.moc"
