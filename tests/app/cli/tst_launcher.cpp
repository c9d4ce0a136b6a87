// ampstudio-cli train as a user runs it: one writer per run directory, data-parallel training
// over two CPU processes (Gloo) from its launcher and from torchrun's environment, and a rank
// killed mid-run.
#include <QtTest>

#include <QProcess>

#include "CliRun.h"

#include <signal.h>
#include <fstream>
#include <map>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "support/Configs.h"

namespace {

using amp::testing::makeDemoData;
using amp::testing::runTrainingCli;

int trainSteps(const QString& run) {
  int n = 0;
  for (const auto& e : amp::runlog::MetricsReader::readAll(
           amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
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
  std::ifstream children("/proc/" + std::to_string(launcher) + "/task/" + std::to_string(launcher) +
                         "/children");
  qint64 pid;
  while (children >> pid) {
    std::ifstream env("/proc/" + std::to_string(pid) + "/environ");
    for (std::string entry; std::getline(env, entry, '\0');)
      if (entry == "RANK=" + std::to_string(rank)) return pid;
  }
  return 0;
}

}  // namespace

class TestLauncher : public amp::testing::DemoDataSuite {
  Q_OBJECT
 private:
  QStringList trainArgs(const QString& run, const QStringList& extra) const {
    return amp::testing::demoTrainArgs(run, data_) + extra;
  }

  // torchrun's way (its default static rendezvous): the agent, here this test, serves the TCPStore
  // on MASTER_PORT and starts each worker with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
  // MASTER_ADDR, MASTER_PORT, TORCHELASTIC_USE_AGENT_STORE=True and TORCHELASTIC_RESTART_COUNT.
  // Returns each worker's exit code (-1: crashed or hung) and output. `rankEnv` adds variables to
  // one rank's environment.
  std::vector<std::pair<int, QString>> runTorchrunWorkers(
      const QString& run, const QStringList& extra,
      const std::map<int, std::pair<QString, QString>>& rankEnv = {}) {
    c10d::TCPStoreOptions o;
    o.port = 0;  // any free port, as the agent picks
    o.isServer = true;
    o.waitWorkers = false;
    o.timeout = std::chrono::seconds(60);
    auto agent = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", o);
    std::vector<std::unique_ptr<QProcess>> workers;
    for (int rank = 0; rank < 2; ++rank) {
      auto env = QProcessEnvironment::systemEnvironment();
      for (const auto& [k, v] : std::vector<std::pair<QString, QString>>{
               {"RANK", QString::number(rank)},
               {"LOCAL_RANK", QString::number(rank)},
               {"WORLD_SIZE", "2"},
               {"LOCAL_WORLD_SIZE", "2"},
               {"MASTER_ADDR", "127.0.0.1"},
               {"MASTER_PORT", QString::number(agent->getPort())},
               {"TORCHELASTIC_USE_AGENT_STORE", "True"},
               {"TORCHELASTIC_RESTART_COUNT", "0"},
               {"OMP_NUM_THREADS", "1"}})
        env.insert(k, v);
      if (const auto it = rankEnv.find(rank); it != rankEnv.end())
        env.insert(it->second.first, it->second.second);
      auto p = std::make_unique<QProcess>();
      p->setProcessEnvironment(env);
      p->setProcessChannelMode(QProcess::MergedChannels);
      p->start(
          AMPSTUDIO_CLI_PATH,
          trainArgs(run, QStringList{"DIST.CPU_PROCESSES", "2", "TEST.ENABLE", "False"} + extra));
      workers.push_back(std::move(p));
    }
    std::vector<std::pair<int, QString>> ended;
    for (auto& p : workers) {
      const bool done = p->waitForFinished(180000);
      if (!done) p->kill();
      ended.emplace_back(done && p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1,
                         QString::fromUtf8(p->readAll()));
    }
    return ended;
  }

 private Q_SLOTS:
  void initTestCase() { QVERIFY(makeDemoData(data_)); }  // 16 clips per split

  void oneWriterPerRunDirectory() {
    const QString run = dir_.path() + "/locked";
    QProcess first;
    first.start(AMPSTUDIO_CLI_PATH, trainArgs(run, {"SOLVER.MAX_EPOCH", "12"}));
    QVERIFY(waitForSteps(first, run, 1));
    // A second trainer on the same OUTPUT_DIR refuses, naming the first.
    auto second = runTrainingCli(trainArgs(run, {"SOLVER.MAX_EPOCH", "12"}));
    QCOMPARE(second.exitCode, 1);
    QVERIFY2(second.err.contains("is being written by another trainer (pid " +
                                 QString::number(first.processId()) + " on host "),
             qPrintable(second.err));
    // Readers never take the lock.
    auto show = runTrainingCli({"runs", "show", run});
    QCOMPARE(show.exitCode, 0);
    // A killed writer leaves its lock file, but the kernel released the lock: the run resumes.
    const int before = trainSteps(run);
    first.kill();
    first.waitForFinished();
    auto resumed = runTrainingCli(trainArgs(run, {"SOLVER.MAX_EPOCH", "2"}));
    QCOMPARE(resumed.exitCode, 0);
    QVERIFY2(resumed.out.contains("run finished"), qPrintable(resumed.out + resumed.err));
    // It trained to the end of its 2 epochs (16 clips in batches of 4): the last step logged is 8.
    std::int64_t last = 0;
    for (const auto& e : amp::runlog::MetricsReader::readAll(
             amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
      if (e.kind == amp::runlog::kind::kTrain) last = std::max<std::int64_t>(last, e.step);
    QVERIFY2(trainSteps(run) > before, "the resumed run logged its own steps");
    QCOMPARE(last, std::int64_t{8});
  }

  void twoCpuProcessesTrainOneRun() {
    const QString run = dir_.path() + "/ddp";
    auto r = runTrainingCli(trainArgs(run, {"--init-method", "file://" + dir_.path() + "/store-ddp",
                                            "SOLVER.MAX_EPOCH", "1", "DIST.CPU_PROCESSES", "2"}));
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
    // TEST.ENABLE (the demo's True): the multi-view test of the trained model follows, its views
    // shared by the ranks, and rank 0 records it once.
    QCOMPARE(r.out.count("[test] top1_err "), 1);
    int tests = 0;
    for (const auto& e : events)
      if (e.kind == amp::runlog::kind::kTest) {
        ++tests;
        QCOMPARE(e.value("videos").value_or(0), 16.0);
        QCOMPARE(e.value("views_per_video").value_or(0), 2.0);
        QVERIFY(e.value("top1_err") && e.value("top5_err") && e.value("view_top1_err"));
      }
    QCOMPARE(tests, 1);
  }

  // Rank 0 joins the agent's store as a client; serving its own on that port would fail.
  void workersStartedByTorchrunMeetAtItsAgentStore() {
    const QString run = dir_.path() + "/torchrun";
    for (const auto& [code, said] : runTorchrunWorkers(run, {"SOLVER.MAX_EPOCH", "1"}))
      QVERIFY2(code == 0, qPrintable(said));
    const auto meta = amp::runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, amp::runlog::RunStatus::Finished);
    QCOMPARE(meta->worldSize, 2);
    QCOMPARE(trainSteps(run), 4);  // 16 clips, 2 per rank and step
  }

  // A stop that reaches one rank at the end of an epoch (SIGINT arrives at the ranks one after
  // the other; the drill stops rank 1 alone there) stops both before precise BN: with sync batch
  // norm its forwards gather over the ranks. Before the agreement rank 0 entered them alone while
  // rank 1 went on to validation, and Gloo paired rank 0's gathers with rank 1's all-reduces: no
  // error, statistics from garbage (seen: this test failed on the precise_bn event).
  void aStopOnOneRankAtAnEpochsEndStopsAllBeforePreciseBn() {
    const QString run = dir_.path() + "/torchrun-stop";
    const auto ended = runTorchrunWorkers(
        run,
        {"SOLVER.MAX_EPOCH", "2", "BN.NORM_TYPE", "sync_batchnorm", "BN.USE_PRECISE_STATS", "True",
         "BN.NUM_BATCHES_PRECISE", "2", "DIST.TIMEOUT_S", "30"},
        {{1, {"AMPSTUDIO_FAULT", "stop@epoch_end"}}});
    for (const auto& [code, said] : ended)
      QVERIFY2(code == 130, qPrintable(said));  // stopped, not failed
    const auto meta = amp::runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, amp::runlog::RunStatus::Stopped);
    QCOMPARE(trainSteps(run), 4);  // the first epoch's steps, then the stop
    for (const auto& e : amp::runlog::MetricsReader::readAll(
             amp::runlog::RunDirectory(run.toStdString()).metricsPath())) {
      QVERIFY2(e.kind != amp::runlog::kind::kVal, "a validation cut short by the stop was logged");
      QVERIFY2(!(e.kind == amp::runlog::kind::kEvent && e.name == "precise_bn"),
               "precise BN ran after the stop");
    }
    QVERIFY(QFile::exists(
        run + "/checkpoints/checkpoint_epoch_00001.pyth"));  // resumable where it stopped
  }

  // A stop that reaches one rank during the multi-view test ends the test on both: before, that
  // rank left the test at once while the other waited in the sum of the views' scores, which
  // failed when the stopped rank exited (the run then read failed, not stopped).
  void aStopOnOneRankDuringTheTestEndsItOnAll() {
    const QString run = dir_.path() + "/torchrun-test-stop";
    const auto ended = runTorchrunWorkers(
        run, {"SOLVER.MAX_EPOCH", "1", "TEST.ENABLE", "True", "DIST.TIMEOUT_S", "30"},
        {{1, {"AMPSTUDIO_FAULT", "stop@test_batch"}}});
    for (const auto& [code, said] : ended)
      QVERIFY2(code == 130, qPrintable(said));  // stopped, not failed
    const auto meta = amp::runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, amp::runlog::RunStatus::Stopped);
    QCOMPARE(trainSteps(run), 4);  // training ran to its end before the test
    for (const auto& e : amp::runlog::MetricsReader::readAll(
             amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
      QVERIFY2(e.kind != amp::runlog::kind::kTest, "a test cut short by the stop was logged");
  }

  void aKilledRankStopsTheRunAndItResumes() {
    const QString run = dir_.path() + "/killed";
    const QStringList args = trainArgs(
        run, {"--init-method", "file://" + dir_.path() + "/store-killed", "SOLVER.MAX_EPOCH", "6",
              "DIST.CPU_PROCESSES", "2", "DIST.TIMEOUT_S", "30"});
    QProcess launcher;
    launcher.start(AMPSTUDIO_CLI_PATH, args);
    QVERIFY(waitForSteps(launcher, run, 6));  // past the first epoch's checkpoint
    const qint64 victim = workerPid(launcher.processId(), 1);
    QVERIFY(victim > 0);
    QCOMPARE(::kill(static_cast<pid_t>(victim), SIGKILL), 0);
    QVERIFY2(launcher.waitForFinished(120000),
             "the launcher stops the run when a rank dies, it does not hang");
    QCOMPARE(launcher.exitCode(), 1);
    const QString err = QString::fromUtf8(launcher.readAllStandardError());
    QVERIFY2(err.contains("rank 1 (pid " + QString::number(victim) + ") was killed by signal 9"),
             qPrintable(err));
    QCOMPARE(workerPid(launcher.processId(), 0), qint64(0));  // nothing left behind
    const auto meta = amp::runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, amp::runlog::RunStatus::Failed);
    QVERIFY2(meta->error.find("distributed: ") != std::string::npos, meta->error.c_str());
    // The last checkpoint is intact: the same command resumes and finishes.
    auto resumed =
        runTrainingCli(QStringList(args).replaceInStrings("store-killed", "store-resumed"));
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.out + resumed.err));
    QVERIFY2(resumed.out.contains("[resumed] from "), qPrintable(resumed.out));
    std::int64_t last = 0;
    for (const auto& e : amp::runlog::MetricsReader::readAll(
             amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
      if (e.kind == amp::runlog::kind::kTrain) last = e.step;
    QCOMPARE(last, std::int64_t{24});  // 6 epochs of 4 steps
  }

  // Multigrid over two processes: a long cycle whose first phase trains 4 clips per process with
  // plain batch norm and whose full-shape phases, 2 clips per process under MULTIGRID.BN_BASE_SIZE
  // 4, synchronise batch norm over both; a rank killed in the synchronised phase, and the same
  // command resumes into that phase with its shapes and finishes the schedule.
  void multigridOverTwoProcessesResumesIntoItsPhase() {
    const QString run = dir_.path() + "/multigrid";
    QStringList extra = {"--init-method",      "file://" + dir_.path() + "/store-mg",
                         "DIST.CPU_PROCESSES", "2",
                         "DIST.TIMEOUT_S",     "30",
                         "TEST.ENABLE",        "False",
                         "SOLVER.MAX_EPOCH",   "8",
                         "SOLVER.STEPS",       "[0, 4]"};
    for (const auto& v : amp::testsupport::tinyLongCycle()) extra << QString::fromStdString(v);
    const QStringList args = trainArgs(run, extra);
    // The schedule (TRAIN.BATCH_SIZE 4): epochs 0-3 at batch 8 (4 per process), 4 frames, batch
    // norm; 3-5 and the fine-tune phase 5-8 at batch 4 (2 per process), 8 frames, sync batch norm
    // over 2. With 16 clips: 2 steps per epoch, then 4: 6 + 20 = 26 in all.
    QProcess launcher;
    launcher.start(AMPSTUDIO_CLI_PATH, args);
    QVERIFY(
        waitForSteps(launcher, run, 8));  // in the synchronised phase, past epoch 3's checkpoint
    const qint64 victim = workerPid(launcher.processId(), 1);
    QVERIFY(victim > 0);
    QCOMPARE(::kill(static_cast<pid_t>(victim), SIGKILL), 0);
    QVERIFY(launcher.waitForFinished(60000));
    QCOMPARE(launcher.exitCode(), 1);
    auto shapeChanges = [&] {
      std::vector<amp::runlog::MetricEvent> found;
      for (const auto& e : amp::runlog::MetricsReader::readAll(
               amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
        if (e.kind == amp::runlog::kind::kEvent && e.name == "shape_change") found.push_back(e);
      return found;
    };
    const auto before = shapeChanges();
    QCOMPARE(before.size(), size_t(2));
    QCOMPARE(before[0].value("per_process_batch").value_or(0), 4.0);
    QCOMPARE(before[0].value("frames").value_or(0), 4.0);
    QCOMPARE(before[1].value("phase").value_or(-1), 1.0);
    QCOMPARE(before[1].value("per_process_batch").value_or(0), 2.0);
    QCOMPARE(before[1].value("frames").value_or(0), 8.0);
    QCOMPARE(before[1].step, std::int64_t{6});
    QVERIFY2(before[1].message.find("sync_batchnorm (2 devices)") != std::string::npos,
             before[1].message.c_str());

    auto resumed =
        runTrainingCli(QStringList(args).replaceInStrings("store-mg", "store-mg-resumed"));
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.out + resumed.err));
    QVERIFY2(resumed.out.contains("[resumed] from "), qPrintable(resumed.out));
    // Resumed into the synchronised phase (not the first one), then the fine-tune phase.
    QVERIFY2(resumed.out.contains("[shape_change] multigrid phase 2/3") &&
                 !resumed.out.contains("[shape_change] multigrid phase 1/3") &&
                 resumed.out.contains("[shape_change] multigrid phase 3/3") &&
                 resumed.out.contains(
                     "batch 4 (2 per process), 8 frames, crop 64, sync_batchnorm (2 devices)"),
             qPrintable(resumed.out));
    const auto after = shapeChanges();
    QVERIFY(after.size() >= 4);
    for (size_t k = 2; k < after.size(); ++k)
      QCOMPARE(after[k].value("per_process_batch").value_or(0), 2.0);
    std::int64_t last = 0;
    for (const auto& e : amp::runlog::MetricsReader::readAll(
             amp::runlog::RunDirectory(run.toStdString()).metricsPath()))
      if (e.kind == amp::runlog::kind::kTrain) last = e.step;
    QCOMPARE(last, std::int64_t{26});
    const auto meta = amp::runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, amp::runlog::RunStatus::Finished);
    QCOMPARE(meta->worldSize, 2);
  }
};

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"
