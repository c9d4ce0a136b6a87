// ampstudio-cli's commands that read configs, models and run folders: config check, show and
// keys, model summary, multigrid schedule, info, and runs list, show and tail.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "CliRun.h"

#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardWriter.h"

using amp::testing::configFile;
using amp::testing::runCli;

class TestCliConfig : public QObject {
  Q_OBJECT

 private slots:
  void checkValid() {
    auto r = runCli({"config", "check", "--cfg", configFile("Kinetics/SLOWFAST_8x8_R50.yaml")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("valid"));
  }

  void checkInvalidReportsEveryError() {
    QTemporaryDir dir;
    const QString path = dir.path() + "/bad.yaml";
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("SOLVER:\n  BASE_LR: -1\n  MAX_EPOCHS: 3\n");
    f.close();
    auto r = runCli({"config", "check", "--cfg", path, "TRAIN.BATCH_SIZE", "x"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(path + ":2:12: SOLVER.BASE_LR:"), qPrintable(r.err));
    QVERIFY2(r.err.contains(path + ":3:3: SOLVER.MAX_EPOCHS: ") &&
                 r.err.contains("did you mean SOLVER.MAX_EPOCH"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("command line, argument 1: TRAIN.BATCH_SIZE:"), qPrintable(r.err));
    QVERIFY(r.err.contains("3 errors"));
    QVERIFY(r.out.isEmpty());
  }

  void showResolvedWithOverrides() {
    auto r = runCli({"config", "show", "--cfg", configFile("Kinetics/X3D_XS.yaml"), "--changed",
                     "SOLVER.LR_SCALE", "0.6"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("NUM_FRAMES: 4\n"));
    QVERIFY(r.out.contains("  LR_SCALE: 0.6\n"));
    QVERIFY(!r.out.contains("\nNUM_SHARDS:"));  // default: not shown with --changed
    auto p = runCli({"config", "show", "--cfg", configFile("Kinetics/X3D_XS.yaml"), "--pyslowfast",
                     "SOLVER.LR_SCALE", "0.5"});
    QCOMPARE(p.exitCode, 0);
    QVERIFY(p.out.contains("  BASE_LR: 0.05\n"));
    QVERIFY(!p.out.contains("AMP:"));
  }

  void overrideValuesStayWhole() {
    auto r = runCli({"config", "show", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--changed",
                     "DATA.TRAIN_JITTER_SCALES", "[70, 90]", "DEMO.WEBCAM", "-5"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("TRAIN_JITTER_SCALES: [70, 90]"), qPrintable(r.out));
    QVERIFY(r.out.contains("WEBCAM: -5"));
  }

  void modelSummary() {
    auto r = runCli({"model", "summary", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("output       1x8") && r.out.contains("input 0      1x3x8x64x64"),
             qPrintable(r.out));
    auto keys = runCli({"model", "summary", "--cfg", configFile("Kinetics/X3D_XS.yaml"), "--keys"});
    QCOMPARE(keys.exitCode, 0);
    QVERIFY(keys.out.startsWith("# X3D (x3d): 3794322 parameters, 568 state-dict entries"));
    QVERIFY(keys.out.contains("\ns1.pathway0_stem.conv_xy.weight 24x3x1x3x3\n"));
    auto mvit =
        runCli({"model", "summary", "--cfg", configFile("Kinetics/MVITv2_S_16x4.yaml"), "--keys"});
    QCOMPARE(mvit.exitCode, 0);
    QVERIFY2(mvit.out.startsWith("# MViT (mvit): 34537744 parameters, 397 state-dict entries"),
             qPrintable(mvit.out.left(200)));
    auto odd = runCli({"model", "summary", "--cfg", configFile("Kinetics/MVITv2_S_16x4.yaml"),
                       "MODEL.MODEL_NAME", "ViT"});
    QCOMPARE(odd.exitCode, 1);
    QVERIFY2(odd.err.contains(
                 "MODEL.MODEL_NAME: 'ViT' is not built; available: ResNet, SlowFast, X3D, MViT"),
             qPrintable(odd.err));
  }

  void multigridSchedule() {
    const QString cfg =
        QString(AMPSTUDIO_TEST_DATA_DIR) + "/multigrid/SLOWFAST_8x8_R50_stepwise_multigrid.yaml";
    auto r = runCli({"multigrid", "schedule", "--cfg", cfg});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("phase stage   epochs  batch /device frames crop rate  relative LR"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("SOLVER.MAX_EPOCH 358 (was 239)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("theoretical iteration saving: 3.42258x") &&
                 r.out.contains("5.75x at equal epochs"),
             qPrintable(r.out));
    auto j =
        runCli({"multigrid", "schedule", "--cfg", cfg, "--json", "MULTIGRID.SHORT_CYCLE", "False"});
    QCOMPARE(j.exitCode, 0);
    const auto o = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QCOMPARE(o["phases"].toArray().size(), 13);
    QCOMPARE(o["solver"].toObject()["MAX_EPOCH"].toInt(), 358);
    QCOMPARE(o["phases"].toArray()[1].toObject()["end_epoch"].toInt(), 130);  // long cycles alone
    QVERIFY(o["notes"].toArray()[0].toString().contains("PySlowFast fails"));
    auto off = runCli({"multigrid", "schedule", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")});
    QCOMPARE(off.exitCode, 0);
    QVERIFY2(off.out.startsWith("multigrid is off"), qPrintable(off.out));
    auto bad = runCli({"multigrid", "schedule", "--cfg", cfg, "SOLVER.MAX_EPOCH", "150"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("SOLVER.MAX_EPOCH: 150 is before the last SOLVER.STEPS entry 196"),
             qPrintable(bad.err));
  }

  void keys() {
    auto r = runCli({"config", "keys", "AMP."});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("AMP.GROWTH_FACTOR"));
    QVERIFY(r.out.contains("9 keys"));
    auto bad = runCli({"config", "keys", "SOLVR"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(bad.err.contains("did you mean"));
  }

  void infoNamesVersionsAndWhatThisBuildWrites() {
    auto r = runCli({"info"});
    QCOMPARE(r.exitCode, 0);
    for (const char* line : {"AMP Studio ", "LibTorch ", "CPU ", "BLAS ", "FFmpeg ", "CUDA device"})
      QVERIFY2(r.out.contains(QString("\n") + line) || r.out.startsWith(line), line);
    const auto unsupported = amp::runlog::tensorBoardSupport();
    const QString expected = QString::fromStdString(
        unsupported ? "none: " + *unsupported : "event files with TENSORBOARD.ENABLE");
    QVERIFY2(r.out.contains("\nTensorBoard     " + expected + "\n"), qPrintable(r.out));
#ifdef AMPSTUDIO_TEST_HAS_GLOO
    QVERIFY2(r.out.contains("\nProcesses       c10d Gloo (CPU and GPU"), qPrintable(r.out));
#else
    QVERIFY2(r.out.contains("\nProcesses       ") && !r.out.contains("c10d Gloo"),
             qPrintable(r.out));
#endif
  }

  void missingConfigFile() {
    auto r = runCli({"config", "check", "--cfg", "/no/such.yaml"});
    QVERIFY(r.exitCode != 0);
    QVERIFY(r.err.contains("/no/such.yaml"));
  }

  // `runs list` shows each run's best validation: top-1 accuracy, or a multi-label run's mAP
  // (its val events carry `map`, a fraction, and no top-1; or its run.json says multi_label).
  void runsListShowsTheBestTop1OrMap() {
    QTemporaryDir dir;
    const auto write = [&dir](const char* name, bool multiLabel,
                              const std::vector<std::map<std::string, double>>& vals) {
      amp::runlog::RunDirectory run((dir.path() + "/" + name).toStdString());
      QVERIFY(run.ensureExists(nullptr));
      amp::runlog::RunMetadata m;
      m.name = name;
      m.status = amp::runlog::RunStatus::Finished;
      m.multiLabel = multiLabel;
      QVERIFY(run.writeMetadata(m, nullptr));
      amp::runlog::MetricsWriter w;
      QVERIFY(w.open(run.metricsPath(), nullptr));
      std::int64_t step = 0;
      for (const auto& values : vals) {
        amp::runlog::MetricEvent e;
        e.kind = amp::runlog::kind::kVal;
        e.step = ++step;
        e.values = values;
        QVERIFY(w.write(e, nullptr));
      }
    };
    write("kinetics", false, {{{"top1_err", 30}}, {{"top1_err", 27.5}}});
    write("charades", false,
          {{{"map", 0.35}, {"max_map", 0.35}}, {{"map", 0.413}, {"max_map", 0.413}}});
    write("charades-new", true, {});
    auto list = runCli({"runs", "list", dir.path()});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("BEST"), qPrintable(list.out));
    const QStringList lines = list.out.split('\n');
    const auto lineOf = [&lines](const QString& name) {
      for (const QString& l : lines)
        if (l.startsWith(name + ' ')) return l;
      return QString();
    };
    QVERIFY2(lineOf("kinetics").contains(" 72.5 % "), qPrintable(list.out));
    QVERIFY2(lineOf("charades").contains(" mAP 41.3 % "), qPrintable(list.out));
    QVERIFY2(!lineOf("charades").contains(" 0.0 %") && !lineOf("charades").contains("100.0 %"),
             qPrintable(list.out));
    // No validation yet: no figure ("-"; then STARTED's "-"), not a top-1 of 0.
    QCOMPARE(lineOf("charades-new").split(' ', Qt::SkipEmptyParts).mid(1, 3),
             (QStringList{"finished", "-", "-"}));
  }

  // `runs list --filter` takes the studio's filter syntax; a folder of TensorBoard event files
  // (here a logdir two levels deep, as Lightning writes) lists as read-only runs.
  void runsListFiltersAndListsTensorBoardRuns() {
    QTemporaryDir dir;
    for (const char* name : {"fp32-lr0.1", "bf16-lr0.05"}) {
      amp::runlog::RunDirectory run((dir.path() + "/" + name).toStdString());
      QVERIFY(run.ensureExists(nullptr));
      amp::runlog::RunMetadata m;
      m.name = name;
      m.status = amp::runlog::RunStatus::Finished;
      m.precision = QString(name).left(4).toStdString();
      m.tags = {"sweep-3"};
      QVERIFY(run.writeMetadata(m, nullptr));
      QFile config(QString::fromStdString(run.configPath()));
      QVERIFY(config.open(QIODevice::WriteOnly));
      config.write(QString("SOLVER:\n  BASE_LR: %1\n").arg(QString(name).mid(7)).toUtf8());
    }
    auto list = runCli({"runs", "list", dir.path(), "--filter", "tag:sweep-3 SOLVER.BASE_LR<0.08"});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("bf16-lr0.05") && !list.out.contains("fp32-lr0.1"),
             qPrintable(list.out));
    list = runCli({"runs", "list", dir.path(), "--filter", "SOLVER.BASE_LR>fast"});
    QVERIFY2(list.err.contains("'fast' is not one"), qPrintable(list.err));
    if (amp::runlog::tensorBoardSupport()) return;  // a build without protobuf reads no events
    QTemporaryDir logdir;
    amp::runlog::TensorBoardWriter w;
    QVERIFY(w.open((logdir.path() + "/exp/version_0").toStdString(), 1.79e9, nullptr));
    QVERIFY(w.add({{"Train/loss", 1.0}, {"Val/Top1_err", 25.0}}, 1, 1.79e9 + 1, nullptr));
    w.close();
    list = runCli({"runs", "list", logdir.path()});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("exp/version_0") && list.out.contains("75.0 %") &&
                 list.out.contains("TensorBoard run"),
             qPrintable(list.out));
  }

  void runsListShowTail() {
    QTemporaryDir dir;
    amp::runlog::RunDirectory run((dir.path() + "/run1").toStdString());
    QVERIFY(run.ensureExists(nullptr));
    amp::runlog::RunMetadata m;
    m.name = "demo-amp";
    m.status = amp::runlog::RunStatus::Finished;
    m.model = "X3D";
    m.precision = "bf16";
    QVERIFY(run.writeMetadata(m, nullptr));
    {
      amp::runlog::MetricsWriter w;
      QVERIFY(w.open(run.metricsPath(), nullptr));
      for (int i = 1; i <= 3; ++i) {
        amp::runlog::MetricEvent e;
        e.step = i;
        e.values = {{"loss", 1.0 / i}};
        QVERIFY(w.write(e, nullptr));
      }
    }
    auto list = runCli({"runs", "list", dir.path()});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(
        list.out.contains("demo-amp") && list.out.contains("finished") && list.out.contains("bf16"),
        qPrintable(list.out));
    auto show = runCli({"runs", "show", dir.path() + "/run1"});
    QCOMPARE(show.exitCode, 0);
    QVERIFY(show.out.contains("3 metric events"));
    auto tail = runCli({"runs", "tail", dir.path() + "/run1", "--kind", "train"});
    QCOMPARE(tail.exitCode, 0);
    QCOMPARE(tail.out.count("\n"), 3);
    QVERIFY(tail.out.contains("loss=0.333333"));

    // Our run's config is its config.yaml.
    QVERIFY(QFile::copy(QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml",
                        dir.path() + "/run1/config.yaml"));
    auto ours = runCli({"runs", "show", "--config", dir.path() + "/run1"});
    QCOMPARE(ours.exitCode, 0);
    QVERIFY2(ours.out.contains("MODEL:") && ours.out.contains("x3d"), qPrintable(ours.out));

    // A PySlowFast OUTPUT_DIR: model and precision from the cfg of its newest checkpoint.
    QDir(dir.path()).mkpath("theirs/checkpoints");
    QFile log(dir.path() + "/theirs/json_stats.log");
    QVERIFY(log.open(QIODevice::WriteOnly));
    log.write(
        R"(json_stats: {"_type": "train_epoch", "epoch": "1/12", "loss": 4.5, "lr": 0.1, "top1_err": 90.0})"
        "\n");
    log.close();
    const QString fixtures = QString(AMPSTUDIO_TEST_DATA_DIR) + "/checkpoints/";
    QVERIFY(QFile::copy(fixtures + "torchsave_zip.pyth",
                        dir.path() + "/theirs/checkpoints/checkpoint_epoch_00011.pyth"));
    QVERIFY(QFile::copy(fixtures + "pyslowfast_run.pyth",
                        dir.path() + "/theirs/checkpoints/checkpoint_epoch_00012.pyth"));
    list = runCli({"runs", "list", dir.path()});
    QCOMPARE(list.exitCode, 0);
    QVERIFY2(list.out.contains("ResNet (slow)") && list.out.contains("fp16"), qPrintable(list.out));
    auto theirs = runCli({"runs", "show", "--config", dir.path() + "/theirs"});
    QCOMPARE(theirs.exitCode, 0);
    QVERIFY2(theirs.out.contains("checkpoint_epoch_00012.pyth") &&
                 theirs.out.contains("  ARCH: slow") &&
                 theirs.out.contains("MIXED_PRECISION: true"),
             qPrintable(theirs.out));
    QVERIFY2(theirs.err.contains("SOLVER.FROM_A_LATER_VERSION"),
             qPrintable(theirs.err));  // a key of another version
    show = runCli({"runs", "show", dir.path() + "/theirs"});
    QVERIFY2(show.out.contains("checkpoint_epoch_00012.pyth") &&
                 show.out.contains("\"precision\": \"fp16\""),
             qPrintable(show.out));
  }
};

QTEST_GUILESS_MAIN(TestCliConfig)
#include "tst_cliconfig.moc"
