// The chart under long runs: past its direct-point limit it draws a min/max envelope (spikes
// stay), zooming in shows every point again, following fits the axes from running extents.
#include <QtTest>

#include "MetricChart.h"

using amp::widgets::MetricChart;

class TestMetricChart : public QObject {
  Q_OBJECT
 private slots:
  void envelopeKeepsSpikesAndZoomShowsEveryPoint() {
    MetricChart chart("test", "value");
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
    QVERIFY2(data->size() < 5000, qPrintable(QString::number(data->size())));  // about two points per pixel
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

  void theLegendMovesOffTheCurves() {
    MetricChart chart("accuracy", "%");
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
    QVERIFY2(moved == (Qt::AlignTop | Qt::AlignLeft) || moved == (Qt::AlignBottom | Qt::AlignRight), qPrintable(QString::number(moved)));
    // The curve leaves: the legend goes back to its own corner.
    chart.clearPoints();
    chart.appendPoints(a, {0, 100, 200}, {0, 10, 0});
    chart.fitIfFollowing();
    chart.replot();
    QCOMPARE(chart.legendCorner(), topRight);
  }

  void log2AxisShowsAConstantScale() {
    MetricChart chart("scale", "factor");
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
    MetricChart chart("memory", "MiB");
    const int s = chart.addSeries("peak", Qt::blue);
    chart.setYScale(MetricChart::YScale::Log10);
    chart.appendPoints(s, {1, 2, 3}, {300, 400, 500});
    chart.fitIfFollowing();
    chart.replot();
    QVERIFY(chart.yAxis->range().lower > 200 && chart.yAxis->range().upper < 700);  // margin, and a factor 3 at least
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
      QVERIFY2(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6,
               qPrintable(QString::number(t)));
    }
  }

  void exportWritesPngAndPdf() {
    QTemporaryDir dir;
    MetricChart chart("lr", "");
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
