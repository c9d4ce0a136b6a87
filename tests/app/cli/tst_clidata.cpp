// ampstudio-cli on a dataset: data check and preview, and a short train, test and predict on
// damaged data.
#include <QtTest>

#include <QFileInfo>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>

#include "CliRun.h"

using amp::testing::configFile;
using amp::testing::makeDemoData;
using amp::testing::runCli;

class TestCliData : public amp::testing::DemoDataSuite {
  Q_OBJECT

 private slots:
  void initTestCase() { QVERIFY(makeDemoData(data_)); }

  // data check and preview on the intact demo data of initTestCase.
  void dataCheckAndPreview() {
    const QString data = data_;
    const QStringList dataArgs{"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data};
    QTemporaryDir dir;
    auto check = runCli(
        QStringList{"data", "check", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")} + dataArgs);
    QCOMPARE(check.exitCode, 0);
    QVERIFY2(check.out.contains("total: 48 clips ok, 0 failed"), qPrintable(check.out));
    QVERIFY(check.out.contains("size 84x84"));
    // data preview: a PNG contact sheet per clip and each clip's sampling (here two test views).
    auto preview =
        runCli(QStringList{"data", "preview", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--split", "test", "--clip", "2", "--count", "2", "--out",
                           dir.path() + "/preview", "--json"} +
               dataArgs);
    QCOMPARE(preview.exitCode, 0);
    const auto clips = QJsonDocument::fromJson(preview.out.toUtf8()).array();
    QCOMPARE(clips.size(), 2);
    QCOMPARE(clips[0].toObject()["position"].toInt(), 2);
    QCOMPARE(clips[1].toObject()["view"].toInt(),
             1);  // test positions are video x views: 3 is video 1's view 1
    QVERIFY(clips[0].toObject()["frame_indices"].toArray().size() == 8);
    QVERIFY(QFile::exists(clips[1].toObject()["png"].toString()));
    auto outside =
        runCli(QStringList{"data", "preview", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--clip", "999", "--out", dir.path() + "/preview"} +
               dataArgs);
    QCOMPARE(outside.exitCode, 1);
    QVERIFY2(outside.err.contains("clip 999 is outside the train epoch's"),
             qPrintable(outside.err));
    // Training clips with RandAugment and random erasing: each op by name with its argument, each
    // box.
    const QStringList augArgs{"AUG.ENABLE",         "True",        "AUG.AA_TYPE",
                              "rand-m9-n4-mstd0.5", "AUG.RE_PROB", "1.0"};
    auto augmented =
        runCli(QStringList{"data", "preview", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--count", "4", "--out", dir.path() + "/augmented", "--json"} +
               dataArgs + augArgs);
    QCOMPARE(augmented.exitCode, 0);
    const auto augClips = QJsonDocument::fromJson(augmented.out.toUtf8()).array();
    QCOMPARE(augClips.size(), 4);
    const QStringList opNames{"AutoContrast", "Equalize",      "Invert",       "Rotate",
                              "Posterize",    "Solarize",      "SolarizeAdd",  "Color",
                              "Contrast",     "Brightness",    "Sharpness",    "ShearX",
                              "ShearY",       "TranslateXRel", "TranslateYRel"};
    int ops = 0;
    QStringList firstOps;
    for (qsizetype i = 0; i < augClips.size(); ++i) {
      const auto c = augClips[i].toObject();
      for (const auto& op : c["augment_ops"].toArray()) {
        const QString name = op.toObject()["op"].toString();
        QVERIFY2(opNames.contains(name), qPrintable(name));
        QVERIFY(op.toObject()["text"].toString().startsWith(name));
        if (i == 0) firstOps << op.toObject()["text"].toString();
        ++ops;
      }
      QCOMPARE(c["erased_boxes"].toArray().size(), 1);  // RE_PROB 1, RE_COUNT 1
      const auto box = c["erased_boxes"].toArray()[0].toObject();
      QVERIFY(box["y"].toInt() >= 0 && box["y"].toInt() + box["height"].toInt() <= 64);
      QVERIFY(box["x"].toInt() >= 0 && box["x"].toInt() + box["width"].toInt() <= 64);
    }
    QVERIFY(ops > 0);  // 4 clips of up to 4 ops each: the seeded draw applied some
    auto text =
        runCli(QStringList{"data", "preview", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--count", "4", "--out", dir.path() + "/augmented"} +
               dataArgs + augArgs);
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("  erased "), qPrintable(text.out));
    if (!firstOps.isEmpty())
      QVERIFY2(text.out.contains("  RandAugment " + firstOps.join(", ") + "\n"),
               qPrintable(text.out));
  }

  // A dataset with one missing video and one file that is not a video: data check names both, and
  // a short training run on it, its test and predict work around them.
  void damagedDataTrainsTestsAndPredicts() {
    QTemporaryDir dir;
    const QString data = dir.path() + "/demo";
    QVERIFY(makeDemoData(data));
    const QStringList dataArgs{"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data};
    QFile::remove(data + "/videos/train/growing_0001.mp4");
    QFile junk(data + "/videos/val/shrinking_0000.mp4");
    QVERIFY(junk.open(QIODevice::WriteOnly | QIODevice::Truncate));
    junk.write("definitely not a video");
    junk.close();
    auto bad = runCli(QStringList{"data", "check", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")} +
                      dataArgs);
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.out.contains("train.csv:15: " + data +
                              "/videos/train/growing_0001.mp4: file does not exist"),
             qPrintable(bad.out));
    QVERIFY2(bad.out.contains("shrinking_0000.mp4: not a readable video"), qPrintable(bad.out));
    QVERIFY(bad.out.contains("total: 46 clips ok, 2 failed"));
    auto bench = runCli(QStringList{"bench", "data", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                                    "--split", "test", "--batches", "2", "--workers", "2"} +
                        dataArgs);
    QCOMPARE(bench.exitCode, 0);
    QVERIFY2(bench.out.contains("clips/s") && bench.out.contains("speed-up with 2 workers"),
             qPrintable(bench.out));
    // Train one short epoch headless on the (partly damaged) dataset: damaged clips are
    // replaced, the run finishes, and the run list sees it.
    const QString run = dir.path() + "/runs/cli-run";
    auto train = runCli(QStringList{"train", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                                    "OUTPUT_DIR", run, "SOLVER.MAX_EPOCH", "1", "TRAIN.BATCH_SIZE",
                                    "4", "X3D.DIM_C5", "32", "LOG_PERIOD", "1"} +
                        dataArgs);
    QCOMPARE(train.exitCode, 0);
    QVERIFY2(train.out.contains("[epoch ") && train.out.contains("[val epoch 1]") &&
                 train.out.contains("run finished"),
             qPrintable(train.out));
    auto runs = runCli({"runs", "list", dir.path() + "/runs"});
    QVERIFY2(
        runs.out.contains("cli-run") && runs.out.contains("finished") && runs.out.contains("bf16"),
        qPrintable(runs.out));
    QVERIFY(QFile::exists(run + "/checkpoints/checkpoint_epoch_00001.pyth"));
    // The multi-view test of the run's newest checkpoint (the test split is intact).
    const QString scores = dir.path() + "/scores.csv";
    const QString analysis = dir.path() + "/analysis.json";
    auto test =
        runCli(QStringList{"test", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--scores",
                           scores, "--analysis", analysis, "OUTPUT_DIR", run, "X3D.DIM_C5", "32"} +
               dataArgs);
    QCOMPARE(test.exitCode, 0);
    // Its analysis file: the matrix of the same videos, read back by analyze confusion --file.
    auto analyzed = runCli({"analyze", "confusion", "--file", analysis, "--json"});
    QVERIFY2(analyzed.exitCode == 0, qPrintable(analyzed.err));
    const QJsonObject report = QJsonDocument::fromJson(analyzed.out.toUtf8()).object();
    const auto err = QRegularExpression("top1_err +([0-9.]+) %").match(test.out);
    QVERIFY2(err.hasMatch(), qPrintable(test.out));
    QVERIFY2(std::abs(100.0 * report["top1_acc"].toDouble() -
                      (100.0 - err.captured(1).toDouble())) < 0.01,
             qPrintable(analyzed.out));
    QVERIFY2(test.out.contains("analysis     " + analysis), qPrintable(test.out));
    const auto both = runCli({"analyze", "confusion", "--file", analysis, "--run", run});
    QVERIFY2(both.exitCode != 0 && both.err.contains("excludes"), qPrintable(both.err));
    // TEST.NUM_TEMPORAL_CLIPS: one test per entry and one scores file each, named after its clips;
    // the 2-clip test is the test above (TEST.NUM_ENSEMBLE_VIEWS 2).
    auto multi = runCli(QStringList{"test", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                                    "--scores", dir.path() + "/multi.csv", "OUTPUT_DIR", run,
                                    "X3D.DIM_C5", "32", "TEST.NUM_TEMPORAL_CLIPS", "[1, 2]"} +
                        dataArgs);
    QCOMPARE(multi.exitCode, 0);
    QVERIFY2(multi.out.count("checkpoint   ") == 2 && multi.out.contains("x 1 views (1 temporal") &&
                 multi.out.contains("x 2 views (2 temporal"),
             qPrintable(multi.out));
    auto readAll = [](const QString& path) {
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    QVERIFY(!readAll(dir.path() + "/multi_1clips.csv").isEmpty());
    QCOMPARE(readAll(dir.path() + "/multi_2clips.csv"), readAll(scores));
    QVERIFY(!QFile::exists(dir.path() + "/multi.csv"));
    // predict: the same protocol on videos named on the command line, with the class names; its
    // top class and probability are the test's for the same video; a missing video says why.
    QFile scoreFile(scores);
    QVERIFY(scoreFile.open(QIODevice::ReadOnly));
    const auto rows = QString::fromUtf8(scoreFile.readAll()).split('\n', Qt::SkipEmptyParts);
    QVERIFY(rows.size() == 17);
    const auto row = rows[1].split(',');  // video,label,views,top1,score_0...
    double best = 0;
    for (int k = 4; k < row.size(); ++k) best = std::max(best, row[k].toDouble());
    auto predict =
        runCli(QStringList{"predict", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--checkpoint", run + "/checkpoints/checkpoint_epoch_00001.pyth",
                           "--labels", data + "/classes.txt", row[0], dir.path() + "/missing.mp4",
                           "X3D.DIM_C5", "32"} +
               dataArgs);
    QCOMPARE(predict.exitCode, 1);  // one video could not be predicted
    QStringList classNames;
    QFile classes(data + "/classes.txt");
    QVERIFY(classes.open(QIODevice::ReadOnly));
    classNames = QString::fromUtf8(classes.readAll()).split('\n', Qt::SkipEmptyParts);
    const QString expected = QString("  1. %1 %  class %2  %3")
                                 .arg(100.0 * best / 2, 5, 'f', 1)
                                 .arg(row[3])
                                 .arg(classNames[row[3].toInt()]);
    QVERIFY2(predict.out.contains(expected), qPrintable(expected + "\n" + predict.out));
    QVERIFY2(predict.out.contains("  2 views, ") && predict.out.contains("  5. "),
             qPrintable(predict.out));
    QVERIFY2(predict.out.contains("missing.mp4\n  cannot predict: ") &&
                 predict.out.contains("file does not exist"),
             qPrintable(predict.out));
    // Without --labels, DEMO.LABEL_FILE_PATH of the demo config (demo-data/classes.txt, not in
    // this folder): the prediction still comes, classes by number.
    auto unnamed = runCli(
        QStringList{"predict", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--checkpoint",
                    run + "/checkpoints/checkpoint_epoch_00001.pyth", row[0], "X3D.DIM_C5", "32"} +
            dataArgs,
        amp::testing::CliOptions{240000, dir.path(), {}});
    QCOMPARE(unnamed.exitCode, 0);
    QVERIFY2(unnamed.err.contains("DEMO.LABEL_FILE_PATH: demo-data/classes.txt does not exist; "
                                  "classes are shown by number"),
             qPrintable(unnamed.err));
    QVERIFY2(unnamed.out.contains(
                 QString("  1. %1 %  class %2\n").arg(100.0 * best / 2, 5, 'f', 1).arg(row[3])),
             qPrintable(unnamed.out));
    // --json (the studio's Predict tab): the same numbers as data.
    auto predictJson =
        runCli(QStringList{"predict", "--json", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--checkpoint", run + "/checkpoints/checkpoint_epoch_00001.pyth",
                           "--labels", data + "/classes.txt", row[0], dir.path() + "/missing.mp4",
                           "X3D.DIM_C5", "32"} +
               dataArgs);
    QCOMPARE(predictJson.exitCode, 1);
    const QJsonArray predicted =
        QJsonDocument::fromJson(predictJson.out.toUtf8()).object()["videos"].toArray();
    QCOMPARE(predicted.size(), 2);
    const QJsonObject top1 = predicted[0].toObject()["top"].toArray()[0].toObject();
    QCOMPARE(top1["class"].toInt(), row[3].toInt());
    QCOMPARE(top1["name"].toString(), classNames[row[3].toInt()]);
    QVERIFY(std::abs(top1["probability"].toDouble() - best / 2) < 1e-4);  // the CSV rounds
    QCOMPARE(predicted[0].toObject()["views"].toInt(), 2);
    QVERIFY(predicted[1].toObject()["error"].toString().contains("file does not exist"));
    // demo (PySlowFast's demo_net.py): windows of 16 frames slide over the 24-frame video 8 apart.
    // With the test's single view made the demo's first window (the whole 84 px frame, frames 0,
    // 2 .. 15 at the video's own 15 fps), that window's classes are predict's for the video.
    const QStringList sameView{"DATA.TEST_CROP_SIZE",
                               "84",
                               "DATA.TRAIN_JITTER_SCALES",
                               "[84, 84]",
                               "DATA.TARGET_FPS",
                               "15",
                               "TEST.NUM_ENSEMBLE_VIEWS",
                               "1",
                               "TEST.NUM_SPATIAL_CROPS",
                               "1",
                               "X3D.DIM_C5",
                               "32"};
    const QString checkpoint = run + "/checkpoints/checkpoint_epoch_00001.pyth";
    auto single =
        runCli(QStringList{"predict", "--json", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--checkpoint", checkpoint, row[0]} +
               sameView + dataArgs);
    QCOMPARE(single.exitCode, 0);
    const QJsonObject singleTop = QJsonDocument::fromJson(single.out.toUtf8())
                                      .object()["videos"]
                                      .toArray()[0]
                                      .toObject()["top"]
                                      .toArray()[0]
                                      .toObject();
    const QString drawn = dir.path() + "/demo.mp4";
    auto demo = runCli(QStringList{"demo", "--json", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                                   "--checkpoint", checkpoint, "--input", row[0], "--output", drawn,
                                   "--labels", data + "/classes.txt", "DEMO.BUFFER_SIZE", "8"} +
                       sameView + dataArgs);
    QCOMPARE(demo.exitCode, 0);
    const QJsonObject shown = QJsonDocument::fromJson(demo.out.toUtf8()).object();
    QCOMPARE(shown["frames"].toInt(), 24);
    QCOMPARE(shown["output"].toString(), drawn);
    const QJsonArray windows = shown["windows"].toArray();
    QCOMPARE(windows.size(), 2);
    QCOMPARE(windows[1].toObject()["first"].toInt(), 8);
    QCOMPARE(windows[1].toObject()["draw"].toArray()[0].toInt(), 16);  // the frames it adds
    QCOMPARE(windows[1].toObject()["draw"].toArray()[1].toInt(), 23);
    const QJsonObject demoTop = windows[0].toObject()["top"].toArray()[0].toObject();
    QCOMPARE(demoTop["class"].toInt(), singleTop["class"].toInt());
    QCOMPARE(demoTop["name"].toString(), classNames[singleTop["class"].toInt()]);
    QVERIFY2(
        std::abs(demoTop["probability"].toDouble() - singleTop["probability"].toDouble()) < 1e-5,
        qPrintable(demo.out + single.out));
    QVERIFY(QFileInfo(drawn).size() > 1000);
    // What the demo cannot do says so, naming the key.
    auto overlap = runCli(QStringList{"demo", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                                      "--checkpoint", checkpoint, "--input", row[0],
                                      "DEMO.BUFFER_SIZE", "9", "X3D.DIM_C5", "32"} +
                          dataArgs);
    QCOMPARE(overlap.exitCode, 1);
    QVERIFY2(overlap.err.contains("DEMO.BUFFER_SIZE: 9 frames"), qPrintable(overlap.err));
    auto webcam = runCli(QStringList{"demo", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                                     "--checkpoint", checkpoint, "DEMO.WEBCAM", "0"} +
                         dataArgs);
    QCOMPARE(webcam.exitCode, 1);
    QVERIFY2(webcam.err.contains("DEMO.WEBCAM: 0: live camera input is not supported"),
             qPrintable(webcam.err));
    QVERIFY2(test.out.contains("checkpoint_epoch_00001.pyth") &&
                 test.out.contains("videos       16 x 2 views") && test.out.contains("top1_err") &&
                 test.out.contains("per class top1_err: 0:"),
             qPrintable(test.out));
    auto noCheckpoint = runCli(QStringList{"test", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                                           "OUTPUT_DIR", dir.path() + "/none"} +
                               dataArgs);
    QCOMPARE(noCheckpoint.exitCode, 1);
    QVERIFY2(noCheckpoint.err.contains("TEST.CHECKPOINT_FILE_PATH: no checkpoint to test"),
             qPrintable(noCheckpoint.err));
  }
};

QTEST_GUILESS_MAIN(TestCliData)
#include "tst_clidata.moc"
