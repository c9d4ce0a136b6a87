// The fast path for the common metrics line reads every line it takes exactly as the full JSON
// parser does, and leaves every line outside its subset to it (escapes, non-ASCII, arrays,
// literals, duplicate keys, per_class lines, numbers beyond int64 or a double, broken JSON).
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runlog/MetricEvent.h"
#include "runlog/MetricLineFastPath.h"

using namespace amp;

namespace {
// Both readings of a line agree: the same event, or both refuse it.
void sameAsFullParser(const std::string& line, bool fastTakesIt) {
  runlog::MetricEvent fast;
  const bool took = runlog::parseCommonMetricLine(line, fast);
  QVERIFY2(took == fastTakesIt, line.c_str());
  const auto full = runlog::parseJsonLineFully(line);
  const auto either = runlog::parseJsonLine(line);
  QVERIFY2(full.has_value() == either.has_value(), line.c_str());
  if (full) QVERIFY2(*full == *either, line.c_str());
  if (took) {
    QVERIFY2(full, line.c_str());
    QVERIFY2(*full == fast, line.c_str());
  }
}
}  // namespace

class TestMetricLineFastPath : public QObject {
  Q_OBJECT
 private slots:
  void linesItTakes() {
    for (const std::string line : {
             "{\"epoch\":0.001,\"kind\":\"train\",\"step\":1,\"time\":0.19,\"ts\":1.79e9,\"v\":1,"
             "\"values\":{\"clips_per_s\":40.4,\"loss\":4.06,\"lr\":\"nan\",\"x\":\"inf\",\"y\":\"-"
             "inf\",\"z\":\"text\",\"w\":-0.0}}",
             "  { \"kind\" : \"val\" , \"step\" : 20 , \"values\" : { \"top1_err\" : 25 } }  ",
             "{}",
             "{\"kind\":\"event\",\"name\":\"resumed\",\"message\":\"from step "
             "12\",\"layer\":\"s1.conv\",\"step\":12}",
             "{\"step\":1.5e3,\"epoch\":\"-inf\",\"time\":\"later\",\"values\":7}",
             "{\"step\":\"12\",\"kind\":3,\"name\":4,\"values\":{}}",
             "{\"step\":-9223372036854775808,\"epoch\":12345678901234567,\"values\":{\"a\":1E-5}}",
             "{\"step\":1e300}",
         })
      sameAsFullParser(line, true);
  }

  void linesItLeavesToTheFullParser() {
    for (const std::string line : {
             "{\"kind\":\"per_class\",\"split\":\"val\",\"metric\":\"ap\",\"classes\":[0],\"class_"
             "values\":[0.5]}",
             "{\"name\":\"esc\\\"aped\"}",
             "{\"name\":\"caf\\u00e9\"}",
             "{\"name\":\"caf\xc3\xa9\"}",
             "{\"name\":\"bad \xff byte\"}",
             "{\"values\":{\"a\":1,\"a\":\"x\"}}",
             "{\"step\":1,\"step\":2}",
             "{\"done\":true}",
             "{\"values\":[1,2]}",
             "{\"extra\":{\"nested\":1}}",
             "{\"step\":9223372036854775808}",
             "{\"epoch\":1e999}",
             "{\"epoch\":01}",
             "{\"epoch\":.5}",
             "{\"epoch\":1.}",
             "{\"step\":1,}",
             "{\"step\":1} trailing",
             "{\"step\":1",
             "[1,2]",
             "",
         })
      sameAsFullParser(line, false);
  }

  // Events as the writer writes them (toJsonLine) read back the same, through either path.
  void writtenEventsRoundTrip() {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1e6, 1e6);
    for (int i = 0; i < 200; ++i) {
      runlog::MetricEvent e;
      e.kind = i % 3 == 0 ? runlog::kind::kVal : runlog::kind::kTrain;
      e.step = i * 37;
      e.epoch = u(rng);
      e.time_s = std::abs(u(rng));
      e.values = {{"loss", u(rng)}, {"tiny", u(rng) * 1e-300}, {"lr", i % 7 ? u(rng) : NAN}};
      const std::string line = runlog::toJsonLine(e);
      runlog::MetricEvent fast;
      if (runlog::parseCommonMetricLine(line, fast)) QVERIFY2(fast == e, line.c_str());
      sameAsFullParser(line, runlog::parseCommonMetricLine(line, fast));
    }
  }
};

QTEST_APPLESS_MAIN(TestMetricLineFastPath)
#include "tst_metriclinefastpath.moc"
