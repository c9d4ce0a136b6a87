// The AVA-format demo dataset: the boxes the renderer reports enclose what it draws, and the
// files are laid out and filled as PySlowFast's AVA code reads them.
#include <QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "data/DemoAvaData.h"
#include "data/DemoDataGenerator.h"

#include "support/AvaDemo.h"

using namespace amp;

namespace {

double iou(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const double ax1 = std::stod(a[2]), ay1 = std::stod(a[3]), ax2 = std::stod(a[4]),
               ay2 = std::stod(a[5]);
  const double bx1 = std::stod(b[2]), by1 = std::stod(b[3]), bx2 = std::stod(b[4]),
               by2 = std::stod(b[5]);
  const double iw = std::max(0.0, std::min(ax2, bx2) - std::max(ax1, bx1)),
               ih = std::max(0.0, std::min(ay2, by2) - std::max(ay1, by1));
  const double inter = iw * ih;
  return inter / ((ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter);
}

}  // namespace

class TestDemoAvaData : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  // The same seed without the action draws the same background, so the pixels that differ are
  // the shape's: they lie inside its reported box, which they touch within a pixel on each side.
  void boxesEncloseTheShapes() {
    const int w = 84, h = 84, frames = 30;
    for (int label = 0; label < 8; ++label) {
      std::vector<std::vector<data::DemoBox>> boxes;
      const auto with =
          data::renderDemoActions({{label, 5, 24}}, 100 + label, w, h, frames, &boxes);
      const auto without = data::renderDemoActions({}, 100 + label, w, h, frames);
      QCOMPARE(boxes.size(), std::size_t(1));
      QCOMPARE(boxes[0].size(), std::size_t(frames));
      QVERIFY(!boxes[0][4].visible && !boxes[0][25].visible);
      for (int f = 5; f <= 24; ++f) {
        const data::DemoBox& b = boxes[0][static_cast<size_t>(f)];
        QVERIFY(b.visible);
        int x0 = w, x1 = -1, y0 = h, y1 = -1;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const size_t i = ((static_cast<size_t>(f) * h + y) * w + x) * 3;
            if (std::equal(with.begin() + i, with.begin() + i + 3, without.begin() + i)) continue;
            x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
          }
        if (x1 < 0) continue;  // blinking: fully transparent in this frame
        const QString where = QString("label %1 frame %2: drawn x %3-%4 y %5-%6, box %7 %8 %9 %10")
                                  .arg(label)
                                  .arg(f)
                                  .arg(x0)
                                  .arg(x1)
                                  .arg(y0)
                                  .arg(y1)
                                  .arg(b.x1)
                                  .arg(b.y1)
                                  .arg(b.x2)
                                  .arg(b.y2);
        QVERIFY2(x0 >= b.x1 - 1 && x1 + 1 <= b.x2 + 1 && y0 >= b.y1 - 1 && y1 + 1 <= b.y2 + 1,
                 qPrintable(where));
        QVERIFY2(
            x0 <= b.x1 + 1.5 && x1 + 1 >= b.x2 - 1.5 && y0 <= b.y1 + 1.5 && y1 + 1 >= b.y2 - 1.5,
            qPrintable(where));
      }
    }
  }

  void writesPySlowFastsAvaLayout() {
    const std::string out = dir_.path().toStdString() + "/ava";
    data::DemoDataOptions o;
    o.out_dir = out;
    o.format = data::DemoFormat::Ava;
    o.clips_per_class = 4;
    o.seed = 2;
    data::DemoDataSummary summary;
    std::string error;
    QVERIFY2(data::generateDemoData(o, summary, &error), error.c_str());
    QCOMPARE(summary.train, 8);
    QCOMPARE(summary.val, 2);
    const int frames = (data::kDemoAvaFirstKeySecond - 900 + data::kDemoAvaKeySeconds) * 30;
    QCOMPARE(frames, 150);

    // Frame lists: a header, then every frame of every video in order, ids from 0.
    std::ifstream list(out + "/frame_lists/train.csv");
    std::string line;
    std::getline(list, line);
    QCOMPARE(line, std::string("original_vido_id video_id frame_id path labels"));
    int count = 0;
    while (std::getline(list, line)) {
      std::istringstream row(line);
      std::string video, path, labels;
      int index = -1, frame = -1;
      row >> video >> index >> frame >> path >> labels;
      QCOMPARE(index, count / frames);
      QCOMPARE(frame, count % frames);
      QCOMPARE(labels, std::string("\"\""));
      QVERIFY2(std::filesystem::exists(out + "/frames/" + path), path.c_str());
      ++count;
    }
    QCOMPARE(count, 8 * frames);

    // Ground truth: 1 or 2 persons of different actions (ids 1-8) at each of the 3 keyframes.
    const auto truth = testsupport::csvCells(out + "/annotations/ava_val_v2.2.csv");
    std::map<std::string, std::vector<int>> actionsAt;
    for (const auto& r : truth) {
      QCOMPARE(r.size(), std::size_t(8));
      QVERIFY(r[1] == "0902" || r[1] == "0903" || r[1] == "0904");
      const int action = std::stoi(r[6]);
      QVERIFY(action >= 1 && action <= 8);
      for (int c = 2; c < 6; ++c) QVERIFY(std::stod(r[c]) >= 0 && std::stod(r[c]) <= 1);
      QVERIFY(std::stod(r[4]) > std::stod(r[2]) && std::stod(r[5]) > std::stod(r[3]));
      actionsAt[r[0] + "," + r[1]].push_back(action);
    }
    QCOMPARE(actionsAt.size(), std::size_t(2 * 3));
    for (const auto& [key, actions] : actionsAt) {
      QVERIFY2(actions.size() == 1 || actions.size() == 2, key.c_str());
      QVERIFY(actions.size() == 1 || actions[0] != actions[1]);
    }

    // Predicted boxes: each true person found (IoU > 0.5, score >= 0.93), and one false box a
    // keyframe scored under 0.9.
    const auto predicted = testsupport::csvCells(out + "/annotations/ava_val_predicted_boxes.csv");
    QCOMPARE(predicted.size(), truth.size() + 2 * 3);
    int low = 0;
    for (const auto& p : predicted) {
      QCOMPARE(p.size(), std::size_t(8));
      QCOMPARE(p[6], std::string());
      if (std::stod(p[7]) < 0.9) ++low;
    }
    QCOMPARE(low, 2 * 3);
    for (const auto& t : truth) {
      double best = 0;
      for (const auto& p : predicted)
        if (p[0] == t[0] && p[1] == t[1] && std::stod(p[7]) >= 0.93)
          best = std::max(best, iou(t, p));
      QVERIFY2(best > 0.5, (t[0] + "," + t[1]).c_str());
    }

    // The label map names the 8 classes with ids 1-8; one val keyframe is excluded.
    std::ifstream pbtxt(out + "/annotations/ava_action_list_v2.2_for_activitynet_2019.pbtxt");
    const std::string map((std::istreambuf_iterator<char>(pbtxt)), {});
    QVERIFY(map.find("item {\n  name: \"moving_right\"\n  id: 1\n}") != std::string::npos);
    QVERIFY(map.find("name: \"shrinking\"\n  id: 8\n}") != std::string::npos);
    const auto excluded =
        testsupport::csvCells(out + "/annotations/ava_val_excluded_timestamps_v2.2.csv");
    QCOMPARE(excluded.size(), std::size_t(1));
    QCOMPARE(excluded[0][1], std::string("0903"));
  }
};

QTEST_GUILESS_MAIN(TestDemoAvaData)
#include "tst_demoavadata.moc"
