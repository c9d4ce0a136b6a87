// Fault drills (docs/reliability.md): `ampstudio-cli train` is killed (SIGKILL) between steps,
// during validation, half-way through a checkpoint and half-way through a metrics line, killed
// from outside at an arbitrary moment, and meets a full disk on its metrics log and on a
// checkpoint. After each, the same command again resumes the run, and the finished run is exactly
// the run that was never interrupted: every step once, the same losses and validation errors bit
// for bit, its checkpoints, no temporary files, status finished. Faults are injected with
// AMPSTUDIO_FAULT (util/FaultInjection.h).
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <filesystem>
#include <map>
#include <thread>

#include "CliRun.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"

using namespace amp;
using testing::CliOptions;
using testing::runCli;

class TestFaultDrills : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString data_;
  // The uninterrupted run: loss per step, validation top-1 error per step.
  std::map<std::int64_t, double> refLoss_, refVal_;
  static constexpr int kSteps = 12;  // 16 clips / batch 4 x 3 epochs

  QStringList trainArgs(const QString& out) const {
    return testing::demoTrainArgs(out, data_) + QStringList{"SOLVER.MAX_EPOCH",
                                                            "3",
                                                            "TEST.ENABLE",
                                                            "False",
                                                            "TRAIN.EVAL_PERIOD",
                                                            "1",
                                                            "TRAIN.CHECKPOINT_PERIOD",
                                                            "1",
                                                            "TRAIN.AUTO_RESUME",
                                                            "True"};
  }

  // One thread per run (the same for every run, so the sums add up in the same order): the drills
  // run beside other suites without oversubscribing the cores.
  static testing::CliResult train(const QStringList& args, const QString& fault = {}) {
    CliOptions o;
    o.env = {"OMP_NUM_THREADS=1"};
    if (!fault.isEmpty()) o.env << "AMPSTUDIO_FAULT=" + fault;
    return runCli(args, o);
  }

  static void readRun(const QString& run, std::map<std::int64_t, double>& loss,
                      std::map<std::int64_t, double>& val, std::vector<std::int64_t>& steps) {
    for (const auto& e :
         runlog::MetricsReader::readAll(runlog::RunDirectory(run.toStdString()).metricsPath())) {
      if (e.kind == runlog::kind::kTrain) {
        steps.push_back(e.step);
        loss[e.step] = *e.value("loss");
      }
      if (e.kind == runlog::kind::kVal) val[e.step] = *e.value("top1_err");
    }
  }

  // The drill of the current data row: killed by the injected fault, then resumed.
  void killDrill() {
    QFETCH(QString, fault);
    const QString run = dir_.path() + "/" + QString(fault).replace('@', '-').replace('#', '-');
    const auto killed = train(trainArgs(run), fault);
    QVERIFY2(killed.crashed, qPrintable(killed.out + killed.err));
    const auto meta = runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QVERIFY(runlog::RunDirectory::isAbandoned(*meta));  // the run list says so, not "running"
    if (fault.startsWith(
            "kill@checkpoint")) {  // the half-written file is left behind, as by a real crash
      QCOMPARE(QDir(run + "/checkpoints").entryList({"*.tmp-*"}, QDir::Files).size(), 1);
    }
    checkResumedRun(run);
  }

  // The run after its interruption and one more start: the uninterrupted run exactly.
  void checkResumedRun(const QString& run) {
    const auto again = train(trainArgs(run));
    QVERIFY2(again.exitCode == 0 && !again.crashed, qPrintable(again.out + again.err));
    std::map<std::int64_t, double> loss, val;
    std::vector<std::int64_t> steps;
    readRun(run, loss, val, steps);
    std::vector<std::int64_t> expected;
    for (int s = 1; s <= kSteps; ++s) expected.push_back(s);
    QCOMPARE(steps, expected);  // each step once, in order: nothing lost, nothing repeated
    for (const auto& [step, l] : refLoss_)
      QVERIFY2(loss[step] == l, qPrintable(QString("step %1: loss %2, uninterrupted %3")
                                               .arg(step)
                                               .arg(loss[step], 0, 'g', 17)
                                               .arg(l, 0, 'g', 17)));
    QCOMPARE(val, refVal_);
    const auto meta = runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, runlog::RunStatus::Finished);
    const QDir ck(run + "/checkpoints");
    QCOMPARE(ck.entryList({"*.tmp-*"}, QDir::Files), QStringList());
    for (const char* name : {"checkpoint_epoch_00001.pyth", "checkpoint_epoch_00002.pyth",
                             "checkpoint_epoch_00003.pyth"})
      QVERIFY2(ck.exists(name), name);
  }

 private Q_SLOTS:
  void initTestCase() {
    data_ = dir_.path() + "/data";
    const auto made =
        runCli({"make-demo-data", "--out", data_, "--clips-per-class", "2", "--seed", "4"});
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    const QString ref = dir_.path() + "/reference";
    const auto r = train(trainArgs(ref));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    std::vector<std::int64_t> steps;
    readRun(ref, refLoss_, refVal_, steps);
    QCOMPARE(static_cast<int>(refLoss_.size()), kSteps);
    QCOMPARE(refVal_.size(), size_t(3));
  }

  // SIGKILL at chosen moments: the process dies there, then resumes (two functions, so that
  // CTest runs them as parts in parallel).
  void killedInTrainingResumesExactly_data() {
    QTest::addColumn<QString>("fault");
    QTest::newRow("first epoch, no checkpoint yet") << "kill@step#2";
    QTest::newRow("second epoch") << "kill@step#5";
    QTest::newRow("last epoch") << "kill@step#11";
    QTest::newRow("first validation") << "kill@validation#3";
  }
  void killedInTrainingResumesExactly() { killDrill(); }
  void killedWritingResumesExactly_data() {
    QTest::addColumn<QString>("fault");
    QTest::newRow("second validation") << "kill@validation#6";
    QTest::newRow("writing the first checkpoint") << "kill@checkpoint#1";
    QTest::newRow("writing the second checkpoint") << "kill@checkpoint#2";
    QTest::newRow("mid metrics line") << "kill@metrics#7";
  }
  void killedWritingResumesExactly() { killDrill(); }

  // SIGKILL from outside, at whatever the run is doing once it has logged 7 steps.
  void killedFromOutsideResumesExactly() {
    const QString run = dir_.path() + "/outside";
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("OMP_NUM_THREADS", "1");
    p.setProcessEnvironment(env);
    p.start(AMPSTUDIO_CLI_PATH, trainArgs(run));
    QVERIFY(p.waitForStarted());
    const QString metrics =
        QString::fromStdString(runlog::RunDirectory(run.toStdString()).metricsPath());
    QDeadlineTimer deadline(120000);
    while (!deadline.hasExpired() && p.state() == QProcess::Running) {
      QFile f(metrics);
      if (f.open(QIODevice::ReadOnly) && f.readAll().count("\"kind\":\"train\"") >= 7) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    QVERIFY2(p.state() == QProcess::Running, "the run ended before it could be killed");
    p.kill();
    QVERIFY(p.waitForFinished());
    checkResumedRun(run);
  }

  // A full disk on the metrics log or on a checkpoint: the run fails at once saying which file
  // and why, keeps what it had (the torn line skipped, no temporary file), and resumes when
  // started again (here the space is back).
  void aFullDiskFailsCleanlyAndResumes_data() {
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("file");
    QTest::newRow("metrics log") << "enospc@metrics#9"
                                 << "metrics.jsonl";
    QTest::newRow("checkpoint") << "enospc@checkpoint#2"
                                << "checkpoint_epoch_00002.pyth";
  }
  void aFullDiskFailsCleanlyAndResumes() {
    QFETCH(QString, fault);
    QFETCH(QString, file);
    const QString run = dir_.path() + "/" + QString(fault).replace('@', '-').replace('#', '-');
    const auto full = train(trainArgs(run), fault);
    QVERIFY2(!full.crashed && full.exitCode == 1, qPrintable(full.out + full.err));
    QVERIFY2((full.out + full.err).contains(file) &&
                 (full.out + full.err).contains("No space left on device"),
             qPrintable(full.out + full.err));
    const auto meta = runlog::RunDirectory(run.toStdString()).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, runlog::RunStatus::Failed);
    QVERIFY2(QString::fromStdString(meta->error).contains("No space left on device"),
             meta->error.c_str());
    QCOMPARE(QDir(run + "/checkpoints").entryList({"*.tmp-*"}, QDir::Files), QStringList());
    checkResumedRun(run);
  }

  // A finished run on a read-only filesystem (a private mount namespace with the run folder
  // bind-mounted read-only, as an archive or a colleague's share): the CLI's readers and test
  // read it, the studio shows it, training there is refused saying why.
  // A crash inside a library while the CLI exits (a call through a null pointer, as bench
  // overhead and bench ddp met on a CUDA machine): the command's output is complete, and stderr
  // names the signal, that it came during exit, and where the null call was made from.
  void aCrashIsReportedWithItsCallerAndTheOutputIsKept() {
    CliOptions o;
    o.env = {"AMPSTUDIO_FAULT=segv@exit"};
    const auto r = runCli({"info"}, o);
    QVERIFY2(r.crashed, qPrintable(r.err));
    QVERIFY2(r.out.contains("LibTorch") && r.out.contains("CUDA device"),
             qPrintable(r.out));  // info's first and last lines
    QVERIFY2(r.err.contains("ampstudio-cli: fatal signal 11 (SIGSEGV) during exit"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("  at 0x0\n"), qPrintable(r.err));
    QVERIFY2(r.err.contains("  called from 0x") && r.err.contains("(ampstudio-cli+0x"),
             qPrintable(r.err));
    const auto clean = runCli({"info"});
    QCOMPARE(clean.exitCode, 0);
    QVERIFY(!clean.crashed);
    QVERIFY2(!clean.err.contains("fatal signal"), qPrintable(clean.err));
  }

  // std::bad_alloc while a clip is decoded (a video header declaring frames larger than memory):
  // the clip is a decode failure, replaced by another as PySlowFast replaces one it cannot read,
  // and the run finishes; before, the exception left the loader's worker thread and ended the
  // process in std::terminate.
  void outOfMemoryDecodingAClipReplacesThatClip() {
    const QString run = dir_.path() + "/oom-decode";
    const auto r = train(trainArgs(run), "oom@decode#3");
    QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(r.out + r.err));
    int failures = 0;
    for (const auto& e :
         runlog::MetricsReader::readAll(runlog::RunDirectory(run.toStdString()).metricsPath()))
      if (e.name == "decode_failure") {
        ++failures;
        QVERIFY2(e.message.find("out of memory decoding it (std::bad_alloc)") != std::string::npos,
                 e.message.c_str());
      }
    QCOMPARE(failures, 1);
    QCOMPARE(runlog::RunDirectory(run.toStdString()).readMetadata()->status,
             runlog::RunStatus::Finished);
  }

  // Whatever a command lets escape is a message and exit 1, not SIGABRT.
  void anExceptionLeavingACommandIsAnError() {
    CliOptions o;
    o.env = {"AMPSTUDIO_FAULT=oom@command"};
    const auto r = runCli({"info"}, o);
    QVERIFY2(!r.crashed && r.exitCode == 1, qPrintable(r.err));
    QVERIFY2(r.err.contains("ampstudio-cli: error: out of memory (std::bad_alloc) in '") &&
                 r.err.contains(" info'"),
             qPrintable(r.err));
    QVERIFY2(r.out.contains("LibTorch"), qPrintable(r.out));  // what it printed before is kept
  }

  void aReadOnlyRunIsReadAndNotWritten() {
    const QString run = dir_.path() + "/reference";
    auto readOnly = [&](const QString& program, const QStringList& args, QStringList env = {}) {
      QProcess p;
      QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
      for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
      p.setProcessEnvironment(e);
      // sh -c SCRIPT DIR PROGRAM ARGS...: $0 is the folder, "$@" the command.
      p.start("unshare",
              QStringList{
                  "--mount", "--map-root-user", "sh", "-c",
                  "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$@\"",
                  run, program} +
                  args);
      if (!p.waitForFinished(120000)) p.kill();
      p.waitForFinished();
      return testing::CliResult{p.exitCode(), p.exitStatus() == QProcess::CrashExit,
                                QString::fromUtf8(p.readAllStandardOutput()),
                                QString::fromUtf8(p.readAllStandardError())};
    };
    const QString probe = readOnly("touch", {run + "/probe"}).err;
    QVERIFY2(probe.contains("Read-only file system"),
             qPrintable("the read-only mount did not take: " + probe));

    const auto show = readOnly(AMPSTUDIO_CLI_PATH, {"runs", "show", run});
    QVERIFY2(show.exitCode == 0 && show.out.contains("finished"), qPrintable(show.out + show.err));
    const auto tail = readOnly(AMPSTUDIO_CLI_PATH, {"runs", "tail", run});
    QVERIFY2(tail.exitCode == 0 && tail.out.contains("val"), qPrintable(tail.out + tail.err));
    const QString scores = dir_.path() + "/ro-scores.csv";
    const auto test = readOnly(
        AMPSTUDIO_CLI_PATH, trainArgs(run).replaceInStrings(QRegularExpression("^train$"), "test") +
                                QStringList{"--scores", scores});
    QVERIFY2(test.exitCode == 0 && QFile::exists(scores), qPrintable(test.out + test.err));
    const auto train = readOnly(AMPSTUDIO_CLI_PATH, trainArgs(run));
    QVERIFY2(train.exitCode != 0 && !train.crashed, qPrintable(train.out + train.err));
    QVERIFY2((train.out + train.err).contains("Read-only file system") &&
                 (train.out + train.err).contains(run),
             qPrintable(train.out + train.err));
#ifdef AMPSTUDIO_GUI_PATH
    const QString png = dir_.path() + "/ro-studio.png";
    const auto studio = readOnly(
        AMPSTUDIO_GUI_PATH,
        {"--follow", run, "--runs", dir_.path(), "--screenshot", png, "--screenshot-delay", "2"},
        {"QT_QPA_PLATFORM=offscreen", "XDG_CONFIG_HOME=" + dir_.path() + "/xdg"});
    QVERIFY2(studio.exitCode == 0 && !studio.crashed, qPrintable(studio.out + studio.err));
    QVERIFY(QFileInfo(png).size() > 10000);
#endif
    const auto meta = runlog::RunDirectory(run.toStdString()).readMetadata();  // untouched
    QVERIFY(meta);
    QCOMPARE(meta->status, runlog::RunStatus::Finished);
  }
};

QTEST_GUILESS_MAIN(TestFaultDrills)
#include "tst_faultdrills.moc"
