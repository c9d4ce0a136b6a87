// AVA action detection through ampstudio-cli: the demo template trains on the AVA demo data, its
// validation and test report frame-mAP, the test's detections CSV scores the same mAP through
// `eval ava`, validation shared by two processes gives the one-process mAP, and `predict` with
// the val boxes (the AVA demo with precomputed boxes) scores every box as the test did.
#include <QtTest>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>

#include "CliRun.h"
#include "support/AvaDemo.h"

using amp::testing::configFile;
using amp::testing::runCli;

class TestCliAvaTrain : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString data_ = dir_.path() + "/ava";

  QStringList dataArgs() const {
    return {"AVA.FRAME_DIR",        data_ + "/frames",    "AVA.FRAME_LIST_DIR",
            data_ + "/frame_lists", "AVA.ANNOTATION_DIR", data_ + "/annotations"};
  }
  // The template at its smallest: batches of 4, one loader worker, a log line a step.
  QStringList small() const {
    return QStringList{"TRAIN.BATCH_SIZE",        "4", "TEST.BATCH_SIZE", "4",
                       "DATA_LOADER.NUM_WORKERS", "1", "LOG_PERIOD",      "1"} +
           dataArgs();
  }
  static QList<double> mapsOf(const QString& run, const char* kind) {
    return amp::testing::recordValues(run, kind, "map");
  }

 private slots:
  void initTestCase() {
    std::string error;
    QVERIFY2(amp::testsupport::makeAvaDemo(data_.toStdString(), 2, &error), error.c_str());
  }

  void trainsValidatesAndTestsByFrameMap() {
    const QString run = dir_.path() + "/runs/ava";
    auto train = runCli(QStringList{"train", "--cfg", configFile("demo/DEMO_SLOW_TINY_AVA.yaml"),
                                    "OUTPUT_DIR", run, "SOLVER.MAX_EPOCH", "1"} +
                        small());
    QVERIFY2(train.exitCode == 0, qPrintable(train.out + train.err));
    QVERIFY2(!train.err.contains("warning"), qPrintable(train.err));  // no key left inactive
    const auto val = mapsOf(run, "val"), test = mapsOf(run, "test");
    QCOMPARE(val.size(), 1);
    QCOMPARE(test.size(), 1);
    QVERIFY2(val[0] > 0 && val[0] <= 1, qPrintable(QString::number(val[0])));
    // FULL_TEST_ON_VAL: validation and test score the same keyframes with the same weights.
    QVERIFY2(std::abs(val[0] - test[0]) < 1e-9,
             qPrintable(QString("%1 vs %2").arg(val[0]).arg(test[0])));
    QFile metrics(run + "/metrics.jsonl");
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QVERIFY2(!metrics.readAll().contains("top1_err"), "detection runs log no top-1");
    // Each class's AP beside the mean: one per label-map class, their nanmean the frame-mAP.
    for (const auto& [split, map] : {std::pair{"val", val[0]}, std::pair{"test", test[0]}}) {
      const auto [classes, mean] = amp::testing::perClassMean(run, split);
      QVERIFY2(classes > 0 && std::abs(mean - map) < 1e-9,
               qPrintable(QString("%1: %2 classes, mean %3, map %4")
                              .arg(QString(split))
                              .arg(classes)
                              .arg(mean)
                              .arg(map)));
    }

    // The detections the test wrote score the same mAP when evaluated from the files.
    const QString csv = run + "/detections_latest.csv";
    QVERIFY(QFile::exists(csv));
    const QString ann = data_ + "/annotations/";
    auto eval = runCli({"eval", "ava", "--labelmap",
                        ann + "ava_action_list_v2.2_for_activitynet_2019.pbtxt", "--groundtruth",
                        ann + "ava_val_v2.2.csv", "--detections", csv, "--exclusions",
                        ann + "ava_val_excluded_timestamps_v2.2.csv", "--json"});
    QVERIFY2(eval.exitCode == 0, qPrintable(eval.out + eval.err));
    const double fromFiles =
        QJsonDocument::fromJson(eval.out.toUtf8()).object()["map"].toDouble(-1);
    // The CSV keeps 4 decimals of each score (write_results): ties may move the AP a little.
    QVERIFY2(std::abs(fromFiles - test[0]) < 0.02,
             qPrintable(QString("files %1, test %2").arg(fromFiles).arg(test[0])));

    validationSharedByRanksGivesTheSameMap(run);
    predictScoresBoxesAsTheTest(run, csv);
  }

  // The template learns: on a two-motion slice of the AVA demo (each person moving right or
  // moving left; 48 training videos = 144 keyframes), 4 epochs must lift the val frame-mAP past
  // 0.85, where scores that know nothing get about 0.5 (each box is one of the two, about evenly).
  // Measured: data seed 4, 0.55 0.91 0.96 0.97 (40 s on two cores); seed 3 over 6 epochs, 0.84
  // 0.97 0.98 0.99 0.99 0.99.
  void theTemplateLearnsTwoMotions() {
    const QString data = dir_.path() + "/ava2", run = dir_.path() + "/runs/learn";
    amp::data::DemoDataOptions o;
    o.out_dir = data.toStdString();
    o.format = amp::data::DemoFormat::Ava;
    o.clips_per_class = 24;
    o.classes = 2;
    o.seed = 4;
    amp::data::DemoDataSummary summary;
    std::string error;
    QVERIFY2(amp::data::generateDemoData(o, summary, &error), error.c_str());
    auto train = runCli(QStringList{"train", "--cfg", configFile("demo/DEMO_SLOW_TINY_AVA.yaml"),
                                    "OUTPUT_DIR", run, "SOLVER.MAX_EPOCH", "4", "MODEL.NUM_CLASSES",
                                    "2", "TEST.ENABLE", "False", "AVA.FRAME_DIR", data + "/frames",
                                    "AVA.FRAME_LIST_DIR", data + "/frame_lists",
                                    "AVA.ANNOTATION_DIR", data + "/annotations"});
    QVERIFY2(train.exitCode == 0, qPrintable(train.out + train.err));
    const auto maps = mapsOf(run, "val");
    QCOMPARE(maps.size(), 4);
    QString curve;
    for (const double m : maps) curve += QString::number(m, 'f', 3) + " ";
    qInfo("val frame-mAP by epoch: %s", qPrintable(curve));
    QVERIFY2(maps.back() >= 0.85, qPrintable(curve));
  }

 private:
  // `predict` on every val video folder with the val predicted boxes (PySlowFast's AVA demo with
  // precomputed boxes) scores each box exactly as the test did: its detections CSV holds the
  // test's rows. With --output, the first video is written again with the boxes drawn.
  void predictScoresBoxesAsTheTest(const QString& run, const QString& testCsv) {
    const QString ann = data_ + "/annotations/";
    QStringList videos;
    // The videos the test scored: those with a predicted box over AVA.DETECTION_SCORE_THRESH.
    for (const auto& row :
         amp::testsupport::csvCells((ann + "ava_val_predicted_boxes.csv").toStdString()))
      if (row.size() == 8 && std::stod(row[7]) >= 0.9 &&
          !videos.contains(data_ + "/frames/" + QString::fromStdString(row[0])))
        videos << data_ + "/frames/" + QString::fromStdString(row[0]);
    QVERIFY(videos.size() >= 2);
    const QString det = dir_.path() + "/predicted.csv";
    auto p = runCli(QStringList{"predict", "--cfg", configFile("demo/DEMO_SLOW_TINY_AVA.yaml"),
                                "--boxes", ann + "ava_val_predicted_boxes.csv", "--detections", det,
                                "--json"} +
                    videos + dataArgs() + QStringList{"OUTPUT_DIR", run});
    QVERIFY2(p.exitCode == 0, qPrintable(p.out + p.err));
    const auto j = QJsonDocument::fromJson(p.out.toUtf8()).object();
    QCOMPARE(j["videos"].toArray().size(), videos.size());
    const auto first = j["videos"].toArray()[0].toObject();
    QVERIFY(!first["keyframes"].toArray().isEmpty());
    const auto box = first["keyframes"].toArray()[0].toObject()["boxes"].toArray()[0].toObject();
    QCOMPARE(box["top"].toArray().size(), 5);
    QVERIFY(!box["top"].toArray()[0].toObject()["name"].toString().isEmpty());  // the label map
    auto rows = [](const QString& path) {
      QStringList r;
      for (const auto& cells : amp::testsupport::csvCells(path.toStdString()))
        r << QString::fromStdString(cells[0] + "," + cells[1] + "," + cells[2] + "," + cells[3] +
                                    "," + cells[4] + "," + cells[5] + "," + cells[6] + "," +
                                    cells[7]);
      r.sort();
      return r;
    };
    const QStringList predicted = rows(det), tested = rows(testCsv);
    QVERIFY(!predicted.isEmpty());
    QCOMPARE(predicted, tested);

    // The video with the boxes drawn: every input frame is in it.
    const QString mp4 = dir_.path() + "/predicted.mp4";
    auto v = runCli(QStringList{"predict", "--cfg", configFile("demo/DEMO_SLOW_TINY_AVA.yaml"),
                                "--boxes", ann + "ava_val_predicted_boxes.csv", "--gt-boxes",
                                ann + "ava_val_v2.2.csv", "--output", mp4, videos[0]} +
                    dataArgs() + QStringList{"OUTPUT_DIR", run});
    QVERIFY2(v.exitCode == 0, qPrintable(v.out + v.err));
    QVERIFY2(v.out.contains("wrote " + mp4), qPrintable(v.out));
    QVERIFY(QFileInfo(mp4).size() > 1000);
    // A classification config refuses the detection options, naming them.
    auto refused = runCli({"predict", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"), "--boxes",
                           ann + "ava_val_predicted_boxes.csv", videos[0]});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("--boxes"), qPrintable(refused.err));
  }

  // Both runs start from the trained weights and change nothing (learning rate 0, batch norms
  // frozen): one process and two score the same boxes of the same model.
  void validationSharedByRanksGivesTheSameMap(const QString& trained) {
    const QStringList still =
        amp::testing::stillTrainingOverrides(trained + "/checkpoints/checkpoint_epoch_00001.pyth");
    QList<double> maps[2];
    for (const int processes : {1, 2}) {
      const QString out = dir_.path() + "/runs/still-" + QString::number(processes);
      auto r = runCli(QStringList{"train", "--cfg", configFile("demo/DEMO_SLOW_TINY_AVA.yaml"),
                                  "--init-method", "file://" + out + "-store", "OUTPUT_DIR", out,
                                  "DIST.CPU_PROCESSES", QString::number(processes)} +
                      small() + still);
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
      maps[processes - 1] = mapsOf(out, "val");
    }
    qInfo("val frame-mAP, one process %.17g, two %.17g", maps[0].value(0), maps[1].value(0));
    QCOMPARE(maps[0].size(), 1);
    QCOMPARE(maps[1].size(), 1);
    QVERIFY2(
        maps[0][0] > 0 && std::abs(maps[0][0] - maps[1][0]) < 1e-9,
        qPrintable(QString("%1 vs %2").arg(maps[0][0], 0, 'g', 17).arg(maps[1][0], 0, 'g', 17)));
  }
};

QTEST_GUILESS_MAIN(TestCliAvaTrain)
#include "tst_cliavatrain.moc"
