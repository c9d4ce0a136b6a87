// ampstudio-cli train --dry-run and config check --preflight: the pre-flight problems as config
// errors (the same lines from both), exit 1 on an error, 0 when ready, and nothing written.
#include <QtTest>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>

#include "CliRun.h"

#include "support/DemoFixture.h"

namespace {

amp::testing::CliResult runCli(const QStringList& args, const QString& workDir) {
  amp::testing::CliOptions o;
  o.workDir = workDir;
  return amp::testing::runCli(args, o);
}

QStringList entries(const QString& dir) {
  QStringList out;
  for (const QFileInfo& f :
       QDir(dir).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
    out << f.fileName();
  return out;
}

}  // namespace

class TestDryRun : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString cfg_, bad_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    amp::testsupport::DemoFixture demoData({}, /*clipsPerClass=*/2);  // the data set in dir_/data
    QVERIFY2(demoData.generate(dir_.path()), demoData.error().c_str());
    const QString demo = QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml";
    cfg_ = dir_.filePath("ok.yaml");
    QFile in(demo);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QByteArray text = in.readAll();
    text.replace("PATH_TO_DATA_DIR: demo-data",
                 "PATH_TO_DATA_DIR: " + dir_.filePath("data").toUtf8());
    text.replace("PATH_PREFIX: demo-data", "PATH_PREFIX: " + dir_.filePath("data").toUtf8());
    text.replace("OUTPUT_DIR: runs/demo-amp", "OUTPUT_DIR: " + dir_.filePath("runs/ok").toUtf8());
    QFile out(cfg_);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text);
    out.close();
    // Every pre-flight problem at once, set in the file so the messages carry its lines.
    bad_ = dir_.filePath("bad.yaml");
    QFile bad(bad_);
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("_BASE_: ok.yaml\nNUM_GPUS: 64\nDATA:\n  PATH_TO_DATA_DIR: " +
              dir_.filePath("nowhere").toUtf8() +
              "\nTRAIN:\n  CHECKPOINT_FILE_PATH: " + dir_.filePath("missing.pyth").toUtf8() +
              "\n  BATCH_SIZE: 128\nOUTPUT_DIR: " + dir_.filePath("runs/bad").toUtf8() + "\n");
  }

  void dryRunReportsEveryProblemAndFails() {
    const QStringList before = entries(dir_.path());
    auto r = runCli({"train", "--dry-run", "--cfg", bad_}, dir_.path());
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(bad_ + ":2:11: NUM_GPUS: is 64 but this "), qPrintable(r.err));
    QVERIFY2(r.err.contains(bad_ + ":4:21: DATA.PATH_TO_DATA_DIR: '" + dir_.filePath("nowhere") +
                            "' does not exist"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(bad_ + ":6:25: TRAIN.CHECKPOINT_FILE_PATH: '"), qPrintable(r.err));
    QVERIFY2(r.out.contains("pre-flight: 3 errors") && r.out.contains("nothing was written"),
             qPrintable(r.out));
    QCOMPARE(entries(dir_.path()), before);  // no run directory, no lock file
    QVERIFY(!QFileInfo::exists(dir_.filePath("runs")));
  }

  void configCheckPreflightSaysTheSame() {
    auto dry = runCli({"train", "--dry-run", "--no-memory-check", "--cfg", bad_}, dir_.path());
    auto check =
        runCli({"config", "check", "--preflight", "--no-memory-check", "--cfg", bad_}, dir_.path());
    QCOMPARE(check.exitCode, 1);
    QCOMPARE(check.err, dry.err);
    // Without --preflight, config check judges the config alone: it is valid.
    auto plain = runCli({"config", "check", "--cfg", bad_}, dir_.path());
    QCOMPARE(plain.exitCode, 0);
  }

  // A key train refuses is a warning of config check and an error of the pre-flight: the report
  // says it once, as the error, and keeps the config check's other warnings.
  void aRefusedKeyIsReportedOnceAsAnError() {
    const QString refused = dir_.filePath("refused.yaml");
    QFile f(refused);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("_BASE_: ok.yaml\nDETECTION:\n  ENABLE: True\nOUTPUT_DIR: " +
            dir_.filePath("runs/refused").toUtf8() + "\n");
    f.close();
    auto plain = runCli({"config", "check", "--cfg", refused}, dir_.path());
    QCOMPARE(plain.exitCode, 0);
    QVERIFY2(plain.err.contains(refused + ":3:11: warning: DETECTION.ENABLE"),
             qPrintable(plain.err));
    for (const QStringList& command :
         {QStringList{"train", "--dry-run"}, QStringList{"config", "check", "--preflight"}}) {
      auto r = runCli(command + QStringList{"--no-memory-check", "--cfg", refused}, dir_.path());
      QCOMPARE(r.exitCode, 1);
      QCOMPARE(r.err.count("DETECTION.ENABLE"), 1);
      QVERIFY2(r.err.contains(refused + ":3:11: DETECTION.ENABLE"),
               qPrintable(r.err));  // an error: no "warning: "
      QVERIFY2(r.out.contains("pre-flight: 1 error"), qPrintable(r.out));
    }
  }

  void dryRunOfAGoodConfigPassesAndWritesNothing() {
    const QStringList before = entries(dir_.path());
    auto r = runCli({"train", "--dry-run", "--cfg", cfg_}, dir_.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains("ready to train"), qPrintable(r.out));
    QVERIFY2(r.out.contains("memory: about "),
             qPrintable(r.out));  // one step of the tiny X3D was measured
    QCOMPARE(entries(dir_.path()), before);
    QVERIFY(!QFileInfo::exists(dir_.filePath("runs/ok")));
    r = runCli({"train", "--dry-run", "--no-memory-check", "--cfg", cfg_}, dir_.path());
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(!r.out.contains("memory:"), qPrintable(r.out));
  }

  void overridesApply() {
    auto r = runCli({"train", "--dry-run", "--no-memory-check", "--cfg", cfg_, "OUTPUT_DIR",
                     dir_.filePath("ok.yaml/run")},
                    dir_.path());
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("OUTPUT_DIR: '" + dir_.filePath("ok.yaml/run") + "' cannot be created"),
             qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestDryRun)
#include "tst_dryrun.moc"
