// AVA's files as PySlowFast's ava_eval_helper reads and writes them (AvaLabelMap, AvaCsv): the
// layouts AVA ships, read_csv's grouping and order of checks, and files from strangers (bad
// numbers, wrong column counts, huge lines, missing files) refused with file, line and reason.
#include <QtTest>

#include <QDir>
#include <QTemporaryDir>

#include <cmath>

#include "metrics/AvaCsv.h"
#include "metrics/AvaLabelMap.h"
#include "support/TestFiles.h"

using namespace amp::metrics;
using amp::testsupport::writeFile;

class TestAvaFiles : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  std::string errorOfLabelMap(const std::string& text) {
    std::string error;
    if (parseAvaLabelMap(text, "lm.pbtxt", &error)) return "(read)";
    return error;
  }
  std::string errorOfGroundTruth(const std::string& text, const std::set<int>& classes = {}) {
    std::string error;
    if (readAvaGroundTruth(writeFile(dir_, "bad.csv", text), classes, &error)) return "(read)";
    return error;
  }

 private slots:
  // AVA v2.2's layout (label { ... label_id ... label_type }) and ActivityNet 2018's (item),
  // also on one line, with display_name and comments.
  void labelMapLayouts() {
    std::string error;
    const auto ava = parseAvaLabelMap(
        "label {\n  name: \"bend/bow (at the waist)\"\n  label_id: 1\n  label_type: "
        "PERSON_MOVEMENT\n}\nlabel {\n  name: \"crouch/kneel\"\n  label_id: 3\n  label_type: "
        "PERSON_MOVEMENT\n}\n",
        "ava.pbtxt", &error);
    QVERIFY2(ava, error.c_str());
    QCOMPARE(ava->size(), std::size_t(2));
    QCOMPARE((*ava)[1].id, 3);
    QCOMPARE((*ava)[0].name, std::string("bend/bow (at the waist)"));

    const auto items = parseAvaLabelMap(
        "# ActivityNet\nitem { name: \"dance\" id: 4 }\nitem {\n  display_name: \"fall down\"\n"
        "  id: 5  # no name: the display name\n}\nitem: < name: 'get up' id: 6 keypoints { id: 9 "
        "} >\n",
        "items.pbtxt", &error);
    QVERIFY2(items, error.c_str());
    QCOMPARE(items->size(), std::size_t(3));
    QCOMPARE((*items)[0].name, std::string("dance"));
    QCOMPARE((*items)[1].name, std::string("fall down"));
    QCOMPARE((*items)[2].id, 6);  // the nested message's id is not the item's
  }

  void labelMapErrors() {
    auto has = [](const std::string& error, const char* what) {
      if (error.find(what) != std::string::npos) return true;
      qWarning("%s", error.c_str());
      return false;
    };
    QVERIFY(has(errorOfLabelMap("item {\n  name: \"a\"\n}\n"),
                "lm.pbtxt:3: the item opened on "
                "line 1 has no 'id'"));
    QVERIFY(has(errorOfLabelMap("item {\n  id: 0\n}\n"), "lm.pbtxt:2: class id 0: ids start at 1"));
    QVERIFY(has(errorOfLabelMap("item { id: 1000000 }"), "larger than 100000"));
    QVERIFY(has(errorOfLabelMap("item { id: 1.5 }"), "'id' must be a whole number"));
    QVERIFY(has(errorOfLabelMap("item { name: \"a\" id: 1 "), "never closes"));
    QVERIFY(has(errorOfLabelMap("item { name: \"a id: 1 }\n"), "does not end on its line"));
    QVERIFY(has(errorOfLabelMap("items { id: 1 }"), "expected 'item {' or 'label {'"));
    QVERIFY(has(errorOfLabelMap("# nothing\n"), "lm.pbtxt: holds no class"));
    QVERIFY(has(errorOfLabelMap("item { id: 1 } \x01"), "unexpected character"));
    // 100,000 unclosed braces: counted, not recursed into.
    QVERIFY(has(errorOfLabelMap("item { x " + std::string(100000, '{')), "never closed"));
    std::string error;
    QVERIFY(!readAvaLabelMap(dir_.path().toStdString() + "/none.pbtxt", &error));
    QVERIFY2(error.find("none.pbtxt") != std::string::npos, error.c_str());
    QVERIFY(!readAvaLabelMap("/dev/zero", &error));  // never ends: refused, not read
  }

  // read_csv: keys "video,%04d" whatever the second's spelling, rows of one key grouped under its
  // first appearance, the 8th groundtruth column (person id) never read, classes filtered.
  void groundTruthGroupsByKeyframe() {
    std::string error;
    const auto gt = readAvaGroundTruth(writeFile(dir_, "gt.csv",
                                                 "-5KQ66BBWC4,0902,0.077,0.151,0.283,0.811,80,1\n"
                                                 "\"a,b\",7,0.1,0.2,0.3,0.4,1\r\n"
                                                 "\n"
                                                 "-5KQ66BBWC4, 902 ,1e-1,.2,0.3,0.4,3,anyone\n"
                                                 "-5KQ66BBWC4,0903,0.1,0.2,0.3,0.4,2,1\n"),
                                       {1, 3, 80}, &error);
    QVERIFY2(gt, error.c_str());
    QCOMPARE(gt->size(), std::size_t(2));  // 0903's only row is class 2: filtered out
    QCOMPARE((*gt)[0].key, std::string("-5KQ66BBWC4,0902"));
    QCOMPARE((*gt)[0].boxes.size(), std::size_t(2));
    QCOMPARE((*gt)[0].boxes[1].x1, 0.1);
    QCOMPARE((*gt)[0].boxes[1].action, 3);
    QCOMPARE((*gt)[0].boxes[1].score, 1.0);
    QCOMPARE((*gt)[1].key, std::string("a,b,0007"));
    QCOMPARE(avaImageKey("v", -1), std::string("v,-001"));
    QCOMPARE(avaImageKey("v", 12345), std::string("v,12345"));
  }

  // Each problem named with file, line and what is wrong, in read_csv's order of checks: the
  // numbers of a row are read before its class is filtered.
  void malformedLinesAreNamed() {
    auto has = [](const std::string& error, const char* what) {
      if (error.find(what) != std::string::npos) return true;
      qWarning("%s", error.c_str());
      return false;
    };
    const std::string ok = "v,1,0.1,0.2,0.3,0.4,1\n";
    QVERIFY(has(errorOfGroundTruth(ok + "v,1,0.1,0.2,0.3,1\n"),
                "bad.csv:2: expected 7 or 8 columns (video,second,x1,y1,x2,y2,action[,person_id]), "
                "found 6"));
    QVERIFY(has(errorOfGroundTruth(ok + "v,1,0.1,0.2,0.3,0.4,1,0,9\n"), "found 9"));
    QVERIFY(has(errorOfGroundTruth("v,1.5,0.1,0.2,0.3,0.4,1\n"),
                "bad.csv:1: second '1.5' is not a whole number"));
    QVERIFY(has(errorOfGroundTruth("v,1,0.1,zero,0.3,0.4,7\n", {1}), "y1 'zero' is not a number"));
    QVERIFY(has(errorOfGroundTruth("v,1,0.1,0.2,0x1,0.4,1\n"), "x2 '0x1' is not a number"));
    QVERIFY(has(errorOfGroundTruth("v,1,0.1,0.2,0.3,0.4,one\n"), "action 'one' is not"));
    QVERIFY(has(errorOfGroundTruth("\"v,1,0.1,0.2,0.3,0.4,1\n"), "quoted field does not end"));
    QVERIFY(has(errorOfGroundTruth(ok + std::string(100000, 'x') + "\n" + ok),
                "bad.csv:2: longer than 4096 bytes"));
    QVERIFY(has(errorOfGroundTruth(std::string(5000, ',')), "bad.csv:1: longer than"));
    std::string crowded;
    for (int i = 0; i <= 20000; ++i) crowded += "v,1,0.1,0.2,0.3,0.4,1\n";
    QVERIFY(has(errorOfGroundTruth(crowded), "bad.csv:20001: keyframe v,0001 has more than 20000"));
    std::string error;
    QVERIFY(!readAvaGroundTruth(dir_.path().toStdString() + "/none.csv", {}, &error));
    QVERIFY2(error.find("none.csv") != std::string::npos, error.c_str());
    QVERIFY(!readAvaGroundTruth(dir_.path().toStdString(), {}, &error));  // a folder
    QVERIFY(!readAvaGroundTruth("", {}, &error));
    // Python's float() and int(): inf, nan, exponents and digit underscores are numbers.
    QCOMPARE(errorOfGroundTruth("v,1_0,inf,-NaN,1e-999,1_0.5,1\n"), std::string("(read)"));
  }

  // A detection needs its score, but read_csv reads it after the class filter: a 7-column row
  // of a class outside the label map is skipped, one of a class inside is an error.
  void detectionsNeedAScore() {
    std::string error;
    const std::string path = writeFile(dir_, "det.csv",
                                       "v,1,0.1,0.2,0.3,0.4,1,0.75\n"
                                       "v,1,0.1,0.2,0.3,0.4,9\n");
    const auto det = readAvaDetections(path, {1}, &error);
    QVERIFY2(det, error.c_str());
    QCOMPARE((*det)[0].boxes.size(), std::size_t(1));
    QCOMPARE((*det)[0].boxes[0].score, 0.75);
    QVERIFY(!readAvaDetections(path, {1, 9}, &error));
    QVERIFY2(error.find("det.csv:2: expected 8 columns") != std::string::npos, error.c_str());
  }

  void exclusions() {
    std::string error;
    const auto keys =
        readAvaExclusions(writeFile(dir_, "ex.csv", "v,0902\nv,903\n\nw,1\n"), &error);
    QVERIFY2(keys, error.c_str());
    QCOMPARE(*keys, (std::set<std::string>{"v,0902", "v,0903", "w,0001"}));
    QVERIFY(!readAvaExclusions(writeFile(dir_, "ex3.csv", "v,1\nv,2,3\n"), &error));
    QVERIFY2(
        error.find("ex3.csv:2: expected 2 columns (video,second), found 3") != std::string::npos,
        error.c_str());
  }

  // write_results' "%s,%.03f,%.03f,%.03f,%.03f,%d,%.04f": x before y, 3 and 4 decimals rounded
  // as Python rounds (0.0625 is exact in binary: half to even gives 0.062), NaN as "nan".
  void writerFormatsAsPySlowFast() {
    AvaImage image{"v,0902", {}};
    AvaBox b;
    b.x1 = 0.0625, b.y1 = 0.2, b.x2 = 1, b.y2 = 0.99951, b.action = 12, b.score = 0.123456;
    image.boxes.push_back(b);
    b.score = NAN;
    image.boxes.push_back(b);
    QCOMPARE(formatAvaCsv({image}), std::string("v,0902,0.062,0.200,1.000,1.000,12,0.1235\n"
                                                "v,0902,0.062,0.200,1.000,1.000,12,nan\n"));

    std::string error;
    const std::string path = dir_.path().toStdString() + "/out/detections_latest.csv";
    QVERIFY(!writeAvaCsv(path, {image}, &error));  // no folder "out"
    QVERIFY2(error.find("detections_latest.csv") != std::string::npos, error.c_str());
    QVERIFY(QDir(dir_.path()).mkdir("out"));
    QVERIFY2(writeAvaCsv(path, {image}, &error), error.c_str());
    const auto back = readAvaDetections(path, {}, &error);
    QVERIFY2(back, error.c_str());
    QCOMPARE((*back)[0].boxes[0].y1, 0.2);
    QCOMPARE((*back)[0].boxes[0].score, 0.1235);
    QVERIFY(std::isnan((*back)[0].boxes[1].score));
  }
};

QTEST_GUILESS_MAIN(TestAvaFiles)
#include "tst_avafiles.moc"
