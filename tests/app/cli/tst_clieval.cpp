// ampstudio-cli eval ava on small files written here: the table, the JSON, and exit 1 naming the
// file and line of a bad input.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "CliRun.h"
#include "support/TestFiles.h"

using amp::testing::runCli;

class TestCliEval : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString labelMap_, groundTruth_, detections_;

  QString write(const char* name, const std::string& text) {
    return QString::fromStdString(amp::testsupport::writeFile(dir_, name, text));
  }

 private slots:
  // Class 1: one box found (AP 1). Class 3: two boxes, ranked TP (0.9), FP (0.8), TP (0.7):
  // AP = 1/2 * 1 + 1/2 * 2/3 = 5/6. Class 4: no groundtruth, left out. mAP = (1 + 5/6) / 2.
  void initTestCase() {
    labelMap_ = write("lm.pbtxt",
                      "label {\n  name: \"stand\"\n  label_id: 1\n}\n"
                      "label {\n  name: \"walk\"\n  label_id: 3\n}\n"
                      "label {\n  name: \"swim\"\n  label_id: 4\n}\n");
    groundTruth_ = write("gt.csv",
                         "vid,0902,0.1,0.1,0.4,0.9,1,0\n"
                         "vid,0902,0.1,0.1,0.4,0.9,3,0\n"
                         "vid,0903,0.5,0.1,0.9,0.9,3,1\n");
    detections_ = write("det.csv",
                        "vid,0902,0.1,0.1,0.4,0.9,1,0.6\n"
                        "vid,0902,0.1,0.1,0.4,0.9,3,0.9\n"
                        "vid,0902,0.5,0.1,0.9,0.9,3,0.8\n"
                        "vid,0903,0.5,0.1,0.9,0.9,3,0.7\n"
                        "vid,0903,0.5,0.1,0.9,0.9,4,0.7\n");
  }

  void table() {
    auto r = runCli({"eval", "ava", "--labelmap", labelMap_, "--groundtruth", groundTruth_,
                     "--detections", detections_});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("PascalBoxes_Precision/mAP@0.5IOU: 0.916667 (mean over the 2 of 3"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression(R"(\n\s+3\s+0\.8333\s+2\s+3\s+walk\n)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression(R"(\n\s+4\s+-\s+0\s+1\s+swim\n)")),
             qPrintable(r.out));
  }

  void json() {
    const QString exclusions = write("ex.csv", "vid,903\n");
    auto r = runCli({"eval", "ava", "--labelmap", labelMap_, "--groundtruth", groundTruth_,
                     "--detections", detections_, "--exclusions", exclusions, "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["metric"].toString(), QString("PascalBoxes_Precision/mAP@0.5IOU"));
    // Without vid,0903, class 3 has one box: TP (0.9), FP (0.8): AP 1; mAP 1.
    QCOMPARE(o["map"].toDouble(), 1.0);
    QCOMPARE(o["excluded_groundtruth_images"].toInt(), 1);
    const QJsonArray classes = o["classes"].toArray();
    QCOMPARE(classes.size(), 3);
    QCOMPARE(classes[1].toObject()["name"].toString(), QString("walk"));
    QCOMPARE(classes[1].toObject()["groundtruth_boxes"].toInt(), 1);
    QVERIFY(classes[2].toObject()["ap"].isNull());  // NaN: no groundtruth
  }

  void badInputExitsOneNamingTheLine() {
    const QString bad = write("bad.csv", "vid,0902,0.1,0.1,0.4,0.9,1,0.6\nvid,0902,0.1,0.1\n");
    auto r = runCli({"eval", "ava", "--labelmap", labelMap_, "--groundtruth", groundTruth_,
                     "--detections", bad});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(!r.crashed);
    QVERIFY2(r.err.contains("bad.csv:2: expected 8 columns"), qPrintable(r.err));

    auto missing = runCli({"eval", "ava", "--labelmap", dir_.path() + "/none.pbtxt",
                           "--groundtruth", groundTruth_, "--detections", detections_});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("none.pbtxt"), qPrintable(missing.err));

    auto noDetections =
        runCli({"eval", "ava", "--labelmap", labelMap_, "--groundtruth", groundTruth_});
    QVERIFY(noDetections.exitCode != 0);
    QVERIFY(noDetections.err.contains("--detections"));
  }
};

QTEST_GUILESS_MAIN(TestCliEval)
#include "tst_clieval.moc"
