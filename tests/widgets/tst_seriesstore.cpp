// The charts' data without a chart: the min/max envelope keeps spikes and is bounded by pixels,
// ranges and nearest points are right, out-of-order appends are sorted in, notes go with clear.
// Envelope checks compare against a brute-force scan of the same points.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "SeriesStore.h"

using amp::widgets::SeriesStore;

namespace {

void append(SeriesStore& store, int s, const std::vector<double>& x, const std::vector<double>& y) {
  store.append(s, x.data(), y.data(), x.size());
}

// The finite min and max of y over the indices [i0, i1).
std::pair<double, double> scan(const std::vector<double>& y, std::size_t i0, std::size_t i1) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = i0; i < i1; ++i)
    if (std::isfinite(y[i])) lo = std::min(lo, y[i]), hi = std::max(hi, y[i]);
  return {lo, hi};
}

std::pair<double, double> minMax(const std::vector<SeriesStore::Point>& points) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& p : points) lo = std::min(lo, p.y), hi = std::max(hi, p.y);
  return {lo, hi};
}

}  // namespace

class TestSeriesStore : public QObject {
  Q_OBJECT
 private slots:
  void envelopeKeepsASpikeVisible() {
    SeriesStore store;
    const int s = store.addSeries();
    std::vector<double> x, y;
    for (int i = 0; i < 1000000; ++i) {
      x.push_back(i);
      y.push_back(i == 654321 ? 1000.0 : i == 123457 ? -500.0 : (i % 7) / 7.0);
    }
    append(store, s, x, y);
    std::vector<SeriesStore::Point> out;
    store.envelope(s, 0, 999999, 600, out);
    // A few points per pixel, not a million, and the spike and the dip among them.
    QVERIFY2(out.size() <= 16 * 600 + 512 && out.size() >= 600,
             qPrintable(QString::number(out.size())));
    const auto [lo, hi] = minMax(out);
    QCOMPARE(hi, 1000.0);
    QCOMPARE(lo, -500.0);
    // Every drawn point is a data point, in x order, so the line goes through the spike.
    for (std::size_t i = 0; i < out.size(); ++i) {
      QCOMPARE(out[i].y, y[static_cast<std::size_t>(out[i].x)]);
      if (i) QVERIFY(out[i].x > out[i - 1].x);
    }
    // Zoomed in around the spike: every point, one beyond each side.
    store.envelope(s, 654300, 654340, 600, out);
    QCOMPARE(out.size(), std::size_t(43));
    QCOMPARE(out.front().x, 654299.0);
    QCOMPARE(out[22].x, 654321.0);
    QCOMPARE(out[22].y, 1000.0);
    // Just past the spike, it is not drawn.
    store.envelope(s, 654400, 999999, 600, out);
    QVERIFY(minMax(out).second < 1.0);
  }

  void envelopeMinMaxMatchTheDataOverAnyRange() {
    SeriesStore store;
    const int s = store.addSeries();
    std::mt19937 random(7);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::vector<double> x, y;
    for (int i = 0; i < 300000; ++i) {
      x.push_back(i * 0.5);
      y.push_back(i % 1000 == 999 ? std::nan("") : noise(random));
    }
    append(store, s, x, y);
    std::uniform_int_distribution<int> pick(0, 299999);
    for (int trial = 0; trial < 200; ++trial) {
      int a = pick(random), b = pick(random);
      if (a > b) std::swap(a, b);
      const double pixels = 50 + trial * 7;
      std::vector<SeriesStore::Point> out;
      store.envelope(s, x[a], x[b], pixels, out);
      // The envelope covers the range and one point beyond each side, no more, no less.
      const std::size_t i0 = a > 0 ? a - 1 : 0, i1 = std::min<std::size_t>(x.size(), b + 2);
      const auto [lo, hi] = scan(y, i0, i1);
      const auto [elo, ehi] = minMax(out);
      QVERIFY2(elo == lo && ehi == hi, qPrintable(QString("trial %1: [%2, %3] %4..%5 vs %6..%7")
                                                      .arg(trial)
                                                      .arg(a)
                                                      .arg(b)
                                                      .arg(elo)
                                                      .arg(ehi)
                                                      .arg(lo)
                                                      .arg(hi)));
      QVERIFY(out.size() <= std::max<std::size_t>(i1 - i0, 16 * pixels + 512));
      // valueRange looks at the range itself (no neighbours).
      const std::pair<double, double> inside = scan(y, a, b + 1);
      double vlo = 0, vhi = 0;
      const bool any = store.valueRange(s, x[a], x[b], false, &vlo, &vhi);
      QCOMPARE(any, std::isfinite(inside.first));
      if (any) {
        QCOMPARE(vlo, inside.first);
        QCOMPARE(vhi, inside.second);
      }
    }
  }

  void valueRangeAndExtentsSkipWhatAnAxisCannotShow() {
    SeriesStore store;
    const int s = store.addSeries();
    append(store, s, {1, 2, 3, 4, 5, 6},
           {-2, 0, std::nan(""), 8, 0.5, std::numeric_limits<double>::infinity()});
    double lo = 0, hi = 0;
    QVERIFY(store.valueRange(s, 1, 6, false, &lo, &hi));
    QCOMPARE(lo, -2.0);
    QCOMPARE(hi, 8.0);
    QVERIFY(store.valueRange(s, 1, 6, true, &lo, &hi));  // a log axis: only y > 0
    QCOMPARE(lo, 0.5);
    QCOMPARE(hi, 8.0);
    QVERIFY(store.valueRange(s, 2.5, 4.5, false, &lo, &hi));
    QCOMPARE(lo, 8.0);
    QCOMPARE(hi, 8.0);
    QVERIFY(!store.valueRange(s, 1, 2, true, &lo, &hi));  // -2 and 0 only
    QVERIFY(!store.valueRange(s, 10, 20, false, &lo, &hi));
    const SeriesStore::Extents& e = store.extents(s);
    QVERIFY(e.any);
    QCOMPARE(e.minX, 1.0);
    QCOMPARE(e.maxX, 5.0);  // x = 6 has no finite value
    QCOMPARE(e.minY, -2.0);
    QCOMPARE(e.maxY, 8.0);
    QCOMPARE(e.minPositiveY, 0.5);
    const int nothing = store.addSeries();
    append(store, nothing, {1}, {std::nan("")});
    QVERIFY(!store.extents(nothing).any);
    QCOMPARE(store.pointCount(nothing), std::size_t(1));  // kept: the tracker may name it
  }

  void outOfOrderAppendsAreSortedIn() {
    SeriesStore store;
    const int s = store.addSeries();
    SeriesStore::Appended a = store.append(s, std::vector<double>{1, 2, 3}.data(),
                                           std::vector<double>{10, 20, 30}.data(), 3);
    QVERIFY(a.inOrder);
    a = store.append(s, std::vector<double>{0.5, 2.5}.data(), std::vector<double>{5, 25}.data(), 2);
    QVERIFY(!a.inOrder);
    QVERIFY(store.xs(s) == (std::vector<double>{0.5, 1, 2, 2.5, 3}));
    QVERIFY(store.ys(s) == (std::vector<double>{5, 10, 20, 25, 30}));  // y stays with its x
    // A batch after the last point but not sorted in itself is sorted too.
    a = store.append(s, std::vector<double>{9, 4}.data(), std::vector<double>{90, 40}.data(), 2);
    QVERIFY(!a.inOrder);
    QVERIFY(store.xs(s) == (std::vector<double>{0.5, 1, 2, 2.5, 3, 4, 9}));
    QCOMPARE(store.ys(s).back(), 90.0);
    QCOMPARE(store.nearestIndex(s, 8), std::size_t(6));

    // Past many blocks: markers arriving late land in the pyramid where they belong.
    SeriesStore big;
    const int b = big.addSeries();
    std::vector<double> x, y;
    for (int i = 0; i < 200000; i += 2) x.push_back(i), y.push_back(0);
    append(big, b, x, y);
    append(big, b, {77777, 3}, {-9, 9});
    QCOMPARE(big.pointCount(b), std::size_t(100002));
    QVERIFY(std::is_sorted(big.xs(b).begin(), big.xs(b).end()));
    std::vector<SeriesStore::Point> out;
    big.envelope(b, 0, 200000, 300, out);
    QVERIFY(out.size() < 6000);
    QCOMPARE(minMax(out), std::make_pair(-9.0, 9.0));
    big.envelope(b, 100000, 200000, 300, out);
    QCOMPARE(minMax(out), std::make_pair(0.0, 0.0));
  }

  void nearestPoint() {
    SeriesStore store;
    const int s = store.addSeries();
    QCOMPARE(store.nearestIndex(s, 5), SeriesStore::kNone);
    append(store, s, {10, 20, 30}, {1, 2, 3});
    QCOMPARE(store.nearestIndex(s, -100), std::size_t(0));
    QCOMPARE(store.nearestIndex(s, 1e9), std::size_t(2));
    QCOMPARE(store.nearestIndex(s, 21.7), std::size_t(1));
    QCOMPARE(store.nearestIndex(s, 28.2), std::size_t(2));
    QCOMPARE(store.nearestIndex(s, 20), std::size_t(1));
    // Halfway: the caller says which wins.
    QCOMPARE(store.nearestIndex(s, 25, SeriesStore::Tie::Earlier), std::size_t(1));
    QCOMPARE(store.nearestIndex(s, 25, SeriesStore::Tie::Later), std::size_t(2));
  }

  void notesAndPointsAreCleared() {
    SeriesStore store;
    const int a = store.addSeries(), b = store.addSeries();
    append(store, a, {1, 2, 3}, {1, 2, 3});
    append(store, b, {2}, {5});
    store.setNote(b, 2, "first inf/NaN in layer4.conv");
    QVERIFY(store.note(b, 2));
    QCOMPARE(*store.note(b, 2), std::string("first inf/NaN in layer4.conv"));
    QVERIFY(!store.note(b, 2.5));
    QVERIFY(!store.note(a, 2));  // a note belongs to its series
    store.setNote(b, 2, "replaced");
    QCOMPARE(*store.note(b, 2), std::string("replaced"));
    store.clearPoints();
    QCOMPARE(store.seriesCount(), 2);
    QCOMPARE(store.pointCount(a), std::size_t(0));
    QVERIFY(!store.note(b, 2));
    QVERIFY(!store.extents(a).any);
    append(store, b, {2}, {6});
    QVERIFY(!store.note(b, 2));  // a new point at the old x has no old note
    store.removeAll();
    QCOMPARE(store.seriesCount(), 0);
  }

  void longSeriesSwitchToEnvelopesOnce() {
    SeriesStore store;
    store.setDirectPointLimit(100);
    const int s = store.addSeries();
    std::vector<double> x(60), y(60, 1.0);
    for (int i = 0; i < 60; ++i) x[i] = i;
    SeriesStore::Appended a = store.append(s, x.data(), y.data(), x.size());
    QVERIFY(!a.envelopeStarted && !store.enveloped(s));
    for (double& v : x) v += 60;
    a = store.append(s, x.data(), y.data(), x.size());  // 120 points: past 100
    QVERIFY(a.envelopeStarted && store.enveloped(s));
    for (double& v : x) v += 60;
    a = store.append(s, x.data(), y.data(), x.size());
    QVERIFY(!a.envelopeStarted && store.enveloped(s));  // started once
    store.clearPoints();
    QVERIFY(!store.enveloped(s));
  }

  // Five million points arriving as a live run does (a thousand at a time): the extents follow
  // without scans, the whole run is drawn from a bounded number of points, a window of it from
  // its raw points.
  void hugeSeries() {
    SeriesStore store;
    const int s = store.addSeries();
    const std::size_t n = 5000000, chunk = 1000;
    std::vector<double> x(chunk), y(chunk);
    for (std::size_t start = 0; start < n; start += chunk) {
      for (std::size_t i = 0; i < chunk; ++i) {
        const std::size_t k = start + i;
        x[i] = static_cast<double>(k);
        y[i] = k == 4321987 ? 1e6 : 2.0 + std::sin(static_cast<double>(k) * 1e-4);
      }
      QVERIFY(store.append(s, x.data(), y.data(), chunk).inOrder);
    }
    QCOMPARE(store.pointCount(s), n);
    QVERIFY(store.enveloped(s));
    QCOMPARE(store.extents(s).maxY, 1e6);
    QCOMPARE(store.extents(s).maxX, static_cast<double>(n - 1));
    QVERIFY(std::abs(store.extents(s).minY - 1.0) < 1e-6);
    std::vector<SeriesStore::Point> out;
    store.envelope(s, 0, static_cast<double>(n), 1000, out);
    QVERIFY2(out.size() <= 16 * 1000 + 512, qPrintable(QString::number(out.size())));
    QCOMPARE(minMax(out).second, 1e6);
    store.envelope(s, 4321980, 4321990, 1000, out);
    QCOMPARE(out.size(), std::size_t(13));
    QCOMPARE(out[8].y, 1e6);
    QCOMPARE(store.nearestIndex(s, 4321987.4), std::size_t(4321987));
  }
};

QTEST_APPLESS_MAIN(TestSeriesStore)
#include "tst_seriesstore.moc"
