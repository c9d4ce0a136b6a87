#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "runlog/MetricsReader.h"
#include "runlog/PySlowFastLog.h"
#include "runlog/RunDirectory.h"

using namespace amp::runlog;
namespace fs = std::filesystem;

namespace {
// Lines as PySlowFast's logging.log_json_stats writes them (simplejson, sort_keys, 5 decimals):
// OUTPUT_DIR/json_stats.log gets "json_stats: {...}", stdout.log the same behind the logger prefix.
const char* kTrainIter =
    R"(json_stats: {"_type": "train_iter_", "dt": 0.51234, "dt_data": 0.01234, "dt_net": 0.5, "epoch": "2/196", "eta": "1 day, 2:03:04", "gpu_mem": "5.63G", "grad_norm": 3.5, "iter": "20/1000", "loss": 5.12345, "lr": 0.1, "top1_err": 93.75, "top5_err": 81.25})";
const char* kTrainEpoch =
    R"(json_stats: {"RAM": "12.34/503.2G", "_type": "train_epoch", "dt": 0.5, "dt_data": 0.01, "dt_net": 0.49, "epoch": "2/196", "eta": "1 day", "gpu_mem": "5.63G", "grad_norm": 3.1, "loss": 4.5, "lr": 0.1, "top1_err": 90.0, "top5_err": 75.0})";
const char* kValEpoch =
    R"(json_stats: {"RAM": "12.34/503.2G", "_type": "val_epoch", "epoch": "2/196", "gpu_mem": "5.63G", "min_top1_err": 85.0, "min_top5_err": 60.0, "time_diff": 0.2, "top1_err": 85.0, "top5_err": 60.0})";
const char* kValIter =
    R"(json_stats: {"_type": "val_iter", "epoch": "2/196", "iter": "10/100", "time_diff": 0.2, "top1_err": 80.0})";
const char* kTestFinal =
    R"(json_stats: {"split": "test_final", "top1_acc": "76.94", "top5_acc": "92.59"})";

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}
}  // namespace

class TestPySlowFastLog : public QObject {
  Q_OBJECT
 private slots:
  void recordsBecomeEvents() {
    PySlowFastLogState st;
    const auto it = parsePySlowFastStats(kTrainIter, st);
    QVERIFY(it);
    QCOMPARE(it->kind, std::string(kind::kTrain));
    QCOMPARE(it->step, std::int64_t(1020));  // (2 - 1) x 1000 + 20
    QCOMPARE(it->epoch, 1.02);
    QCOMPARE(*it->value("loss"), 5.12345);
    QCOMPARE(*it->value("lr"), 0.1);
    QCOMPARE(*it->value("grad_norm"), 3.5);
    QCOMPARE(*it->value("top1_err"), 93.75);
    QCOMPARE(*it->value("iter_time_s"), 0.51234);
    QCOMPARE(*it->value("data_wait_s"), 0.01234);
    QCOMPARE(*it->value("mem_peak_bytes"), 5.63 * 1024 * 1024 * 1024);
    QCOMPARE(st.iters_per_epoch, std::int64_t(1000));
    const auto ep = parsePySlowFastStats(kTrainEpoch, st);
    QVERIFY(ep);
    QCOMPARE(ep->kind, std::string(kind::kEpoch));
    QCOMPARE(ep->epoch, 2.0);
    QCOMPARE(ep->step, std::int64_t(2000));
    QCOMPARE(*ep->value("loss"), 4.5);
    const auto val = parsePySlowFastStats(kValEpoch, st);
    QVERIFY(val);
    QCOMPARE(val->kind, std::string(kind::kVal));
    QCOMPARE(*val->value("top1_err"), 85.0);
    QCOMPARE(*val->value("min_top1_err"), 85.0);
    const auto test = parsePySlowFastStats(kTestFinal, st);
    QVERIFY(test);
    QCOMPARE(test->kind, std::string(kind::kTest));
    QVERIFY(std::abs(*test->value("top1_err") - 23.06) < 1e-9);
    QVERIFY(std::abs(*test->value("top5_err") - 7.41) < 1e-9);
    QVERIFY(!parsePySlowFastStats(kValIter, st));  // per-iteration validation is not charted
    // A multi-label (Charades) run: val_epoch's map is a fraction; test_final's is a percent
    // string that PySlowFast repeats as top1_acc and top5_acc (not accuracies).
    const auto mlVal = parsePySlowFastStats(
        R"(json_stats: {"RAM": "1/2G", "_type": "val_epoch", "epoch": "6/57", "gpu_mem": "5.1G", "map": 0.31245, "time_diff": 0.2})",
        st);
    QVERIFY(mlVal);
    QCOMPARE(*mlVal->value("map"), 0.31245);
    QVERIFY(!mlVal->value("top1_err"));
    const auto mlTest = parsePySlowFastStats(
        R"(json_stats: {"map": "42.70", "split": "test_final", "top1_acc": "42.70", "top5_acc": "42.70"})",
        st);
    QVERIFY(mlTest);
    QVERIFY(std::abs(*mlTest->value("map") - 0.427) < 1e-12);
    QVERIFY(!mlTest->value("top1_err") && !mlTest->value("top5_err"));
    QVERIFY(!parsePySlowFastStats("[12/01 10:00:00][INFO] train_net.py: 500: Start epoch: 1", st));
    QVERIFY(!parsePySlowFastStats("json_stats: {torn", st));
  }

  // A PySlowFast OUTPUT_DIR is a run: found, described, its log read (stdout.log when there is no
  // json_stats.log, the logger's prefix and text lines passed over without complaint).
  void outputDirIsARun() {
    QTemporaryDir tmp;
    const fs::path root = tmp.path().toStdString();
    const fs::path a = root / "slowfast_k400", b = root / "x3d_stdout", none = root / "other";
    fs::create_directories(a);
    fs::create_directories(b);
    fs::create_directories(none);
    write(a / "json_stats.log",
          std::string(kTrainIter) + "\n" + kTrainEpoch + "\n" + kValEpoch + "\n");
    write(b / "stdout.log",
          std::string("[12/01 10:00:00][INFO] train_net.py: 500: Start epoch: 1\n") +
              "[12/01 10:00:05][INFO] logging.py: 97: " + kTrainIter + "\n" + "some other text\n" +
              "[12/01 10:09:00][INFO] logging.py: 97: " + kValEpoch + "\n");
    write(none / "stdout.log", "no stats here\n");
    const auto runs = RunDirectory::findRuns(root.string());
    QCOMPARE(runs.size(), size_t(2));
    RunDirectory ra(a.string());
    QVERIFY(ra.isPySlowFast());
    QCOMPARE(ra.metricsPath(), (a / "json_stats.log").string());
    const auto meta = ra.readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->name, std::string("slowfast_k400"));
    QCOMPARE(meta->status, RunStatus::Finished);
    QCOMPARE(meta->extra.value("source_format", std::string()), std::string("pyslowfast"));
    MetricsReader::ReadStats stats;
    const auto ea = MetricsReader::readAll(ra.metricsPath(), &stats);
    QCOMPARE(ea.size(), size_t(3));
    QCOMPARE(stats.skippedLines, size_t(0));
    const auto eb = MetricsReader::readAll(RunDirectory(b.string()).metricsPath(), &stats);
    QCOMPARE(eb.size(), size_t(2));
    QCOMPARE(eb[1].kind, std::string(kind::kVal));
    QCOMPARE(eb[1].step, std::int64_t(2000));
    QCOMPARE(stats.skippedLines, size_t(0));
    // one of ours in the same folder stays ours
    write(a / "run.json", "{}");
    QVERIFY(!RunDirectory(a.string()).isPySlowFast());
    QCOMPARE(RunDirectory(a.string()).metricsPath(), (a / "metrics.jsonl").string());
  }

  // Followed while PySlowFast appends: a half-written last line waits for its end.
  void followsAGrowingLog() {
    QTemporaryDir tmp;
    const fs::path log = fs::path(tmp.path().toStdString()) / "json_stats.log";
    MetricsReader reader(log.string());
    const std::string line = std::string(kTrainIter) + "\n";
    {
      std::ofstream f(log);
      f << line << line.substr(0, 40);
    }
    QCOMPARE(reader.poll().size(), size_t(1));
    {
      std::ofstream f(log, std::ios::app);
      f << line.substr(40);
    }
    QCOMPARE(reader.poll().size(), size_t(1));
    QCOMPARE(reader.skippedLines(), size_t(0));
  }
  // Fields of another type, counts no step can hold, and deep nesting: skipped lines, never an
  // exception (json's value() threw type_error on {"_type": 1}, which nothing above caught).
  void oddRecordsAreSkippedWithoutThrowing() {
    PySlowFastLogState st;
    const std::string deep =
        "json_stats: {\"_type\": \"train_epoch\", \"x\": " + std::string(50000, '[') + "}";
    for (
        const std::string& line :
        {std::string(R"(json_stats: {"_type": 1})"),
         std::string(R"(json_stats: {"_type": ["train_iter"]})"),
         std::string(R"(json_stats: {"split": 5, "top1_acc": 1})"),
         std::string(R"(json_stats: {"split": {"a": 1}})"),
         std::string(
             R"(json_stats: {"_type": "train_iter", "epoch": "99999999999/2", "iter": "99999999999/99999999999"})"),
         std::string(R"(json_stats: {"_type": "train_iter", "epoch": "1/2", "iter": "-5/0"})"),
         deep}) {
      try {
        QVERIFY2(!parsePySlowFastStats(line, st), line.substr(0, 80).c_str());
      } catch (const std::exception& e) {
        QFAIL((line.substr(0, 80) + " threw " + e.what()).c_str());
      }
    }
    // The same through the reader the run list uses, with a good record after them.
    QTemporaryDir tmp;
    const fs::path log = fs::path(tmp.path().toStdString()) / "json_stats.log";
    write(log, std::string(R"(json_stats: {"_type": 1})") + "\n" + deep + "\n" + kTrainIter + "\n");
    MetricsReader::ReadStats stats;
    const auto events = MetricsReader::readAll(log.string(), &stats);
    QCOMPARE(events.size(), size_t(1));
    QCOMPARE(events[0].step, std::int64_t(1020));
  }

  // Deciding whether a stdout.log is PySlowFast's reads a bounded prefix (the run list asks at
  // every refresh): a record past 8 MiB is not looked for; one across a 64 KiB read is found.
  void statsScanIsBounded() {
    QTemporaryDir tmp;
    const fs::path root = tmp.path().toStdString();
    const fs::path late = root / "late", split = root / "split";
    fs::create_directories(late);
    fs::create_directories(split);
    {
      std::ofstream f(late / "stdout.log", std::ios::binary);
      const std::string mb(1 << 20, 'x');
      for (int i = 0; i < 20; ++i) f << mb;  // one 20 MB line: the old scan read it whole
      f << "\n" << kTrainIter << "\n";
    }
    QCOMPARE(pySlowFastStatsFile(late.string()), std::string());
    write(split / "stdout.log",
          std::string(65536 - 5, '.') + kTrainIter + "\n");  // "json_stats: {" spans two reads
    QCOMPARE(pySlowFastStatsFile(split.string()), (split / "stdout.log").string());
    // Still only within its first 20,000 lines.
    write(split / "stdout.log", std::string(20000, '\n') + kTrainIter + "\n");
    QCOMPARE(pySlowFastStatsFile(split.string()), std::string());
    write(split / "stdout.log", std::string(19999, '\n') + kTrainIter + "\n");
    QCOMPARE(pySlowFastStatsFile(split.string()), (split / "stdout.log").string());
  }
  // A copied folder keeps its timestamps: one centuries away (here 2400) is the run's date, not
  // lost because std::filesystem's clock cannot hold it (last_write_time failed with EOVERFLOW).
  void aStatsFileFromTheFarFutureKeepsItsDate() {
    QTemporaryDir tmp;
    const fs::path log = fs::path(tmp.path().toStdString()) / "json_stats.log";
    write(log, std::string(kTrainIter) + "\n");
    const timespec times[2] = {{13569465600, 0}, {13569465600, 0}};  // 2400-01-01
    struct stat st {};
    if (::utimensat(AT_FDCWD, log.c_str(), times, 0) != 0 || ::stat(log.c_str(), &st) != 0 ||
        st.st_mtim.tv_sec != 13569465600)
      QSKIP("this file system holds no timestamp in 2400");
    const auto meta = RunDirectory(tmp.path().toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->updatedAt, 13569465600.0);
    QCOMPARE(meta->createdAt, 13569465600.0);
  }
};

QTEST_APPLESS_MAIN(TestPySlowFastLog)
#include "tst_pyslowfastlog.moc"
