// ampstudio-cli train as a user runs it: one writer per run directory, data-parallel training
// over two CPU processes (Gloo), and a rank killed mid-run.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <fstream>
#include <signal.h>

#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"

namespace {

struct Result {
  int exitCode;
  QString out, err;
};

Result runCli(const QStringList& args, int timeoutMs = 180000) {
  QProcess p;
  p.start(AMPSTUDIO_CLI_PATH, args);
  if (!p.waitForFinished(timeoutMs)) p.kill();
  p.waitForFinished();
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError())};
}

int trainSteps(const QString& run) {
  int n = 0;
  for (const auto& e : amp::runlog::MetricsReader::readAll(amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
    if (e.kind == amp::runlog::kind::kTrain) ++n;
  return n;
}

// Waits until the run has logged `steps` training steps (or the process ended).
bool waitForSteps(QProcess& p, const QString& run, int steps) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < 120000) {
    if (trainSteps(run) >= steps) return true;
    if (p.state() == QProcess::NotRunning) return false;
    QTest::qWait(100);
  }
  return false;
}

// The child processes of `pid` with RANK=`rank` in their environment.
qint64 workerPid(qint64 launcher, int rank) {
  std::ifstream children("/proc/" + std::to_string(launcher) + "/task/" + std::to_string(launcher) + "/children");
  qint64 pid;
  while (children >> pid) {
    std::ifstream env("/proc/" + std::to_string(pid) + "/environ");
    for (std::string entry; std::getline(env, entry, '\0');)
      if (entry == "RANK=" + std::to_string(rank)) return pid;
  }
  return 0;
}

}  // namespace

class TestLauncher : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString data_;

  QStringList trainArgs(const QString& run, const QStringList& extra) const {
    return QStringList{"train", "--cfg", QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml"} + extra +
           QStringList{"OUTPUT_DIR", run, "DATA.PATH_TO_DATA_DIR", data_, "DATA.PATH_PREFIX", data_, "TRAIN.BATCH_SIZE", "4",
                       "X3D.DIM_C5", "32", "LOG_PERIOD", "1", "DATA_LOADER.NUM_WORKERS", "1"};
  }

 private slots:
  void initTestCase() {
    data_ = dir_.path() + "/demo";
    auto made = runCli({"make-demo-data", "--out", data_, "--clips-per-class", "2", "--seed", "5"});
    QCOMPARE(made.exitCode, 0);  // 16 clips per split
  }

  void oneWriterPerRunDirectory() {
    const QString run = dir_.path() + "/locked";
    QProcess first;
    first.start(AMPSTUDIO_CLI_PATH, trainArgs(run, {"SOLVER.MAX_EPOCH", "12"}));
    QVERIFY(waitForSteps(first, run, 1));
    // A second trainer on the same OUTPUT_DIR refuses, naming the first.
    auto second = runCli(trainArgs(run, {"SOLVER.MAX_EPOCH", "12"}));
    QCOMPARE(second.exitCode, 1);
    QVERIFY2(second.err.contains("is being written by another trainer (pid " + QString::number(first.processId()) + " on host "),
             qPrintable(second.err));
    // Readers never take the lock.
    auto show = runCli({"runs", "show", run});
    QCOMPARE(show.exitCode, 0);
    // A killed writer leaves its lock file, but the kernel released the lock: the run resumes.
    const int before = trainSteps(run);
    first.kill();
    first.waitForFinished();
    auto resumed = runCli(trainArgs(run, {"SOLVER.MAX_EPOCH", "2"}));
    QCOMPARE(resumed.exitCode, 0);
    QVERIFY2(resumed.out.contains("run finished"), qPrintable(resumed.out + resumed.err));
    QVERIFY(trainSteps(run) >= before);
  }

  void twoCpuProcessesTrainOneRun() {
    const QString run = dir_.path() + "/ddp";
    auto r = runCli(trainArgs(run, {"--init-method", "file://" + dir_.path() + "/store-ddp", "SOLVER.MAX_EPOCH", "1",
                                    "DIST.CPU_PROCESSES", "2"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("launching 2 worker processes (ranks 0-1 of 2"), qPrintable(r.out));
    QCOMPARE(r.out.count("[val epoch 1]"), 1);  // rank 0 reports for the run
    QCOMPARE(r.out.count("run finished"), 1);
    amp::runlog::RunDirectory dir(run.toStdString());
    const auto meta = dir.readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, amp::runlog::RunStatus::Finished);
    QCOMPARE(meta->worldSize, 2);
    QCOMPARE(meta->distBackend, std::string("gloo"));
    QVERIFY2(meta->device.rfind("2 x cpu (1 thread each, ", 0) == 0, meta->device.c_str());
    // 16 clips, 2 per rank and step over 2 ranks: 4 steps, every one logged once.
    const auto events = amp::runlog::MetricsReader::readAll(dir.metricsPath());
    std::vector<std::int64_t> steps;
    for (const auto& e : events)
      if (e.kind == amp::runlog::kind::kTrain) {
        steps.push_back(e.step);
        QVERIFY(e.value("sync_wait_s"));
      }
    QCOMPARE(steps, (std::vector<std::int64_t>{1, 2, 3, 4}));
    QVERIFY(QFile::exists(run + "/checkpoints/checkpoint_epoch_00001.pyth"));
  }

  void aKilledRankStopsTheRunAndItResumes() {
    const QString run = dir_.path() + "/killed";
    const QStringList args = trainArgs(run, {"--init-method", "file://" + dir_.path() + "/store-killed", "SOLVER.MAX_EPOCH", "6",
                                             "DIST.CPU_PROCESSES", "2", "DIST.TIMEOUT_S", "30"});
    QProcess launcher;
    launcher.start(AMPSTUDIO_CLI_PATH, args);
    QVERIFY(waitForSteps(launcher, run, 6));  // past the first epoch's checkpoint
    const qint64 victim = workerPid(launcher.processId(), 1);
    QVERIFY(victim > 0);
    QElapsedTimer t;
    t.start();
    QCOMPARE(::kill(static_cast<pid_t>(victim), SIGKILL), 0);
    QVERIFY(launcher.waitForFinished(60000));
    QVERIFY(t.elapsed() < 60000);
    QCOMPARE(launcher.exitCode(), 1);
    const QString err = QString::fromUtf8(launcher.readAllStandardError());
    QVERIFY2(err.contains("rank 1 (pid " + QString::number(victim) + ") was killed by signal 9"), qPrintable(err));
    QCOMPARE(workerPid(launcher.processId(), 0), qint64(0));  // nothing left behind
    const auto meta = amp::runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, amp::runlog::RunStatus::Failed);
    QVERIFY2(meta->error.find("distributed: ") != std::string::npos, meta->error.c_str());
    // The last checkpoint is intact: the same command resumes and finishes.
    auto resumed = runCli(QStringList(args).replaceInStrings("store-killed", "store-resumed"));
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.out + resumed.err));
    QVERIFY2(resumed.out.contains("[resumed] from "), qPrintable(resumed.out));
    std::int64_t last = 0;
    for (const auto& e : amp::runlog::MetricsReader::readAll(amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
      if (e.kind == amp::runlog::kind::kTrain) last = e.step;
    QCOMPARE(last, std::int64_t{24});  // 6 epochs of 4 steps
  }
};

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"
