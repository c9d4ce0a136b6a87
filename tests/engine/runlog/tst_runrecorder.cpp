#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/Config.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunRecord.h"
#include "runlog/RunRecorder.h"
#include "runlog/TensorBoardReader.h"
#include "runlog/TensorBoardWriter.h"

using amp::runlog::MetricEvent;
using amp::runlog::MetricsReader;
using amp::runlog::RunRecorder;
using amp::runlog::RunStatus;

namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

amp::config::Config configFor(const QString& dir) {
  amp::config::Config c;
  c.setOrThrow("OUTPUT_DIR", dir.toStdString());
  c.setOrThrow("SOLVER.BASE_LR", 0.0125);
  return c;
}

}  // namespace

// What a run leaves in its directory: rank 0 writes run.json, config.yaml, metrics.jsonl and
// log.txt; other ranks only pass their events on; `time` continues across starts of a run.
class TestRunRecorder : public QObject {
  Q_OBJECT
 private slots:
  void rankZeroWritesTheRunDirectory() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    std::vector<MetricEvent> seen;
    RunRecorder rec(dir, true, [&](const MetricEvent& e) { seen.push_back(e); });
    rec.meta.name = "r";
    rec.meta.status = RunStatus::Running;
    QVERIFY(!rec.open(configFor(tmp.path())));  // no earlier log
    QVERIFY(std::filesystem::exists(rec.dir().metadataPath()));
    QVERIFY(readText(rec.dir().configPath()).find("0.0125") != std::string::npos);
    rec.event("resumed", "from nowhere", 3, 0.5, {{"x", 2.0}}, "layer1");
    rec.log("a plain line");
    rec.checkLog();  // nothing failed: no throw
    rec.close(RunStatus::Failed, "it broke", "failed");

    QCOMPARE(seen.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(seen[0].name), QString("resumed"));
    QCOMPARE(seen[0].step, std::int64_t{3});
    QCOMPARE(QString::fromStdString(seen[0].layer), QString("layer1"));
    QVERIFY(seen[0].unix_time_s > 0);
    const auto logged = MetricsReader::readAll(rec.dir().metricsPath());
    QCOMPARE(logged.size(), std::size_t{1});
    QCOMPARE(logged[0].values.at("x"), 2.0);
    const std::string text = readText(rec.dir().logPath());
    QVERIFY(text.find("resumed: from nowhere") != std::string::npos);
    QVERIFY(text.find("a plain line") != std::string::npos);
    QVERIFY(text.find("error: it broke") != std::string::npos);
    QVERIFY(text.find("run failed") != std::string::npos);
    const auto meta = rec.dir().readMetadata();
    QVERIFY(meta);
    QVERIFY(meta->status == RunStatus::Failed);
    QCOMPARE(QString::fromStdString(meta->error), QString("it broke"));
    QVERIFY(meta->endedAt > 0);
  }

  void otherRanksWriteNothing() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    int seen = 0;
    RunRecorder rec(dir, false, [&](const MetricEvent&) { ++seen; });
    rec.open(configFor(tmp.path()));
    rec.event("checkpoint", "x", 1, 1);
    rec.log("line");
    rec.writeMetadata();
    rec.openTensorBoard(configFor(tmp.path()), true);
    rec.close(RunStatus::Finished, "", "finished");
    QCOMPARE(seen, 1);  // the event still reaches the rank's sink (its progress, its console)
    QVERIFY(std::filesystem::is_empty(dir));
  }

  // A validation's and the test's AP per class become per_class lines that the reader gives back
  // whole (NaN for a class without a figure included), and the run record keeps the newest of
  // each split and every validation's. Other ranks write none.
  void perClassLinesAreWrittenAndReadBack() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    std::vector<MetricEvent> seen;
    RunRecorder rec(dir, true, [&](const MetricEvent& e) { seen.push_back(e); });
    QVERIFY(!rec.open(configFor(tmp.path())));
    amp::runlog::PerClassValues val;
    val.split = "val";
    val.classes = {1, 5, 7};
    val.names = {"bend/bow", "", "climb, up"};  // a comma and an empty name survive
    val.values = {0.5, std::nan(""), 0.125};
    val.positives = {12, 0, 3};
    rec.recordPerClass(val, 10, 1.0);
    val.values = {0.75, std::nan(""), 0.25};
    rec.recordPerClass(val, 20, 2.0);
    amp::runlog::PerClassValues test = val;
    test.split = "test";
    test.names.clear();  // Charades without a label file: numbers only
    test.values = {0.625, 0.0, 1.0};
    rec.recordPerClass(test, 20, 2.0);
    rec.recordPerClass(amp::runlog::PerClassValues{}, 20, 2.0);  // no classes: nothing written
    rec.close(RunStatus::Finished, "", "finished");
    QCOMPARE(seen.size(), std::size_t{3});
    QCOMPARE(QString::fromStdString(seen[0].kind), QString("per_class"));

    const std::string text = readText(rec.dir().metricsPath());
    QVERIFY2(text.find(R"("kind":"per_class")") != std::string::npos, text.c_str());
    QVERIFY2(text.find(R"("classes":[1,5,7])") != std::string::npos, text.c_str());
    QVERIFY2(text.find(R"("class_values":[0.5,"nan",0.125])") != std::string::npos, text.c_str());
    QVERIFY2(text.find(R"("positives":[12,0,3])") != std::string::npos, text.c_str());
    const auto logged = MetricsReader::readAll(rec.dir().metricsPath());
    QCOMPARE(logged.size(), std::size_t{3});
    QVERIFY(logged[0].perClass);
    QVERIFY(*logged[0].perClass == seen[0].perClass.value());
    QCOMPARE(logged[0].perClass->names[2], std::string("climb, up"));
    QVERIFY(std::isnan(logged[0].perClass->values[1]));
    QVERIFY(logged[0].values.empty());  // `values` stays the object of other kinds: none here

    amp::runlog::RunRecord record;
    QVERIFY(record.loadRunDirectory(dir, nullptr));
    const auto* latestVal = record.latestPerClass("val");
    QVERIFY(latestVal);
    QCOMPARE(latestVal->step, std::int64_t{20});
    QCOMPARE(latestVal->epoch, 2.0);
    QCOMPARE(latestVal->values.values[0], 0.75);
    QCOMPARE(latestVal->values.values[2], 0.25);
    QCOMPARE(record.perClassHistory("val").size(), std::size_t{2});
    QCOMPARE(record.perClassHistory("val")[0].values.values[0], 0.5);
    const auto* latestTest = record.latestPerClass("test");
    QVERIFY(latestTest);
    QCOMPARE(latestTest->values.values[2], 1.0);
    QVERIFY(latestTest->values.names.empty());
    QCOMPARE(latestTest->values.nameAt(0), std::string());
    QVERIFY(record.toCsv().find("per_class") == std::string::npos);  // lists are not CSV rows

    // A rank other than 0 passes the line on and writes nothing.
    QTemporaryDir other;
    int passed = 0;
    RunRecorder quiet(other.path().toStdString(), false, [&](const MetricEvent&) { ++passed; });
    quiet.recordPerClass(val, 1, 1.0);
    QCOMPARE(passed, 1);
    QVERIFY(std::filesystem::is_empty(other.path().toStdString()));
  }

  void timeContinuesAcrossStarts() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    {
      RunRecorder first(dir, true, nullptr);
      QVERIFY(!first.open(configFor(tmp.path())));
      MetricEvent e;
      e.kind = amp::runlog::kind::kTrain;
      e.step = 1;
      e.values = {{"loss", 1.0}};
      first.record(e);
      first.close(RunStatus::Stopped, "", "stopped");
    }
    // The earlier start's last line is at 1000 s: a later start continues from there.
    {
      std::ofstream out(amp::runlog::RunDirectory(dir).metricsPath(), std::ios::app);
      out << R"({"kind":"train","step":2,"epoch":0.5,"time":1000.0,"values":{"loss":0.5}})"
          << "\n";
    }
    RunRecorder second(dir, true, nullptr);
    QVERIFY(second.open(configFor(tmp.path())));  // there was an earlier log
    MetricEvent e;
    e.kind = amp::runlog::kind::kTrain;
    e.step = 3;
    second.record(e);
    second.close(RunStatus::Finished, "", "finished");
    const auto all = MetricsReader::readAll(second.dir().metricsPath());
    QCOMPARE(all.size(), std::size_t{3});
    QVERIFY(all.back().time_s >= 1000.0);
    QVERIFY(all.back().time_s < 1000.0 + 600.0);
  }

  void aConfigThatCannotBeWrittenStopsTheStart() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    std::filesystem::create_directories(std::filesystem::path(dir) / "config.yaml" / "in-the-way");
    RunRecorder rec(dir, true, nullptr);
    try {
      rec.open(configFor(tmp.path()));
      QFAIL("open() wrote no config.yaml and did not say so");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("config.yaml") != std::string::npos, e.what());
    }
  }

  void tensorBoardIsWrittenOrSaidWhyNot() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    std::vector<MetricEvent> seen;
    RunRecorder rec(dir, true, [&](const MetricEvent& e) { seen.push_back(e); });
    auto c = configFor(tmp.path());
    c.setOrThrow("TENSORBOARD.ENABLE", true);
    c.setOrThrow("TRAIN.DATASET", "kinetics");
    QVERIFY(!rec.open(c));
    rec.openTensorBoard(c, true);
    rec.toTensorBoard({{"Train/loss", 1.5}}, 7, 1, 0.1);  // TensorBoard step 7, run step 1
    rec.close(RunStatus::Finished, "", "finished");
    const std::filesystem::path tbDir = std::filesystem::path(dir) / "runs-kinetics";
    if (!amp::runlog::tensorBoardSupport()) {
      QVERIFY(seen.empty());
      QVERIFY(std::filesystem::is_directory(tbDir));
      std::vector<std::filesystem::path> files;
      for (const auto& f : std::filesystem::directory_iterator(tbDir))
        if (f.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
          files.push_back(f.path());
      QCOMPARE(files.size(), std::size_t{1});
      const auto read = amp::runlog::readTensorBoardFile(files[0].string());
      QVERIFY2(read.error.empty(), read.error.c_str());
      bool loss = false;  // the scalar itself, not only the file-version record open() writes
      for (const auto& ev : read.events)
        for (const auto& sc : ev.scalars)
          loss |= sc.tag == "Train/loss" && sc.value == 1.5 && ev.step == 7;
      QVERIFY(loss);
    } else {  // a build without TensorBoard says so once, as an event
      QCOMPARE(seen.size(), std::size_t{1});
      QCOMPARE(QString::fromStdString(seen[0].name), QString("tensorboard"));
      QVERIFY(!std::filesystem::exists(tbDir));
    }
  }
};

QTEST_GUILESS_MAIN(TestRunRecorder)
#include "tst_runrecorder.moc"
