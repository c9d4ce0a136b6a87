// ampstudio-cli on the frame-folder datasets: the demo data in SSv2's and Charades' layouts, data
// check naming a missing and a damaged frame, config check over the shipped SSv2 and Charades
// recipes, and a short multi-label training, its mAP and test scores with targets.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cmath>

#include "CliRun.h"

using amp::testing::configFile;
using amp::testing::runCli;

class TestCliFrames : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString charades_ = dir_.path() + "/charades";
  QString ssv2_ = dir_.path() + "/ssv2";

  static QStringList dataArgs(const QString& data) {
    return {"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data};
  }

  // Validation shared by two processes (each rank's clips summed into their videos' rows, the
  // sampler's padding duplicates averaged away) gives the one-process mAP. Both runs start from
  // `trained`'s weights and change nothing (learning rate 0, batch norms frozen), so the model
  // each validates is the same.
  void validationSharedByRanksGivesTheSameMap(const QString& trained) {
    const QStringList still =
        amp::testing::stillTrainingOverrides(trained + "/checkpoints/checkpoint_epoch_00001.pyth") +
        QStringList{"TRAIN.BATCH_SIZE", "4", "X3D.DIM_C5", "32", "DATA_LOADER.NUM_WORKERS", "1"};
    QList<double> maps[2];
    for (const int processes : {1, 2}) {
      const QString out = dir_.path() + "/runs/still-" + QString::number(processes);
      auto r = runCli(QStringList{"train", "--cfg", configFile("demo/DEMO_X3D_TINY_CHARADES.yaml"),
                                  "--init-method", "file://" + out + "-store", "OUTPUT_DIR", out,
                                  "DIST.CPU_PROCESSES", QString::number(processes)} +
                      still + dataArgs(charades_));
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
      maps[processes - 1] = amp::testing::recordValues(out, "val", "map");
    }
    qInfo("val mAP, one process %.17g, two %.17g", maps[0].value(0), maps[1].value(0));
    QCOMPARE(maps[0].size(), 1);
    QCOMPARE(maps[1].size(), 1);
    QVERIFY2(
        maps[0][0] > 0 && std::abs(maps[0][0] - maps[1][0]) < 1e-9,
        qPrintable(QString("%1 vs %2").arg(maps[0][0], 0, 'g', 17).arg(maps[1][0], 0, 'g', 17)));
  }

 private slots:
  void initTestCase() {
    auto c = runCli({"make-demo-data", "--format", "charades", "--out", charades_,
                     "--clips-per-class", "1", "--seed", "3"});
    QVERIFY2(c.exitCode == 0 && c.out.contains("Wrote 6 train, 8 val, 8 test videos"),
             qPrintable(c.out + c.err));
    auto s = runCli({"make-demo-data", "--format", "ssv2", "--out", ssv2_, "--clips-per-class", "1",
                     "--seed", "3"});
    QVERIFY2(s.exitCode == 0 && s.out.contains("Wrote 8 train, 16 val, 16 test videos"),
             qPrintable(s.out + s.err));
    QVERIFY(QFile::exists(ssv2_ + "/something-something-v2-labels.json"));
  }

  void dataCheckDecodesEveryFrame() {
    auto ok =
        runCli(QStringList{"data", "check", "--cfg", configFile("demo/DEMO_X3D_TINY_SSV2.yaml")} +
               dataArgs(ssv2_));
    QCOMPARE(ok.exitCode, 0);
    QVERIFY2(ok.out.contains("ssv2: frame folders") && ok.out.contains("train: 8 videos ok") &&
                 ok.out.contains("total: 24 clips ok, 0 failed; 576 frames; size 84x84"),
             qPrintable(ok.out));
    // A copy with one frame gone and one cut short in its header.
    const QString bad = dir_.path() + "/charades-bad";
    QVERIFY(QDir().mkpath(bad));
    QCOMPARE(QProcess::execute("cp", {"-r", charades_ + "/.", bad}), 0);
    QVERIFY(QFile::remove(bad + "/frames/C00001/C00001_000010.jpg"));
    QFile cut(bad + "/frames/C00006/C00006_000001.jpg");
    QVERIFY(cut.open(QIODevice::ReadWrite));
    QVERIFY(cut.resize(40));
    cut.close();
    auto broken = runCli(
        QStringList{"data", "check", "--cfg", configFile("demo/DEMO_X3D_TINY_CHARADES.yaml")} +
        dataArgs(bad));
    QCOMPARE(broken.exitCode, 1);
    // The video's first line (C00000 takes lines 2-49), its id and the frame.
    QVERIFY2(broken.out.contains("train.csv:50: C00001: cannot read '" + bad +
                                 "/frames/C00001/C00001_000010.jpg': No such file"),
             qPrintable(broken.out));
    QVERIFY2(broken.out.contains("C00006: " + bad + "/frames/C00006/C00006_000001.jpg"),
             qPrintable(broken.out));
    QVERIFY2(broken.out.contains("total: 12 clips ok, 2 failed"), qPrintable(broken.out));
  }

  void recipesAreNotRefused() {
    for (const char* rel : {"SSv2/SLOWFAST_16x8_R50.yaml", "SSv2/MVITv2_S_16x4.yaml",
                            "Charades/SLOWFAST_16x8_R50.yaml"}) {
      auto r = runCli({"config", "check", "--cfg", configFile(rel)});
      QVERIFY2(r.exitCode == 0 && !r.err.contains("refuse"), qPrintable(rel + r.err));
    }
  }

  void charadesTrainsAndTestsByMap() {
    const QString run = dir_.path() + "/runs/charades";
    auto train = runCli(
        QStringList{"train", "--cfg", configFile("demo/DEMO_X3D_TINY_CHARADES.yaml"), "OUTPUT_DIR",
                    run, "SOLVER.MAX_EPOCH", "1", "TRAIN.BATCH_SIZE", "2", "TEST.BATCH_SIZE", "4",
                    "X3D.DIM_C5", "32", "LOG_PERIOD", "1", "DATA_LOADER.NUM_WORKERS", "1"} +
        dataArgs(charades_));
    QVERIFY2(train.exitCode == 0, qPrintable(train.out + train.err));
    QFile metrics(run + "/metrics.jsonl");
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    const QString log = QString::fromUtf8(metrics.readAll());
    QVERIFY2(log.contains("\"kind\":\"val\"") && log.contains("\"map\":"), qPrintable(log));
    QVERIFY2(!log.contains("top1_err"), "multi-label runs log no top-1");
    // Each class's AP beside the mean: one per class of the head (8), their mean over the
    // classes with a positive the validation's mAP.
    const auto valMaps = amp::testing::recordValues(run, "val", "map");
    QVERIFY(!valMaps.isEmpty());
    const auto [classes, mean] = amp::testing::perClassMean(run, "val");
    QCOMPARE(classes, 8);
    QVERIFY2(std::abs(mean - valMaps.back()) < 1e-9,
             qPrintable(QString("mean %1, map %2").arg(mean).arg(valMaps.back())));
    validationSharedByRanksGivesTheSameMap(run);
    const QString scores = dir_.path() + "/scores.csv";
    auto test = runCli(QStringList{"test", "--cfg", configFile("demo/DEMO_X3D_TINY_CHARADES.yaml"),
                                   "--scores", scores, "OUTPUT_DIR", run, "TEST.BATCH_SIZE", "4",
                                   "X3D.DIM_C5", "32"} +
                       dataArgs(charades_));
    QVERIFY2(
        test.exitCode == 0 && test.out.contains("mAP          ") && !test.out.contains("top1_err"),
        qPrintable(test.out + test.err));
    // Two processes share the views (each rank's share merged by video): the same mAP.
    auto shared = runCli(
        QStringList{"test", "--cfg", configFile("demo/DEMO_X3D_TINY_CHARADES.yaml"),
                    "--init-method", "file://" + dir_.path() + "/store-test", "OUTPUT_DIR", run,
                    "TEST.BATCH_SIZE", "4", "X3D.DIM_C5", "32", "DIST.CPU_PROCESSES", "2"} +
        dataArgs(charades_));
    QVERIFY2(shared.exitCode == 0, qPrintable(shared.out + shared.err));
    auto mapLine = [](const QString& out) {
      for (const QString& line : out.split('\n'))
        if (line.startsWith("mAP ")) return line;
      return QString();
    };
    QVERIFY(!mapLine(test.out).isEmpty());
    QCOMPARE(mapLine(shared.out), mapLine(test.out));
    QVERIFY2(shared.out.contains("shared by 2 processes"), qPrintable(shared.out));
    QFile csv(scores);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 9);  // header and the 8 validation videos
    QVERIFY2(lines[0].endsWith(",target_6,target_7"), qPrintable(lines[0]));
    // Each video's targets: its demo actions, 2 or 3 of them.
    for (int i = 1; i < lines.size(); ++i) {
      const QStringList cells = lines[i].split(',');
      int positives = 0;
      for (int k = 0; k < 8; ++k) positives += cells[cells.size() - 8 + k].toInt();
      QVERIFY2(positives == 2 || positives == 3, qPrintable(lines[i]));
    }
  }
};

QTEST_GUILESS_MAIN(TestCliFrames)
#include "tst_cliframes.moc"
