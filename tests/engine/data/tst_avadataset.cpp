#include <QtTest>

#include <QTemporaryDir>

#include <string>
#include <vector>

#include "config/Config.h"
#include "data/AvaBoxes.h"
#include "data/AvaDataset.h"
#include "support/TestFiles.h"

using namespace amp::data;
using amp::testsupport::writeFile;

namespace {

const std::string kHeader = "original_vido_id video_id frame_id path labels\n";

// Two videos, vidB listed first: keyframes index videos in frame-list order.
std::string frameList() {
  return kHeader +
         "vidB 1 0 vidB/vidB_000001.jpg \"\"\n"
         "vidA 0 0 vidA/vidA_000001.jpg \"\"\n"
         "vidA 0 1 vidA/vidA_000002.jpg \"\"\n"
         "vidB 1 1 vidB/vidB_000002.jpg \"\"\n";
}

// Ground truth: person 1 of vidA at 902 does actions 12 and 80 (two rows, one box), person 2
// action 1; a row at second 900 is outside 902 .. 1798.
const std::string kGroundTruth =
    "vidA,0902,0.1,0.2,0.5,0.9,12,0\n"
    "vidA,0902,0.6,0.1,0.9,0.8,1,1\n"
    "vidA,0902,0.1,0.2,0.5,0.9,80,0\n"
    "vidA,0900,0.1,0.1,0.2,0.2,5,0\n"
    "vidB,1798,0.0,0.0,1.0,1.0,3,0\n"
    "vidA,0905,0.2,0.2,0.4,0.4,7,0\n";

// Predicted boxes (threshold 0.8): the GT person again with no action (-1 joins its labels),
// one under the threshold, one just over it, one at second 1799.
const std::string kPredicted =
    "vidA,0902,0.1,0.2,0.5,0.9,,0.95\n"
    "vidA,0903,0.3,0.3,0.4,0.4,,0.5\n"
    "vidA,0903,0.3,0.3,0.4,0.4,,0.85\n"
    "vidB,1799,0.1,0.1,0.2,0.2,,0.99\n";

}  // namespace

class TestAvaDataset : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  AvaSettings settings() {
    AvaSettings s;
    s.frame_list_dir = dir_.path().toStdString() + "/lists";
    s.annotation_dir = dir_.path().toStdString() + "/ann";
    s.frame_dir = "/frames";
    s.train_lists = {"train.csv"};
    s.test_lists = {"val.csv"};
    s.train_gt_box_lists = {"gt.csv"};
    s.train_predict_box_lists = {"pred.csv"};
    s.test_predict_box_lists = {"val_pred.csv"};
    s.detection_score_thresh = 0.8;
    s.num_classes = 80;
    return s;
  }

  // The error of reading `text` as one box file ("" when it reads).
  std::string boxError(const std::string& text, bool groundTruth = true, int numClasses = 80) {
    const std::string path = writeFile(dir_, "hostile.csv", text);
    AvaBoxTable table;
    std::string error;
    if (readAvaBoxes({{path, groundTruth}}, {0.8, 1, numClasses}, table, &error)) return "";
    return error;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    writeFile(dir_, "lists/train.csv", frameList());
    writeFile(dir_, "lists/val.csv", frameList());
    writeFile(dir_, "ann/gt.csv", kGroundTruth);
    writeFile(dir_, "ann/pred.csv", kPredicted);
    writeFile(dir_, "ann/val_pred.csv",
              "vidA,0902,0.1,0.2,0.5,0.9,,0.9\n"
              "vidA,0904,0.1,0.2,0.5,0.9,4,0.9\n"
              "vidB,0908,0.5,0.5,0.6,0.6,,0.9\n");
  }

  // load_image_lists: videos in the order they first appear, frames in file order, FRAME_DIR
  // joined; a second file continues a video already seen.
  void framesGroupedByVideoAcrossFiles() {
    const std::string more = writeFile(dir_, "lists/more.csv",
                                       kHeader +
                                           "vidA 0 2 vidA/vidA_000003.jpg \"\"\n"
                                           "vidC 2 0 vidC/vidC_000001.jpg \"\"\n");
    std::vector<AvaVideo> videos;
    std::string error;
    QVERIFY2(readAvaFrameLists({dir_.path().toStdString() + "/lists/train.csv", more}, "/frames",
                               videos, &error),
             error.c_str());
    QCOMPARE(videos.size(), std::size_t(3));
    QCOMPARE(videos[0].name, std::string("vidB"));
    QCOMPARE(videos[1].name, std::string("vidA"));
    QCOMPARE(videos[1].frames, (std::vector<std::string>{"/frames/vidA/vidA_000001.jpg",
                                                         "/frames/vidA/vidA_000002.jpg",
                                                         "/frames/vidA/vidA_000003.jpg"}));
    QCOMPARE(videos[2].name, std::string("vidC"));
  }

  // parse_bboxes_file for training: GT then predicted. One person with two actions is one box
  // with both; the predicted copy of it adds -1; the box under the threshold is dropped; the
  // seconds outside 902 .. 1798 are dropped and counted.
  void trainingBoxesMergeGroundTruthAndPredicted() {
    const AvaSettings s = settings();
    AvaBoxTable table;
    std::string error;
    QVERIFY2(readAvaBoxes(s.boxFiles(Split::Train), s.boxOptions(Split::Train), table, &error),
             error.c_str());
    QCOMPARE(table.videos.size(), std::size_t(2));
    const AvaVideoBoxes* a = table.find("vidA");
    QVERIFY(a);
    QCOMPARE(a->seconds.size(), std::size_t(3));  // 902, 903, 905
    const std::vector<AvaBox>& at902 = a->seconds.at(902);
    QCOMPARE(at902.size(), std::size_t(2));
    QCOMPARE(at902[0].key, std::string("0.1,0.2,0.5,0.9"));
    QCOMPARE(at902[0].box, (std::array<double, 4>{0.1, 0.2, 0.5, 0.9}));
    QCOMPARE(at902[0].labels, (std::vector<int>{12, 80, -1}));
    QCOMPARE(at902[1].labels, (std::vector<int>{1}));
    QCOMPARE(a->seconds.at(903).size(), std::size_t(1));
    QCOMPARE(a->seconds.at(903)[0].labels, (std::vector<int>{-1}));
    QCOMPARE(table.annotations, std::int64_t(5));   // 12, 1, 80, 3, 7
    QCOMPARE(table.unique_boxes, std::int64_t(5));  // 2 at 902, 903, 905, vidB's 1798
    QCOMPARE(table.outside_valid_seconds, std::int64_t(2));
  }

  // get_keyframe_data and get_num_boxes_used over the whole training set.
  void trainingKeyframes() {
    AvaDataset ava;
    std::string error;
    QVERIFY2(readAvaDataset(settings(), Split::Train, ava, &error), error.c_str());
    QCOMPARE(ava.videos.size(), std::size_t(2));
    QCOMPARE(ava.videos[0].name, std::string("vidB"));
    QCOMPARE(ava.keyframes.size(), std::size_t(4));
    const AvaKeyframe& b = ava.keyframes[0];
    QCOMPARE(b.video, 0);
    QCOMPARE(b.sec_index, 0);
    QCOMPARE(b.second, 1798);
    QCOMPARE(b.center_frame, std::int64_t((1798 - 900) * 30));
    const int seconds[] = {902, 903, 905};
    for (int i = 0; i < 3; ++i) {
      const AvaKeyframe& k = ava.keyframes[static_cast<std::size_t>(1 + i)];
      QCOMPARE(k.video, 1);
      QCOMPARE(k.sec_index, i);
      QCOMPARE(k.second, seconds[i]);
      QCOMPARE(k.center_frame, std::int64_t((seconds[i] - 900) * 30));
    }
    QCOMPARE(ava.boxes_used, std::int64_t(5));
    QCOMPARE(avaBoxesUsed(ava.keyframes), std::int64_t(5));
    QCOMPARE(ava.outside_valid_seconds, std::int64_t(2));

    // Multi-hot targets: ids are 1-based, -1 is no action.
    const std::vector<float> t = avaTargets(ava.keyframes[1], 80);
    QCOMPARE(t.size(), std::size_t(2 * 80));
    std::vector<float> want(2 * 80, 0.0f);
    want[11] = want[79] = 1.0f;  // box 0: 12, 80 (and -1)
    want[80 + 0] = 1.0f;         // box 1: 1
    QCOMPARE(t, want);
    QCOMPARE(avaTargets(ava.keyframes[2], 80), std::vector<float>(80, 0.0f));  // only -1
  }

  // Validation keeps every 4th second of TEST_PREDICT_BOX_LISTS unless FULL_TEST_ON_VAL; test
  // keeps them all. No ground-truth list is read outside training.
  void validationSamplesEveryFourthSecond() {
    AvaSettings s = settings();
    AvaDataset ava;
    std::string error;
    QVERIFY2(readAvaDataset(s, Split::Val, ava, &error), error.c_str());
    QCOMPARE(ava.keyframes.size(), std::size_t(2));  // vidB 908, vidA 904
    QCOMPARE(ava.keyframes[0].second, 908);
    QCOMPARE(ava.keyframes[1].second, 904);
    QCOMPARE(ava.keyframes[1].boxes[0].labels, (std::vector<int>{4}));

    s.full_test_on_val = true;
    QVERIFY2(readAvaDataset(s, Split::Val, ava, &error), error.c_str());
    QCOMPARE(ava.keyframes.size(), std::size_t(3));
    QVERIFY2(readAvaDataset(settings(), Split::Test, ava, &error), error.c_str());
    QCOMPARE(ava.keyframes.size(), std::size_t(3));
    QCOMPARE(ava.keyframes[1].second, 902);
    QCOMPARE(ava.keyframes[1].center_frame, std::int64_t(60));
    QCOMPARE(ava.keyframes[2].sec_index, 1);
  }

  // The identity of a box is its coordinates as written (PySlowFast joins the text): "0.10" is
  // another person than "0.1". Whitespace, signs and CRLF line ends read as Python reads them.
  void boxIdentityIsTheText() {
    const std::string path = writeFile(dir_, "text.csv",
                                       "v, 0902 ,0.1,0.2,0.5,0.9,3,0\r\n"
                                       "v,902,0.10,0.2,0.5,0.9, 4 ,0\n"
                                       "\n"
                                       "v,902,0.1,0.2,0.5,0.9,+5,0\n");
    AvaBoxTable table;
    std::string error;
    QVERIFY2(readAvaBoxes({{path, true}}, {}, table, &error), error.c_str());
    const std::vector<AvaBox>& boxes = table.videos.at(0).seconds.at(902);
    QCOMPARE(boxes.size(), std::size_t(2));
    QCOMPARE(boxes[0].labels, (std::vector<int>{3, 5}));
    QCOMPARE(boxes[1].key, std::string("0.10,0.2,0.5,0.9"));
    QCOMPARE(boxes[1].labels, (std::vector<int>{4}));
  }

  void settingsFromConfig() {
    amp::config::Config c;
    QVERIFY(!c.set("AVA.FRAME_LIST_DIR", "/lists").has_value());
    QVERIFY(!c.set("AVA.TRAIN_PREDICT_BOX_LISTS", std::vector<std::string>{"a.csv", "b.csv"})
                 .has_value());
    QVERIFY(!c.set("MODEL.NUM_CLASSES", 80).has_value());
    const AvaSettings s = AvaSettings::fromConfig(c);
    QCOMPARE(s.frameListFiles(Split::Train), std::vector<std::string>{"/lists/train.csv"});
    QCOMPARE(s.frameListFiles(Split::Test), std::vector<std::string>{"/lists/val.csv"});
    const auto train = s.boxFiles(Split::Train);
    QCOMPARE(train.size(), std::size_t(3));
    QVERIFY(train[0].ground_truth && !train[1].ground_truth && !train[2].ground_truth);
    QVERIFY(train[2].path.size() >= 5 && train[2].path.substr(train[2].path.size() - 5) == "b.csv");
    QCOMPARE(s.boxFiles(Split::Val).size(), std::size_t(1));
    QCOMPARE(s.boxOptions(Split::Val).seconds_sample_rate, 4);
    QCOMPARE(s.boxOptions(Split::Test).seconds_sample_rate, 1);
    QCOMPARE(s.boxOptions(Split::Train).detection_score_thresh, 0.9);
    QCOMPARE(s.num_classes, 80);
  }

  // Hostile rows are named by file and line, with how many more there are.
  void hostileRowsNamedWithFileAndLine() {
    const std::string path = dir_.path().toStdString() + "/hostile.csv";
    QCOMPARE(QString::fromStdString(boxError("v,902,0.1,0.2,0.5,0.9,3\nv,902,0.1,0.2\n")),
             QString::fromStdString(path + ":2: got 4 comma-separated fields, expected 7: "
                                           "'video_id,second,x1,y1,x2,y2,action_id', got "
                                           "'v,902,0.1,0.2'"));
    QVERIFY(QString::fromStdString(boxError("v,902,0.1,0.2,0.5,0.9,3\n", false))
                .startsWith(QString::fromStdString(path + ":1: got 7 comma-separated fields, "
                                                          "expected 8 in a predicted-box list")));
    QVERIFY(QString::fromStdString(boxError("v,abc,0.1,0.2,0.5,0.9,3\n"))
                .startsWith(QString::fromStdString(path + ":1: second 'abc'")));
    QVERIFY(QString::fromStdString(boxError("v,902,0.1,nan,0.5,0.9,3\n"))
                .startsWith(QString::fromStdString(path + ":1: box coordinate 'nan' (column 4)")));
    QVERIFY(QString::fromStdString(boxError("v,902,0.1,0.2,0.5,0.9,x\n"))
                .startsWith(QString::fromStdString(path + ":1: action id 'x'")));
    QVERIFY(QString::fromStdString(boxError("v,902,0.1,0.2,0.5,0.9,3,zz\n", false))
                .startsWith(QString::fromStdString(path + ":1: detection score 'zz'")));
    QVERIFY(QString::fromStdString(boxError("v,902,0.1,0.2,0.5,0.9,0\n"))
                .startsWith(QString::fromStdString(
                    path + ":1: action id 0 (column 7) is outside 1 .. 80")));
    QVERIFY(QString::fromStdString(boxError("v,902,0.1,0.2,0.5,0.9,81\nv,902,0,0,1,1,-2\nbad\n"))
                .contains(QString::fromStdString(path + ":1: action id 81")));
    QVERIFY(QString::fromStdString(boxError("v,902,0.1,0.2,0.5,0.9,81\nv,902,0,0,1,1,-2\nbad\n"))
                .endsWith("(and 2 more malformed rows)"));
    QVERIFY(QString::fromStdString(boxError(std::string(70000, 'x') + "\n"))
                .startsWith(QString::fromStdString(path + ":1: too long")));
    // -1 written out is "no action", as PySlowFast reads it; so is an empty field.
    QCOMPARE(boxError("v,902,0.1,0.2,0.5,0.9,-1\n"), std::string());

    AvaBoxTable table;
    std::string error;
    QVERIFY(!readAvaBoxes({{path + ".missing", true}}, {}, table, &error));
    QVERIFY(QString::fromStdString(error).contains(QString::fromStdString(path + ".missing")));
  }

  // The frame lists and the box lists must name the same videos (PySlowFast asserts it).
  void videosMustMatchBetweenListsAndBoxes() {
    AvaSettings s = settings();
    s.test_predict_box_lists = {"only_a.csv"};
    writeFile(dir_, "ann/only_a.csv", "vidA,0902,0.1,0.2,0.5,0.9,,0.9\n");
    AvaDataset ava;
    std::string error;
    QVERIFY(!readAvaDataset(s, Split::Test, ava, &error));
    QVERIFY2(QString::fromStdString(error).startsWith("AVA video 'vidB' of the frame lists"),
             error.c_str());
    QVERIFY(QString::fromStdString(error).contains("only_a.csv"));

    writeFile(dir_, "ann/extra.csv",
              "vidA,0902,0.1,0.2,0.5,0.9,,0.9\nvidB,0902,0.1,0.2,0.5,0.9,,0.9\n"
              "vidZ,0902,0.1,0.2,0.5,0.9,,0.9\n");
    s.test_predict_box_lists = {"extra.csv"};
    QVERIFY(!readAvaDataset(s, Split::Test, ava, &error));
    QVERIFY2(QString::fromStdString(error).startsWith("AVA video 'vidZ' of the box lists"),
             error.c_str());

    // A bad frame list is named by readFrameList.
    s.test_lists = {"nolist.csv"};
    QVERIFY(!readAvaDataset(s, Split::Test, ava, &error));
    QVERIFY(QString::fromStdString(error).contains("nolist.csv"));
  }
};

QTEST_GUILESS_MAIN(TestAvaDataset)
#include "tst_avadataset.moc"
