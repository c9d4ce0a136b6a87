// The data tools on AVA through ampstudio-cli, on the AVA demo data: `data check` reports the
// lists as PySlowFast logs them and names a missing or cut frame with its frame-list line and a
// bad box row with its file and line; `train --dry-run` names a missing label map at its key;
// `data preview` lists each keyframe's boxes with their actions' names.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "CliRun.h"
#include "support/AvaDemo.h"

using namespace amp::testing;

class TestCliAva : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString ava_;

  static QStringList avaArgs(const QString& data) {
    QStringList out;
    for (const auto& v : amp::testsupport::avaDemoOverrides(data.toStdString()))
      out << QString::fromStdString(v);
    return out;
  }
  // A copy of the demo data to damage.
  QString copy(const QString& name) {
    const QString to = dir_.path() + "/" + name;
    if (!QDir().mkpath(to) || QProcess::execute("cp", {"-r", ava_ + "/.", to}) != 0) return "";
    return to;
  }
  static CliResult check(const QString& data) {
    return runCli(QStringList{"data", "check", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")} +
                  avaArgs(data));
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    ava_ = dir_.path() + "/ava";
    std::string error;
    QVERIFY2(amp::testsupport::makeAvaDemo(ava_.toStdString(), 1, &error), error.c_str());
  }

  void dataCheckReportsTheLists() {
    const auto r = check(ava_);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    // 2 training videos of 150 frames, 2 validation videos; 3 keyframes each.
    for (const QString& line :
         {QString("train: frame lists %1/frame_lists/train.csv: 2 videos, 300 frames").arg(ava_),
          QString("train: box lists %1/annotations/ava_train_v2.2.csv: 10 annotations, 10 unique "
                  "boxes; 0 rows under AVA.DETECTION_SCORE_THRESH 0.9 dropped, 0 rows outside "
                  "seconds 902-1798 dropped")
              .arg(ava_),
          QString("train: 6 keyframes, 10 boxes used"),
          QString("test: frame lists %1/frame_lists/val.csv: 2 videos, 300 frames").arg(ava_),
          QString("test: 6 keyframes"),
          // 8 frames 2 apart around each keyframe: 24 distinct frames a video.
          QString("train: 2 videos ok, 0 failed; 48 frames read by the keyframes' clips, 48 "
                  "decoded"),
          QString("total: 4 videos ok, 0 failed; 96 frames decoded; size 84x84 to 84x84")})
      QVERIFY2(r.out.contains(line), qPrintable(line + "\n" + r.out));
    // The validation split's scored boxes: the demo's false box a keyframe scores under 0.9.
    QVERIFY2(r.out.contains("ava_val_predicted_boxes.csv: 0 annotations, 9 unique boxes; 6 rows "
                            "under AVA.DETECTION_SCORE_THRESH 0.9 dropped"),
             qPrintable(r.out));
  }

  void dataCheckNamesBadFrames() {
    const QString bad = copy("bad-frames");
    QVERIFY(!bad.isEmpty());
    // Second 902's centre frame (60, line 62 of the list: a header, then A00000's 150 frames)
    // gone; second 903's of the next video (frame 90: line 152 + 90) cut in its header.
    QVERIFY(QFile::remove(bad + "/frames/A00000/A00000_000061.jpg"));
    QFile cut(bad + "/frames/A00001/A00001_000091.jpg");
    QVERIFY(cut.open(QIODevice::ReadWrite));
    QVERIFY(cut.resize(40));
    cut.close();
    const auto r = check(bad);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(bad + "/frame_lists/train.csv:62: A00000: cannot read '" + bad +
                            "/frames/A00000/A00000_000061.jpg'"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(bad + "/frame_lists/train.csv:242: A00001: " + bad +
                            "/frames/A00001/A00001_000091.jpg"),
             qPrintable(r.out));
    QVERIFY2(!r.out.contains("decoded (an even spread"), qPrintable(r.out));  // none sampled
    QVERIFY2(r.out.contains("train: 0 videos ok, 2 failed"), qPrintable(r.out));
    QVERIFY2(r.out.contains("total: 2 videos ok, 2 failed"), qPrintable(r.out));
  }

  void dataCheckSamplesLargeVideos() {
    const auto r =
        runCli(QStringList{"data", "check", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--split", "train", "--max-frames", "10"} +
               avaArgs(ava_));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("A00000: 24 frames read by its clips, 10 of them decoded (an even "
                            "spread; --max-frames 0 decodes all), every one looked up"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("total: 2 videos ok, 0 failed; 20 frames decoded"), qPrintable(r.out));
  }

  void dataCheckNamesABadBoxRow() {
    const QString bad = copy("bad-boxes");
    QVERIFY(!bad.isEmpty());
    QFile boxes(bad + "/annotations/ava_train_v2.2.csv");
    QVERIFY(boxes.open(QIODevice::ReadOnly));
    const int lines = QString::fromUtf8(boxes.readAll()).count('\n');
    boxes.close();
    QVERIFY(boxes.open(QIODevice::Append));
    boxes.write("A00000,0902,0.1,zero,0.5,0.5,3,0\n");
    boxes.close();
    const auto r = check(bad);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains(QString("train: %1/annotations/ava_train_v2.2.csv:%2: box coordinate "
                                    "'zero' (column 4) is not a finite number")
                                .arg(bad)
                                .arg(lines + 1)),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("test: 2 videos ok, 0 failed"), qPrintable(r.out));  // still checked
    QVERIFY2(r.out.contains("total: 2 videos ok, 1 failed"), qPrintable(r.out));
  }

  void dryRunNamesAMissingLabelMap() {
    const QString bad = copy("no-label-map");
    QVERIFY(!bad.isEmpty());
    const QString map = bad + "/annotations/ava_action_list_v2.2_for_activitynet_2019.pbtxt";
    QVERIFY(QFile::remove(map));
    const auto r =
        runCli(QStringList{"train", "--dry-run", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml")} +
               avaArgs(bad));
    QVERIFY(r.exitCode != 0);
    const QString all = r.out + r.err;
    QVERIFY2(all.contains("AVA.LABEL_MAP_FILE: '" + map + "' does not exist"), qPrintable(all));
    // The rest of the AVA data is fine: no other AVA key is blamed, and no DATA.PATH_TO_DATA_DIR
    // list is sought.
    for (const char* key :
         {"AVA.FRAME_DIR: ", "AVA.FRAME_LIST_DIR: ", "AVA.TRAIN_LISTS: ", "AVA.ANNOTATION_DIR: ",
          "AVA.GROUNDTRUTH_FILE: ", "AVA.EXCLUSION_FILE: ", "DATA.PATH_TO_DATA_DIR: "})
      QVERIFY2(!all.contains(key), qPrintable(key + all));
  }

  void previewListsBoxesWithTheirActions() {
    QTemporaryDir out;
    const auto r =
        runCli(QStringList{"data", "preview", "--cfg", configFile("demo/DEMO_X3D_TINY.yaml"),
                           "--out", out.path(), "--count", "3", "--json"} +
               avaArgs(ava_));
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const auto clips = QJsonDocument::fromJson(r.out.toUtf8().trimmed()).array();
    QCOMPARE(clips.size(), 3);
    for (const auto& v : clips) {
      const auto c = v.toObject();
      QVERIFY(QFile::exists(c["png"].toString()));
      QVERIFY(c["second"].toInt() >= 902 && c["second"].toInt() <= 904);
      const int h = c["clip_size"].toArray()[0].toInt(), w = c["clip_size"].toArray()[1].toInt();
      QVERIFY(!c["boxes"].toArray().isEmpty());
      for (const auto& b : c["boxes"].toArray()) {
        const auto box = b.toObject()["clip"].toArray();
        QVERIFY(box[0].toDouble() >= 0 && box[2].toDouble() <= w - 1);
        QVERIFY(box[1].toDouble() >= 0 && box[3].toDouble() <= h - 1);
        const auto ids = b.toObject()["labels"].toArray();
        const auto names = b.toObject()["label_names"].toArray();
        QCOMPARE(ids.size(), names.size());
        // The demo's classes are its motions; its ground truth gives every box one.
        for (int i = 0; i < ids.size(); ++i)
          QVERIFY2(ids[i].toInt() >= 1 && !names[i].toString().isEmpty(), qPrintable(r.out));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestCliAva)
#include "tst_cliava.moc"
