#include <QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

#include "runlog/MetricsReader.h"
#include "runlog/MetricsWriter.h"

using namespace amp::runlog;

namespace {

MetricEvent trainEvent(std::int64_t step, double loss) {
  MetricEvent e;
  e.kind = kind::kTrain;
  e.step = step;
  e.epoch = static_cast<double>(step) / 10.0;
  e.time_s = static_cast<double>(step) * 0.5;
  e.unix_time_s = 1.7e9 + static_cast<double>(step);
  e.values = {{"loss", loss}, {"lr", 0.1}, {"loss_scale", 65536.0}};
  return e;
}

void appendRaw(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::app | std::ios::binary) << bytes;
}

// The process's peak resident memory so far, in bytes (Linux reports KiB).
long long peakRss() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<long long>(u.ru_maxrss) * 1024;
}

bool anyContains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

MetricEvent resumedAt(std::int64_t step) {
  MetricEvent e;
  e.kind = kind::kEvent;
  e.name = "resumed";
  e.step = step;
  return e;
}

}  // namespace

class TestMetricsLog : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    std::vector<MetricEvent> written;
    {
      MetricsWriter w;
      QVERIFY(w.open(path, nullptr));
      for (int i = 1; i <= 50; ++i) {
        written.push_back(trainEvent(i, 2.0 / i));
        QVERIFY(w.write(written.back(), nullptr));
      }
      MetricEvent ev;
      ev.kind = kind::kEvent;
      ev.step = 50;
      ev.name = "scaler_backoff";
      ev.message = "inf in grads: scale 65536 -> 32768";
      ev.layer = "s5.pathway0_res2.branch2.c";
      ev.values = {{"loss_scale", 32768.0}, {"nan_loss", std::nan("")}, {"inf", -INFINITY}};
      written.push_back(ev);
      QVERIFY(w.write(ev, nullptr));
    }
    const auto read = MetricsReader::readAll(path);
    QCOMPARE(read.size(), written.size());
    for (size_t i = 0; i < read.size(); ++i)
      QVERIFY2(read[i] == written[i], std::to_string(i).c_str());
    QVERIFY(std::isnan(read.back().values.at("nan_loss")));
    QVERIFY(std::isinf(read.back().values.at("inf")));
    QCOMPARE(read.back().layer, std::string("s5.pathway0_res2.branch2.c"));
    QCOMPARE(read[0].layer, std::string());  // absent, as in logs written before the field
    QVERIFY(toJsonLine(read[0]).find("layer") == std::string::npos);
  }

  void unknownFieldsAndKindsAreKept() {
    auto e = parseJsonLine(
        R"({"v":7,"kind":"gpu_probe","step":3,"epoch":0.5,"future":{"x":1},"values":{"temp":61,"bad":[1]}})");
    QVERIFY(e);
    QCOMPARE(e->kind, std::string("gpu_probe"));
    QCOMPARE(e->step, std::int64_t(3));
    QCOMPARE(e->values.size(), size_t(1));
    QCOMPARE(e->values.at("temp"), 61.0);
    QCOMPARE(parseJsonLine(R"({"kind":"train","step":12.0})")->step, std::int64_t(12));
    QCOMPARE(parseJsonLine(R"({"kind":"train","step":7.7e53})")->step,
             std::int64_t(0));  // no integer holds it (fuzzing)
    QVERIFY(!parseJsonLine("{\"kind\":\"train\",\"st"));
    QVERIFY(!parseJsonLine("[1,2]"));
  }

  void tornLastLineIsSkippedAndSealed() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    {
      MetricsWriter w;
      QVERIFY(w.open(path, nullptr));
      QVERIFY(w.write(trainEvent(1, 1.0), nullptr));
      QVERIFY(w.write(trainEvent(2, 0.9), nullptr));
    }
    const std::string third = toJsonLine(trainEvent(3, 0.8));
    appendRaw(path, third.substr(0, third.size() / 2));  // the writer died mid-line
    MetricsReader::ReadStats stats;
    auto events = MetricsReader::readAll(path, &stats);
    QCOMPARE(events.size(), size_t(2));
    QCOMPARE(stats.skippedLines, size_t(1));
    QVERIFY(stats.problems.front().find(":3:") != std::string::npos);

    // A new writer (e.g. the resumed run) seals the torn line, so its own lines stay readable.
    MetricsWriter w;
    QVERIFY(w.open(path, nullptr));
    QVERIFY(w.write(trainEvent(3, 0.8), nullptr));
    w.close();
    events = MetricsReader::readAll(path, &stats);
    QCOMPARE(events.size(), size_t(3));
    QCOMPARE(events.back().step, std::int64_t(3));
    QCOMPARE(stats.skippedLines, size_t(1));
  }

  void followsAGrowingFile() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    MetricsReader reader(path);
    QVERIFY(reader.poll().empty());  // not created yet
    MetricsWriter w;
    QVERIFY(w.open(path, nullptr));
    QVERIFY(w.write(trainEvent(1, 1.0), nullptr));
    QCOMPARE(reader.poll().size(), size_t(1));
    QVERIFY(reader.poll().empty());
    const std::string line = toJsonLine(trainEvent(2, 0.5)) + "\n";
    appendRaw(path, line.substr(0, 10));  // half a line: hold it back
    QVERIFY(reader.poll().empty());
    appendRaw(path, line.substr(10));
    auto got = reader.poll();
    QCOMPARE(got.size(), size_t(1));
    QCOMPARE(got[0].values.at("loss"), 0.5);
    QCOMPARE(reader.skippedLines(), size_t(0));
  }

  void replacedFileRestarts() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    {
      MetricsWriter w;
      QVERIFY(w.open(path, nullptr));
      for (int i = 0; i < 5; ++i) QVERIFY(w.write(trainEvent(i, 1.0), nullptr));
    }
    MetricsReader reader(path);
    QCOMPARE(reader.poll().size(), size_t(5));
    std::remove(path.c_str());
    MetricsWriter w;
    QVERIFY(w.open(path, nullptr));
    QVERIFY(w.write(trainEvent(100, 1.0), nullptr));
    auto got = reader.poll();
    QCOMPARE(got.size(), size_t(1));
    QCOMPARE(got[0].step, std::int64_t(100));
    QVERIFY(reader.restarted());
  }

  void resumeDropsLostSteps() {
    std::vector<MetricEvent> events;
    for (int i = 1; i <= 8; ++i) events.push_back(trainEvent(i, 1.0));
    MetricEvent resumed;
    resumed.kind = kind::kEvent;
    resumed.name = "resumed";
    resumed.step = 5;  // last checkpoint was at step 5; steps 6-8 are lost work
    events.push_back(resumed);
    for (int i = 6; i <= 9; ++i) events.push_back(trainEvent(i, 0.5));
    MetricsReader::applyResumes(events);
    std::vector<std::int64_t> trainSteps;
    for (const auto& e : events)
      if (e.kind == kind::kTrain) trainSteps.push_back(e.step);
    QCOMPARE(trainSteps, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    QCOMPARE(events[6].values.at("loss"), 0.5);  // step 6 comes from the resumed run
  }

  void survivesAKilledWriter() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
      MetricsWriter w;
      (void)w.open(path, nullptr);  // the child: killed while it writes; its parent checks the file
      for (std::int64_t i = 0;; ++i)
        (void)w.write(trainEvent(i, 1.0 / static_cast<double>(i + 1)), nullptr);
    }
    // Let it write a while, then kill it mid-stream.
    MetricsReader reader(path);
    size_t seen = 0;
    // Until it has written a good many lines (however slow the machine), within a generous bound.
    for (int i = 0; i < 12000 && seen < 2000; ++i) {
      seen += reader.poll().size();
      usleep(5000);
    }
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    seen += reader.pollFinal().size();
    QVERIFY(seen >= 100);
    QVERIFY(reader.skippedLines() <= 1);  // at most the torn last line
    MetricsReader::ReadStats stats;
    const auto all = MetricsReader::readAll(path, &stats);
    QCOMPARE(all.size(), seen);
    for (size_t i = 0; i < all.size(); ++i) QCOMPARE(all[i].step, std::int64_t(i));
  }

  void openErrorsNameThePath() {
    MetricsWriter w;
    std::string err;
    QVERIFY(!w.open("/nonexistent-dir/metrics.jsonl", &err));
    QVERIFY2(err.find("/nonexistent-dir/metrics.jsonl") != std::string::npos, err.c_str());
    QVERIFY(!w.write(trainEvent(1, 1.0), &err));
    QCOMPARE(err, std::string("metrics log is not open"));
  }
  // The issue's test: a 100 MB metrics.jsonl of one line is refused by name (file and line),
  // without reading it whole into memory, and the lines around it are read.
  void aHundredMegabyteLineIsRefusedByName() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    {
      std::ofstream out(path, std::ios::binary);
      out << toJsonLine(trainEvent(1, 1.0)) << "\n{\"kind\":\"train\",\"message\":\"";
      const std::string mb(1 << 20, 'x');
      for (int i = 0; i < 100; ++i) out << mb;
      out << "\"}\n" << toJsonLine(trainEvent(2, 0.5)) << "\n";
    }
    const long long before = peakRss();
    MetricsReader::ReadStats stats;
    const auto events = MetricsReader::readAll(path, &stats);
    const long long grew = peakRss() - before;
    QCOMPARE(events.size(), size_t(2));
    QCOMPARE(events[1].step, std::int64_t(2));
    QCOMPARE(stats.skippedLines, size_t(1));
    QVERIFY2(anyContains(stats.problems, path + ":2: a line longer than 1048576 bytes"),
             stats.problems.empty() ? "none" : stats.problems.front().c_str());
    QVERIFY2(grew < 64ll << 20, std::to_string(grew).c_str());  // the old reader held it 3 times
  }

  // Followed live, a line still growing past the limit is dropped as it comes, and reading goes
  // on after its newline with the right line numbers.
  void aLongLineWhileFollowingIsSkippedToItsNewline() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    appendRaw(path, toJsonLine(trainEvent(1, 1.0)) + "\n");
    MetricsReader reader(path);
    QCOMPARE(reader.poll().size(), size_t(1));
    appendRaw(path, std::string(MetricsReader::kMaxLineBytes + 10, '['));
    QVERIFY(reader.poll().empty());
    QCOMPARE(reader.skippedLines(), size_t(1));
    QVERIFY(anyContains(reader.problems(), path + ":2: a line longer than"));
    appendRaw(path,
              std::string(1000, '[') + "\n" + toJsonLine(trainEvent(2, 0.5)) + "\nnot json\n");
    const auto got = reader.poll();
    QCOMPARE(got.size(), size_t(1));
    QCOMPARE(got[0].step, std::int64_t(2));
    QCOMPARE(reader.skippedLines(), size_t(2));
    QVERIFY(anyContains(reader.problems(), path + ":4: not a JSON object"));
    QCOMPARE(reader.problems().size(), size_t(2));  // the long line is named once
  }

  // A sparse file announcing 4 GiB: the old reader allocated its size; this one skips the hole
  // (or, where the file system does not report holes, reads it in bounded chunks).
  void aSparseFileIsNotReadWhole() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    appendRaw(path, toJsonLine(trainEvent(1, 1.0)) + "\n");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    QVERIFY(fd >= 0);
    const std::string tail = "\n" + toJsonLine(trainEvent(2, 0.5)) + "\n";
    const off_t hole = off_t(4) << 30;
    const bool wrote =
        ::pwrite(fd, tail.data(), tail.size(), hole) == static_cast<ssize_t>(tail.size());
    ::close(fd);
    QVERIFY2(wrote, "cannot write a 4 GiB sparse file in the temporary folder");
    MetricsReader::ReadStats stats;
    const auto events = MetricsReader::readAll(path, &stats);
    QCOMPARE(events.size(), size_t(2));
    QCOMPARE(stats.skippedLines, size_t(1));
    QVERIFY(anyContains(stats.problems, path + ":2: a line longer than"));
  }

  // A FIFO (or a device) in the place of the log is named, never waited on or read.
  void aFifoIsNamedNotRead() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
    MetricsReader::ReadStats stats;
    QVERIFY(MetricsReader::readAll(path, &stats).empty());
    QVERIFY(anyContains(stats.problems, path + ": not a regular file"));
  }

  // 200,000 resumes: erasing at each one was quadratic (minutes); the rule is unchanged: a line is
  // dropped when a later resume has a smaller step, events are kept.
  void manyResumesStayLinear() {
    std::vector<MetricEvent> events;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      events.push_back(trainEvent(i + 1, 1.0));
      events.push_back(resumedAt(i));  // drops the line just before it
    }
    events.push_back(trainEvent(5, 0.5));
    events.push_back(trainEvent(9, 0.5));
    events.push_back(resumedAt(7));
    MetricsReader::applyResumes(events);
    QCOMPARE(events.size(), size_t(n + 2));
    QCOMPARE(events[0].name, std::string("resumed"));
    QCOMPARE(events[n].step, std::int64_t(5));
    QCOMPARE(events[n + 1].name, std::string("resumed"));
  }
};

QTEST_APPLESS_MAIN(TestMetricsLog)
#include "tst_metricslog.moc"
