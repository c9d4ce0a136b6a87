#include <QtTest>

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
const char* kValIter = R"(json_stats: {"_type": "val_iter", "epoch": "2/196", "iter": "10/100", "time_diff": 0.2, "top1_err": 80.0})";
const char* kTestFinal = R"(json_stats: {"split": "test_final", "top1_acc": "76.94", "top5_acc": "92.59"})";

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
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
    write(a / "json_stats.log", std::string(kTrainIter) + "\n" + kTrainEpoch + "\n" + kValEpoch + "\n");
    write(b / "stdout.log", std::string("[12/01 10:00:00][INFO] train_net.py: 500: Start epoch: 1\n") +
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
};

QTEST_APPLESS_MAIN(TestPySlowFastLog)
#include "tst_pyslowfastlog.moc"
