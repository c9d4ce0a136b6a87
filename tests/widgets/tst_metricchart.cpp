// The chart under long runs: past its direct-point limit it draws a min/max envelope (spikes
// stay), zooming in shows every point again, following fits the axes from running extents.
#include <QtTest>
#include <cmath>

#include "MetricChart.h"
#include "SmoothedValue.h"

using amp::widgets::MetricChart;

class TestMetricChart : public QObject {
  Q_OBJECT
 private slots:
  void envelopeKeepsSpikesAndZoomShowsEveryPoint() {
    MetricChart chart("test", "Test", "value");
    chart.resize(600, 300);
    const int s = chart.addSeries("loss", Qt::blue);
    QVector<double> x, y;
    for (int i = 0; i < 100000; ++i) {
      x.push_back(i);
      y.push_back(i == 54321 ? 1000.0 : (i % 7) / 7.0);
    }
    // In two appends, as live updates arrive.
    chart.appendPoints(s, x.mid(0, 60000), y.mid(0, 60000));
    chart.appendPoints(s, x.mid(60000), y.mid(60000));
    QCOMPARE(chart.pointCount(s), std::size_t(100000));
    chart.fitIfFollowing();
    QCOMPARE(chart.xAxis->range().lower, 0.0);
    QCOMPARE(chart.xAxis->range().upper, 99999.0);
    QVERIFY(chart.yAxis->range().upper >= 1000.0);
    chart.replot();
    const auto* data = chart.seriesGraph(s)->data().data();
    QVERIFY2(data->size() < 5000,
             qPrintable(QString::number(data->size())));  // about two points per pixel
    double top = 0;
    for (auto it = data->constBegin(); it != data->constEnd(); ++it) top = std::max(top, it->value);
    QCOMPARE(top, 1000.0);  // the one spike survives the envelope
    // Zoomed in: the raw points of the range (and one beyond each side).
    chart.setFollowing(false);
    chart.xAxis->setRange(54300, 54340);
    chart.replot();
    data = chart.seriesGraph(s)->data().data();
    QCOMPARE(data->size(), 43);
    QCOMPARE(data->at(22)->key, 54321.0);
    QCOMPARE(data->at(22)->value, 1000.0);
    QVERIFY(chart.valuesAt(54321.2).join(' ').contains("loss: 1000"));
    chart.fitY();
    QVERIFY(chart.yAxis->range().upper > 1000.0 && chart.yAxis->range().lower < 0.0);
  }

  void theTrackerNamesAPointThatExistsWithItsUnit() {
    MetricChart chart("accuracy", "Accuracy", "%");
    chart.resize(600, 300);
    chart.setXLabel("step");
    chart.setValueUnit("%");
    const int train = chart.addSeries("train top-1", Qt::blue);
    const int val = chart.addSeries("val top-1", Qt::red, MetricChart::Style::Points);
    const int mark = chart.addSeries("skipped", Qt::black, MetricChart::Style::Markers);
    chart.appendPoints(train, {10, 20, 30}, {40, 55, 61});
    chart.appendPoints(val, {10, 30}, {35, 57.5});
    chart.appendPoints(mark, {30}, {61});
    chart.fitIfFollowing();
    QCOMPARE(chart.nearestPointX(21.7), 20.0);
    QCOMPARE(chart.nearestPointX(28.2), 30.0);
    chart.showTrackerAt(21.7);  // where the mouse is, between steps
    // Connected points give their nearest value; a marker only where it is.
    QCOMPARE(chart.trackerText(), QString("step 20\ntrain top-1: 55%\nval top-1: 35%"));
    chart.showTrackerAt(29.4);
    QCOMPARE(chart.trackerText(),
             QString("step 30\ntrain top-1: 61%\nval top-1: 57.5%\nskipped: 61%"));
    chart.hideTracker();
    QCOMPARE(chart.trackerText(), QString());

    MetricChart memory("memory", "Memory", "MiB");
    memory.setValueUnit("MiB");
    memory.appendPoints(memory.addSeries("peak RSS", Qt::blue), {1, 2}, {300, 310});
    QCOMPARE(memory.valuesAt(2), QStringList{"peak RSS: 310 MiB"});
    MetricChart loss(
        "loss", "Loss",
        "cross entropy");  // an axis description, not a unit: nothing written after the value
    loss.appendPoints(loss.addSeries("loss", Qt::blue), {1}, {1.5});
    QCOMPARE(loss.valuesAt(1), QStringList{"loss: 1.5"});
    QCOMPARE(loss.nearestPointX(7), 1.0);
    MetricChart empty("empty", "Empty", "");
    QCOMPARE(empty.nearestPointX(7), 7.0);
  }

  void anEmptyChartSaysSoInsteadOfShowingAxisNumbers() {
    MetricChart chart("memory", "Memory", "MiB");
    const int allocated = chart.addSeries("allocated", Qt::blue);
    const int rss = chart.addSeries("process RSS", Qt::red);
    QVERIFY(chart.showsEmpty());
    QVERIFY(!chart.xAxis->tickLabels() &&
            !chart.yAxis->tickLabels());  // not QCustomPlot's 0-5 as if it were data
    chart.appendPoints(allocated, {}, {});
    chart.appendPoints(rss, {1}, {std::nan("")});  // a point with nothing to draw
    chart.fitIfFollowing();
    QVERIFY(chart.showsEmpty());
    chart.setFollowing(
        false);  // a point arriving while the user holds the view still ends the empty state
    chart.appendPoints(rss, {2}, {300});
    QVERIFY(!chart.showsEmpty());
    QVERIFY(chart.xAxis->tickLabels() && chart.yAxis->tickLabels());
    chart.clearPoints();
    QVERIFY(chart.showsEmpty());
    chart.setNote("No loss scaling in this run");  // a chart's own note says more than "no data"
    QVERIFY(!chart.showsEmpty());
    QVERIFY(!chart.xAxis->tickLabels());
    chart.setNote(QString());
    QVERIFY(chart.showsEmpty());
  }

  void runColoursStayApart() {
    using amp::widgets::distinctColors;
    using amp::widgets::seriesColor;
    using amp::widgets::stableColor;
    // Keys whose own colours are the palette's red (3) and orange (1), and another red one.
    QString red, red2, orange;
    for (int i = 0; i < 1000 && (red2.isEmpty() || orange.isEmpty()); ++i) {
      const QString key = QString("/runs/run%1").arg(i);
      if (stableColor(key) == seriesColor(3) && red.isEmpty())
        red = key;
      else if (stableColor(key) == seriesColor(3) && red2.isEmpty())
        red2 = key;
      if (stableColor(key) == seriesColor(1) && orange.isEmpty()) orange = key;
    }
    QVERIFY(!red.isEmpty() && !red2.isEmpty() && !orange.isEmpty());
    std::vector<QColor> c = distinctColors({red, orange});
    QCOMPARE(c[0], seriesColor(3));  // the first keeps its own colour
    QCOMPARE(c[1],
             seriesColor(0));  // not orange next to red: the first colour apart from it (blue)
    c = distinctColors({orange, red2, red});
    QCOMPARE(c[0], seriesColor(1));
    QCOMPARE(c[1], seriesColor(0));  // red is orange's neighbour
    QCOMPARE(c[2], seriesColor(2));  // blue taken, orange taken: green
    c = distinctColors({red, orange});
    QCOMPARE(c[0], seriesColor(3));  // the same keys, the same colours
    QStringList many;
    for (int i = 0; i < 12; ++i) many << QString("/runs/many%1").arg(i);
    c = distinctColors(many);
    QCOMPARE(c.size(), std::size_t(12));
    for (std::size_t i = 0; i < 10; ++i)
      for (std::size_t j = 0; j < i; ++j)
        QVERIFY2(c[i] != c[j], qPrintable(QString("%1 %2").arg(i).arg(j)));
  }

  // 24 colours, the first ten Tableau's as before, none repeated; 20 keys get 20 colours.
  void thePaletteHoldsTwentyFourColours() {
    using amp::widgets::distinctColors;
    using amp::widgets::kPaletteSize;
    using amp::widgets::seriesColor;
    QCOMPARE(kPaletteSize, 24);
    QCOMPARE(seriesColor(0), QColor(31, 119, 180));
    QCOMPARE(seriesColor(kPaletteSize), seriesColor(0));
    QSet<QRgb> all;
    for (int i = 0; i < kPaletteSize; ++i) all.insert(seriesColor(i).rgb());
    QCOMPARE(all.size(), kPaletteSize);
    QStringList keys;
    for (int i = 0; i < 20; ++i) keys << QString("/sweep/lr%1").arg(i);
    QSet<QRgb> used;
    for (const QColor& c : distinctColors(keys)) used.insert(c.rgb());
    QCOMPARE(used.size(), 20);
    // Past 24 keys the palette comes round again rather than giving the rest one colour.
    keys.clear();
    for (int i = 0; i < 48; ++i) keys << QString("/sweep/run%1").arg(i);
    used.clear();
    const std::vector<QColor> many = distinctColors(keys);
    for (std::size_t i = 24; i < many.size(); ++i) used.insert(many[i].rgb());
    QCOMPARE(used.size(), 24);
  }

  // TensorBoard's de-biased EMA by hand (weight 0.5: 2, then (0.5 * 1 + 0.5 * 4) / 0.75), and
  // the time-weighted one: a run logged every other step is smoothed as one logged every step
  // whose values hold between its points.
  void smoothingAsTensorBoardAndTimeWeighted() {
    amp::widgets::SmoothedValue plain(0.5);
    QCOMPARE(plain.add(2.0), 2.0);
    QVERIFY(std::abs(plain.add(4.0) - 2.5 / 0.75) < 1e-12);
    amp::widgets::SmoothedValue sparse(0.5), dense(0.5);
    (void)sparse.add(2.0, 1.0);
    const double timed = sparse.add(4.0, 2.0);  // decay 0.25: (0.25 * 1 + 0.75 * 4) / 0.875
    QVERIFY(std::abs(timed - 3.25 / 0.875) < 1e-12);
    (void)dense.add(2.0);
    (void)dense.add(4.0);
    QVERIFY(std::abs(dense.add(4.0) - timed) < 1e-12);
    amp::widgets::SmoothedValue raw(0.0);
    QCOMPARE(raw.add(7.0), 7.0);
    QCOMPARE(raw.add(3.0, 5.0), 3.0);
  }

  // Hovering a curve writes its name at its last point; a group's band edges are never named
  // and neither they nor member runs are read out by the tracker.
  void aHoveredCurveIsNamedAtItsEnd() {
    MetricChart chart("loss", "Loss", "value");
    chart.resize(400, 300);
    const int low = chart.addSeries("low", Qt::blue);
    const int high = chart.addSeries("high", Qt::red);
    const int edge = chart.addSeries("edge", Qt::red, MetricChart::Style::Faint);
    const int member = chart.addSeries("seed 2", Qt::red, MetricChart::Style::Faint);
    chart.setSeriesRole(edge, MetricChart::Role::Band);
    chart.setSeriesRole(member, MetricChart::Role::Member);
    chart.appendPoints(low, {0, 10}, {0, 0});
    chart.appendPoints(high, {0, 10}, {10, 10});
    chart.appendPoints(edge, {0, 10}, {9.9, 9.9});
    chart.appendPoints(member, {0, 10}, {5, 5});
    chart.fitIfFollowing();
    chart.replot();
    const QPointF onHigh(chart.xAxis->coordToPixel(5), chart.yAxis->coordToPixel(10) + 2);
    QCOMPARE(chart.seriesAt(onHigh), high);
    const QPointF onMember(chart.xAxis->coordToPixel(5), chart.yAxis->coordToPixel(5));
    QCOMPARE(chart.seriesAt(onMember), member);
    QSignalSpy hovered(&chart, &MetricChart::seriesHovered);
    QMouseEvent move(QEvent::MouseMove, onHigh, chart.mapToGlobal(onHigh), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&chart, &move);
    QCOMPARE(chart.endLabel(), QString("high"));
    QCOMPARE(hovered.count(), 1);
    QCOMPARE(hovered.at(0).at(0).toInt(), high);
    const QStringList values = chart.valuesAt(5);
    QCOMPARE(values.size(), 2);  // low and high: no band edge, no member
    chart.showEndLabel(-1);
    QVERIFY(chart.endLabel().isEmpty());
    QCOMPARE(chart.legend->itemCount(), 2);
    // Emphasis: the chosen curve thick, the others faint; and back.
    chart.setEmphasis({low});
    QCOMPARE(chart.seriesGraph(low)->pen().widthF(), 2.5);
    QVERIFY(chart.seriesGraph(high)->pen().color().alpha() <= 40);
    chart.setEmphasis({});
    QCOMPARE(chart.seriesGraph(high)->pen().color().alpha(), 255);
  }

  void theLegendMovesOffTheCurves() {
    MetricChart chart("accuracy", "Accuracy", "%");
    chart.resize(400, 300);
    const int a = chart.addSeries("rising", Qt::blue);
    const int b = chart.addSeries("second", Qt::red);
    const auto topRight = Qt::AlignTop | Qt::AlignRight;
    QCOMPARE(chart.legendCorner(), topRight);
    // A curve from the bottom left to the top right (and one along it): the top-right corner is
    // taken, the top-left and bottom-right ones are free.
    QVector<double> x, y;
    for (int i = 0; i <= 200; ++i) x.push_back(i), y.push_back(i / 2.0);
    chart.appendPoints(a, x, y);
    chart.appendPoints(b, x, y);
    chart.fitIfFollowing();
    chart.replot();  // lays the legend out
    chart.replot();
    const auto moved = chart.legendCorner();
    QVERIFY2(moved == (Qt::AlignTop | Qt::AlignLeft) || moved == (Qt::AlignBottom | Qt::AlignRight),
             qPrintable(QString::number(moved)));
    // The curve leaves: the legend goes back to its own corner.
    chart.clearPoints();
    chart.appendPoints(a, {0, 100, 200}, {0, 10, 0});
    chart.fitIfFollowing();
    chart.replot();
    QCOMPARE(chart.legendCorner(), topRight);
  }

  void log2AxisShowsAConstantScale() {
    MetricChart chart("scale", "Scale", "factor");
    const int s = chart.addSeries("loss scale", Qt::red);
    chart.setYScale(MetricChart::YScale::Log2);
    chart.appendPoints(s, {1, 2, 3}, {1, 1, 1});
    chart.fitIfFollowing();
    QCOMPARE(chart.yAxis->range().lower, 0.25);
    QCOMPARE(chart.yAxis->range().upper, 4.0);
    QCOMPARE(chart.yAxis->scaleType(), QCPAxis::stLogarithmic);
  }

  // Log 10 on data inside one decade (peak memory 300-500 MiB): several distinct ticks at 1-2-5
  // style steps, labelled as plain numbers, on a range close to the data.
  void log10AxisLabelsAreDistinctPlainNumbers() {
    MetricChart chart("memory", "Memory", "MiB");
    const int s = chart.addSeries("peak", Qt::blue);
    chart.setYScale(MetricChart::YScale::Log10);
    chart.appendPoints(s, {1, 2, 3}, {300, 400, 500});
    chart.fitIfFollowing();
    chart.replot();
    QVERIFY(chart.yAxis->range().lower > 200 &&
            chart.yAxis->range().upper < 700);  // margin, and a factor 3 at least
    const QVector<double> ticks = chart.yAxis->tickVector();
    const QVector<QString> labels = chart.yAxis->tickVectorLabels();
    QVERIFY2(ticks.size() >= 3, qPrintable(QStringList(labels.begin(), labels.end()).join(", ")));
    QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
    QVERIFY2(labels.contains("300") && labels.contains("400") && labels.contains("500"),
             qPrintable(QStringList(labels.begin(), labels.end()).join(", ")));
    // Over five decades: powers of ten or 1-2-5 steps, at most 8.
    chart.appendPoints(s, {4}, {3e6});
    chart.fitIfFollowing();
    chart.replot();
    QVERIFY(chart.yAxis->tickVector().size() <= 8 && chart.yAxis->tickVector().size() >= 3);
    for (double t : chart.yAxis->tickVector()) {
      const double mantissa = t / std::pow(10.0, std::floor(std::log10(t) + 1e-9));
      QVERIFY2(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
                   std::abs(mantissa - 5) < 1e-6,
               qPrintable(QString::number(t)));
    }
  }

  void exportWritesPngAndPdf() {
    QTemporaryDir dir;
    MetricChart chart("lr", "Learning rate", "");
    const int s = chart.addSeries("lr", Qt::darkGreen);
    chart.appendPoints(s, {0, 1, 2}, {0.1, 0.05, 0.0});
    QVERIFY(chart.exportTo(dir.path() + "/lr.png", 400, 300));
    QVERIFY(chart.exportTo(dir.path() + "/lr.pdf", 400, 300));
    QCOMPARE(QImage(dir.path() + "/lr.png").width(), 800);  // 2x for sharp text
    QFile pdf(dir.path() + "/lr.pdf");
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
  }
};

QTEST_MAIN(TestMetricChart)
#include "tst_metricchart.moc"
