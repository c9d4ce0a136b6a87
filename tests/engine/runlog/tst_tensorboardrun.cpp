// A folder of TensorBoard event files opened as a read-only run (runlog/TensorBoardRun): one
// written by our own writer, one built here byte by byte with `tensor` summaries (as TensorFlow 2
// and newer SummaryWriters write scalars), several files of a resumed job, a torn last record,
// and a logdir of several runs.
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "runlog/RunRecord.h"
#include "runlog/TensorBoardRun.h"
#include "runlog/TensorBoardWriter.h"

using namespace amp::runlog;
namespace fs = std::filesystem;

namespace {

// Protocol buffer wire format, by hand: what a writer of another project puts on disk.
std::string varint(std::uint64_t v) {
  std::string out;
  do {
    unsigned char b = v & 0x7f;
    v >>= 7;
    out.push_back(static_cast<char>(v ? b | 0x80 : b));
  } while (v);
  return out;
}
std::string field(int number, const std::string& bytes) {  // length-delimited
  return varint((static_cast<std::uint64_t>(number) << 3) | 2) + varint(bytes.size()) + bytes;
}
std::string fieldVarint(int number, std::uint64_t v) {
  return varint(static_cast<std::uint64_t>(number) << 3) + varint(v);
}
template <typename T>
std::string littleEndian(T v) {
  std::string out(sizeof v, '\0');
  std::memcpy(out.data(), &v, sizeof v);  // the test machines are little-endian (x86, ARM)
  return out;
}
std::string wallTime(double t) {
  return varint((1 << 3) | 1) + littleEndian(t);  // field 1, fixed64
}
std::string record(const std::string& payload) {
  std::string r = littleEndian<std::uint64_t>(payload.size());
  r += littleEndian(maskedCrc32c(r.data(), 8));
  r += payload;
  r += littleEndian(maskedCrc32c(payload.data(), payload.size()));
  return r;
}
std::string versionRecord(double wall) {
  return record(wallTime(wall) + field(3, "brain.Event:2"));
}
// One Event holding one Summary.Value with a tensor (and, when given, its plugin metadata).
std::string tensorEvent(double wall, std::int64_t step, const std::string& tag,
                        const std::string& tensor, const std::string& plugin = "scalars") {
  std::string value = field(1, tag);
  if (!plugin.empty()) value += field(9, field(1, field(1, plugin)));
  value += field(8, tensor);
  return record(wallTime(wall) + fieldVarint(2, static_cast<std::uint64_t>(step)) +
                field(5, field(1, value)));
}
std::string simpleEvent(double wall, std::int64_t step, const std::string& tag, float v) {
  const std::string value = field(1, tag) + varint((2 << 3) | 5) + littleEndian(v);
  return record(wallTime(wall) + fieldVarint(2, static_cast<std::uint64_t>(step)) +
                field(5, field(1, value)));
}
// TensorProto: dtype (1), then the values.
std::string floatTensor(float v) {
  return fieldVarint(1, 1) + field(5, littleEndian(v));  // DT_FLOAT, packed float_val
}
std::string doubleContentTensor(double v) {
  return fieldVarint(1, 2) + field(4, littleEndian(v));  // DT_DOUBLE, tensor_content
}
std::string halfTensor(std::uint16_t bits) {
  return fieldVarint(1, 19) + field(13, varint(bits));  // DT_HALF, packed half_val
}
std::string int64Tensor(std::int64_t v) {
  return fieldVarint(1, 9) + field(10, varint(static_cast<std::uint64_t>(v)));
}

void writeFile(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

class TestTensorBoardRun : public QObject {
  Q_OBJECT
 private slots:
  // Our writer's file (PySlowFast's tags) reads back as a run: train steps, one validation pass
  // averaged from its per-batch values, the run list's summary.
  void ourWritersFileIsARun() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString() + "/runs-kinetics";
    TensorBoardWriter w;
    QVERIFY(w.open(dir, 1000.0, nullptr));
    QVERIFY(
        w.add({{"Train/loss", 2.0}, {"Train/lr", 0.1}, {"Train/Top1_err", 90}}, 1, 1001, nullptr));
    QVERIFY(
        w.add({{"Train/loss", 1.5}, {"Train/lr", 0.1}, {"Train/Top1_err", 80}}, 2, 1002, nullptr));
    QVERIFY(w.add({{"Val/Top1_err", 40}, {"Val/Top5_err", 10}}, 0, 1003, nullptr));  // batch 0
    QVERIFY(w.add({{"Val/Top1_err", 60}, {"Val/Top5_err", 20}}, 1, 1004, nullptr));  // batch 1
    QVERIFY(w.add({{"Train/loss", 1.0}, {"Train/lr", 0.05}}, 3, 1005, nullptr));
    w.close();
    RunDirectory run(dir);
    QVERIFY(run.isTensorBoard());
    QVERIFY(run.exists());
    QCOMPARE(run.metricsPath(), dir);
    std::string why;
    const auto meta = run.readMetadata(&why);
    QVERIFY2(meta, why.c_str());
    QCOMPARE(meta->status, RunStatus::Finished);
    QCOMPARE(meta->name, std::string("runs-kinetics"));
    QCOMPARE(meta->extra.value("source_format", ""), std::string("tensorboard"));
    RunRecord record;
    QVERIFY2(record.loadRunDirectory(dir, &why), why.c_str());
    const Series* loss = record.series(kind::kTrain, "loss");
    QVERIFY(loss);
    QCOMPARE(loss->step, (std::vector<double>{1, 2, 3}));
    QCOMPARE(loss->value, (std::vector<double>{2.0, 1.5, 1.0}));
    QCOMPARE(loss->time.back(), 4.0);  // seconds since the first value
    const Series* val = record.series(kind::kVal, "top1_err");
    QVERIFY(val);
    QCOMPARE(val->value, std::vector<double>{50.0});  // the pass's mean
    QCOMPARE(val->step, std::vector<double>{2.0});    // after training step 2
    QCOMPARE(*record.summary().bestValTop1, 50.0);
    QVERIFY(record.readProblems().empty());
    // The run list finds it like any run; a writer's run.json beside it would make it ours.
    QCOMPARE(RunDirectory::findRuns(tmp.path().toStdString()), std::vector<std::string>{dir});
  }

  // TensorFlow 2 / newer writers: scalars as `tensor` summaries of several dtypes, Lightning's
  // tag names mapped to ours, unknown tags kept under their own name, non-scalars left out, and
  // a torn last record: what is whole is read and the problem named.
  void handBuiltTensorSummaries() {
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "lightning_logs" / "version_0";
    std::string bytes = versionRecord(500);
    bytes += tensorEvent(501, 10, "train_loss", floatTensor(0.75f));
    bytes += tensorEvent(501, 10, "epoch", doubleContentTensor(0.0));
    bytes += tensorEvent(501, 10, "lr-SGD", halfTensor(0x2E66));  // 0.1 in half precision
    bytes += tensorEvent(501, 10, "custom/throughput", int64Tensor(120), "");
    bytes += tensorEvent(501, 10, "weights",
                         fieldVarint(1, 1) + field(2, field(2, fieldVarint(1, 3))) +
                             field(5, littleEndian(1.f) + littleEndian(2.f) + littleEndian(3.f)),
                         "");  // a 3-element tensor: no scalar
    bytes += tensorEvent(502, 20, "val_acc", doubleContentTensor(0.625));
    bytes += tensorEvent(502, 20, "val_loss", floatTensor(1.25f));
    bytes += tensorEvent(503, 30, "train_loss", floatTensor(0.5f));
    bytes += tensorEvent(503, 30, "epoch", doubleContentTensor(1.0));
    const std::string torn = tensorEvent(504, 40, "train_loss", floatTensor(0.25f));
    bytes += torn.substr(0, torn.size() - 6);
    writeFile(dir / "events.out.tfevents.1700000000.gpu-node.lan.4242.0", bytes);

    RunDirectory run(dir.string());
    QVERIFY(run.isTensorBoard());
    const auto meta = run.readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->name, std::string("lightning_logs/version_0"));
    QCOMPARE(meta->startedAt, 1700000000.0);
    QCOMPARE(meta->host, std::string("gpu-node.lan"));

    const TensorBoardRunRead read = TensorBoardRun::read(dir.string());
    QCOMPARE(read.problems.size(), std::size_t(1));
    QVERIFY2(read.problems[0].find("torn") != std::string::npos, read.problems[0].c_str());
    RunRecord record;
    record.addAll(read.events);
    const Series* loss = record.series(kind::kTrain, "loss");
    QVERIFY(loss);
    QCOMPARE(loss->value, (std::vector<double>{0.75, 0.5}));  // the torn 0.25 is not read
    QCOMPARE(loss->epoch, (std::vector<double>{0.0, 1.0}));   // Lightning's "epoch" tag
    const Series* lr = record.series(kind::kTrain, "lr");
    QVERIFY(lr);
    QVERIFY(qAbs(lr->value[0] - 0.1) < 1e-3);
    const Series* custom = record.series(kind::kTrain, "custom/throughput");
    QVERIFY(custom);
    QCOMPARE(custom->value, std::vector<double>{120.0});
    QVERIFY(!record.series(kind::kTrain, "weights"));
    const Series* top1 = record.series(kind::kVal, "top1_err");
    QVERIFY(top1);
    QCOMPARE(top1->value, std::vector<double>{37.5});  // accuracy 0.625 as our error, percent
    QCOMPARE(record.series(kind::kVal, "loss")->value, std::vector<double>{1.25});
    // The same through MetricsReader, as the dashboard and `runs show` read it.
    MetricsReader::ReadStats stats;
    QCOMPARE(MetricsReader::readAll(run.metricsPath(), &stats).size(), read.events.size());
    QCOMPARE(stats.problems.size(), std::size_t(1));
  }

  // A resumed job writes a second file: files in wall-time order (not name order), and the
  // steps the first file logged after the resume point are dropped, as our resume rule does.
  void severalFilesAreOneRunInWallTimeOrder() {
    QTemporaryDir tmp;
    const fs::path dir = fs::path(tmp.path().toStdString()) / "resumed";
    std::string first = versionRecord(100), second = versionRecord(200);
    for (int s = 1; s <= 5; ++s) first += simpleEvent(100 + s, s, "Train/loss", 10.f - s);
    for (int s = 3; s <= 4; ++s) second += simpleEvent(200 + s, s, "Train/loss", 1.f * s);
    writeFile(dir / "events.out.tfevents.2.host", first);  // its name sorts after the second's
    writeFile(dir / "events.out.tfevents.1.host", second);
    const TensorBoardRunRead read = TensorBoardRun::read(dir.string());
    QCOMPARE(read.files.size(), std::size_t(2));
    QVERIFY(read.files[0].find("tfevents.2") != std::string::npos);
    RunRecord record;
    record.addAll(read.events);
    const Series* loss = record.series(kind::kTrain, "loss");
    QVERIFY(loss);
    QCOMPARE(loss->step, (std::vector<double>{1, 2, 3, 4}));
    QCOMPARE(loss->value, (std::vector<double>{9, 8, 3, 4}));
  }

  void aLogdirHoldsSeveralRuns() {
    QTemporaryDir tmp;
    const fs::path root(tmp.path().toStdString());
    writeFile(root / "a" / "events.out.tfevents.1.h", versionRecord(1));
    writeFile(root / "b" / "c" / "events.out.tfevents.1.h", versionRecord(1));
    writeFile(root / "ours" / "events.out.tfevents.1.h", versionRecord(1));
    std::ofstream((root / "ours" / "run.json").string())
        << R"({"format":"ampstudio-run","status":"finished"})";
    const auto runs = TensorBoardRun::findRunFolders(root.string());
    QCOMPARE(runs, (std::vector<std::string>{(root / "a").string(), (root / "b" / "c").string()}));
    QVERIFY(!RunDirectory((root / "ours").string()).isTensorBoard());  // run.json: ours
  }

  void tagsMapToOurMetrics() {
    QCOMPARE(TensorBoardRun::mapTag("Val/Top1_err").kind, std::string("val"));
    QCOMPARE(TensorBoardRun::mapTag("Val/Top1_err").metric, std::string("top1_err"));
    QCOMPARE(TensorBoardRun::mapTag("Train/lr").metric, std::string("lr"));
    QCOMPARE(TensorBoardRun::mapTag("lr-AdamW").metric, std::string("lr"));
    QCOMPARE(TensorBoardRun::mapTag("lr-AdamW/pg2").metric, std::string("lr-AdamW/pg2"));
    QVERIFY(TensorBoardRun::mapTag("val_acc").errorFromAccuracy);
    QCOMPARE(TensorBoardRun::mapTag("train_loss_epoch").kind, std::string("epoch"));
    QCOMPARE(TensorBoardRun::mapTag("Perf/clips").metric, std::string("Perf/clips"));
  }
};

QTEST_GUILESS_MAIN(TestTensorBoardRun)
#include "tst_tensorboardrun.moc"
