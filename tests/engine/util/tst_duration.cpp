// The one H:MM:SS formatter the studio and the command line share.
#include <QtTest>

#include <limits>

#include "util/Duration.h"

using amp::util::formatDuration;

class TestDuration : public QObject {
  Q_OBJECT
 private slots:
  void writesHoursMinutesSeconds_data() {
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << 0.0 << "0:00:00";
    QTest::newRow("seconds are padded") << 5.0 << "0:00:05";
    QTest::newRow("minutes are padded") << 125.0 << "0:02:05";
    QTest::newRow("an hour") << 3600.0 << "1:00:00";
    QTest::newRow("just under an hour") << 3599.0 << "0:59:59";
    QTest::newRow("hours do not roll into days") << 90061.0 << "25:01:01";
    QTest::newRow("a hundred hours") << 360000.0 << "100:00:00";
  }
  void writesHoursMinutesSeconds() {
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatDuration(seconds)), text);
  }

  // The studio rounded and the command line cut off: both now round, so an ETA of 59.6 s reads
  // a minute on either.
  void roundsToTheNearestSecond() {
    QCOMPARE(formatDuration(59.4), std::string("0:00:59"));
    QCOMPARE(formatDuration(59.6), std::string("0:01:00"));
    QCOMPARE(formatDuration(3599.5), std::string("1:00:00"));
  }

  void nonsenseReadsZero() {
    QCOMPARE(formatDuration(-3.0), std::string("0:00:00"));
    QCOMPARE(formatDuration(std::numeric_limits<double>::quiet_NaN()), std::string("0:00:00"));
    QCOMPARE(formatDuration(std::numeric_limits<double>::infinity()), std::string("0:00:00"));
    QCOMPARE(formatDuration(-std::numeric_limits<double>::infinity()), std::string("0:00:00"));
  }

  // Beyond any real run: defined (no overflowing cast), still H:MM:SS.
  void hugeValuesStayDefined() {
    const std::string text = formatDuration(1e300);
    QVERIFY2(text.size() > 8 && text.substr(text.size() - 6, 1) == ":", text.c_str());
  }
};

QTEST_GUILESS_MAIN(TestDuration)
#include "tst_duration.moc"
