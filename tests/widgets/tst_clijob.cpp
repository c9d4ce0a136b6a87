// The child-process call the studio's Precision and Predict tabs share (widgets/CliJob), driven
// with /bin/sh standing in for ampstudio-cli: what it printed comes back as JSON, a failure says
// the last lines of stderr or the exit code, a missing program is said before anything starts,
// Cancel kills the call, beside a training run it yields the cores, and the config files a call
// reads are written where the call can read them.
#include <QtTest>

#include <QTemporaryDir>

#include <optional>

#include <nlohmann/json.hpp>

#include "CliJob.h"
#include "NiceOf.h"
#include "configfile/ConfigLoader.h"
#include "support/RecordedRun.h"
#include "support/TestFiles.h"

using namespace amp;
using widgets::CliJob;

class TestCliJob : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  // The result of `args` once the call has ended; nullopt when it did not start or end.
  static std::optional<CliJob::Result> run(CliJob& job, const QStringList& args) {
    std::optional<CliJob::Result> result;
    QObject receiver;  // ends the connection with this call
    QObject::connect(&job, &CliJob::finished, &receiver,
                     [&result](const CliJob::Result& r) { result = r; });
    if (!job.start(args, "Running the script …")) return std::nullopt;
    if (!QTest::qWaitFor([&result] { return result.has_value(); }, 30000)) return std::nullopt;
    return result;
  }
  // sh in place of ampstudio-cli, running `script`.
  static std::optional<CliJob::Result> runScript(CliJob& job, const QString& script) {
    job.setProgram("/bin/sh");
    return run(job, {"-c", script});
  }

 private Q_SLOTS:
  void whatItPrintedComesBackAsJson() {
    CliJob job;
    QSignalSpy progress(&job, &CliJob::progress);
    const auto r = runScript(job, R"(printf '{"videos": [1, 2]}'; echo warming up >&2)");
    QVERIFY(r);
    QVERIFY2(r->ok(), qPrintable(r->failure()));
    QCOMPARE(r->err, QString("warming up"));
    const auto j = r->json();
    QVERIFY(!j.is_discarded());
    QCOMPARE(j["videos"].size(), std::size_t(2));
    QCOMPARE(job.lastArguments().first(), QString("-c"));
    // The status line is there before the call can report anything.
    QVERIFY(!progress.isEmpty());
    QCOMPARE(progress.front().front().toString(), QString("Running the script …"));
    QVERIFY(!job.busy());
  }

  void aFailureSaysTheLastLinesOfStderr() {
    CliJob job;
    const auto r =
        runScript(job, "printf '{\"half'; for l in one two three; do echo $l >&2; done; exit 1");
    QVERIFY(r);
    QVERIFY(!r->ok() && !r->cancelled && !r->crashed);
    QCOMPARE(r->exitCode, 1);
    QCOMPARE(r->failure(2), QString("two\nthree"));
    QCOMPARE(r->failure(), QString("one\ntwo\nthree"));
    QVERIFY(r->json().is_discarded());  // half a report is none
  }

  void aSilentFailureSaysItsCodeOrTheCrash() {
    CliJob job;
    auto r = runScript(job, "exit 3");
    QVERIFY(r);
    QCOMPARE(r->exitCode, 3);
    QCOMPARE(r->failure(), QString("ampstudio-cli ended with code 3"));
    r = runScript(job, "kill -9 $$");
    QVERIFY(r);
    QVERIFY(r->crashed && !r->ok());
    QCOMPARE(r->failure(), QString("ampstudio-cli crashed"));
  }

  void aMissingProgramIsSaid() {
    CliJob job;
    job.setProgram("/bin/sh");
    QVERIFY(job.programFound());
    QCOMPARE(job.programMissing("Predict"), QString());
    const std::string notExecutable = testsupport::writeFile(dir_, "cli.txt", "not a program");
    for (const QString& program :
         {QString::fromStdString(notExecutable), dir_.path() + "/no-cli", QString()}) {
      job.setProgram(program);
      QVERIFY(!job.programFound());
      QCOMPARE(job.programMissing("Predict"),
               QString("Predict runs ampstudio-cli, which was not found beside the studio (set "
                       "AMPSTUDIO_CLI to its path)."));
    }
    // Started all the same, it ends at once and says why.
    job.setProgram(dir_.path() + "/no-cli");
    const auto r = run(job, {"--json"});
    QVERIFY(r);
    QVERIFY(!r->ok() && !r->cancelled);
    QVERIFY2(r->startError.startsWith(dir_.path() + "/no-cli: "), qPrintable(r->startError));
    QCOMPARE(r->failure(), r->startError);
  }

  void besideATrainingRunItYieldsAndCancels() {
    CliJob job;
    QCOMPARE(job.threadArgs(), QStringList());
    job.setTrainingActive(true);
    QCOMPARE(job.threadArgs(), (QStringList{"--threads", "1"}));
    job.setProgram("/bin/sh");
    std::optional<CliJob::Result> r;
    connect(&job, &CliJob::finished, this, [&r](const CliJob::Result& result) { r = result; });
    QSignalSpy progress(&job, &CliJob::progress);
    QVERIFY(job.start({"-c", "echo started; exec sleep 600"}, "Waiting …"));
    QVERIFY(job.busy());
    QVERIFY(!job.start({"-c", "true"}, "Again …"));  // one call at a time
    QTRY_VERIFY(job.processId() > 0);
    QCOMPARE(testing::niceOf(job.processId()), testing::nicerThanThisTest(10));
    // The status line counts the seconds and names the training run.
    QTRY_VERIFY_WITH_TIMEOUT(progress.size() >= 2, 20000);
    const QString ticking = progress.last().front().toString();
    QVERIFY2(QRegularExpression("^Waiting … \\d+ s \\(beside the training run: lower priority, "
                                "one thread\\)$")
                 .match(ticking)
                 .hasMatch(),
             qPrintable(ticking));
    job.cancel();
    QTRY_VERIFY_WITH_TIMEOUT(r.has_value(), 20000);
    QVERIFY(r->cancelled && !r->ok());
    QCOMPARE(r->failure(), QString("cancelled"));
    QVERIFY(!job.busy());
    // Ended, it says nothing more.
    const qsizetype said = progress.size();
    QTest::qWait(1500);
    QCOMPARE(progress.size(), said);
  }

  void writesTheConfigsTheCallReads() {
    auto loaded = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml",
        {"TRAIN.BATCH_SIZE", "3"});
    QVERIFY(loaded.ok());
    CliJob job;
    QString error;
    const QString path = job.writeConfig(loaded.config, "editor-config.yaml", &error);
    QVERIFY2(path.endsWith("/editor-config.yaml"), qPrintable(error));
    auto back = config::ConfigLoader().loadFile(path.toStdString(), {});
    QVERIFY(back.ok());
    QCOMPARE(back.config.getInt("TRAIN.BATCH_SIZE"), 3);
    QCOMPARE(job.writeConfig(loaded.config, "no/such/folder/config.yaml", &error), QString());
    QVERIFY2(error.contains("no/such/folder/config.yaml"), qPrintable(error));

    // A run: its config.yaml and newest checkpoint; a folder without one says so.
    const QString runDir = dir_.path() + "/run";
    testsupport::recordRun(runDir, "run", "fp32", 1.0, 900, 40, "TRAIN:\n  BATCH_SIZE: 8\n");
    QString checkpoint = "stale";
    QCOMPARE(job.runConfig(runDir, &checkpoint, &error), runDir + "/config.yaml");
    QCOMPARE(checkpoint, QString());
    testsupport::writeFile(dir_, "run/checkpoints/checkpoint_epoch_00001.pyth", "");
    testsupport::writeFile(dir_, "run/checkpoints/checkpoint_epoch_00002.pyth", "");
    QCOMPARE(job.runConfig(runDir, &checkpoint, &error), runDir + "/config.yaml");
    QVERIFY2(checkpoint.endsWith("/checkpoints/checkpoint_epoch_00002.pyth"),
             qPrintable(checkpoint));
    QCOMPARE(job.runConfig(dir_.path() + "/no-run", &checkpoint, &error), QString());
    QVERIFY2(error.contains("no-run: the run has no config.yaml"), qPrintable(error));
  }
};

QTEST_MAIN(TestCliJob)
#include "tst_clijob.moc"
