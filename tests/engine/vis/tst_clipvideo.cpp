// ClipVideo: the classes drawn on a clip as PySlowFast's VideoVisualizer.draw_clip draws them
// ("[score] name" panels down the top-left corner in the colour map's colour of
// class / NUM_CLASSES, at half opacity) and the clip handed over as a GIF image summary.
#include <QtTest>

#include <map>
#include <string>
#include <vector>

#include "vis/ClipVideo.h"

using namespace amp;

class TestClipVideo : public QObject {
  Q_OBJECT
 private slots:
  // Best first; equal scores in class order.
  void topLabelsReadAsPySlowFasts() {
    const std::map<int, std::string> names = {{0, "walk"}, {2, "run"}};
    const auto l = vis::topLabels({0.1f, 0.25f, 0.6f, 0.25f}, 3, names);
    QCOMPARE(l.size(), std::size_t{3});
    QCOMPARE(l[0].class_index, 2);
    QCOMPARE(l[0].text, std::string("[0.60] run"));
    QCOMPARE(l[1].text, std::string("[0.25] 1"));  // no name: its number
    QCOMPARE(l[2].class_index, 3);
    QCOMPARE(vis::topLabels({0.5f}, 5, names).size(), std::size_t{1});
  }

  // Class 4 of 8 in Pastel2 is colour floor(8 x 4 / 8) = 4, (230, 245, 201); at half opacity
  // over a black frame the panel's corner is (115, 122.5, 100.5), rounded.
  void panelsInTheClassColourAndAGif() {
    std::string error;
    auto video = vis::ClipVideo::open("Pastel2", 8, {{4, "jump"}}, &error);
    QVERIFY2(video, error.c_str());
    constexpr int kT = 3, kH = 48, kW = 64;
    std::vector<std::uint8_t> frames(static_cast<std::size_t>(kT * kH * kW * 3), 0);
    runlog::TensorBoardImage out;
    QVERIFY2(
        video->encode(frames, kT, kH, kW, {{4, "[0.70] jump"}}, "Input 0/Pathway 1", out, &error),
        error.c_str());
    QVERIFY2(video->fontProblem().empty(), video->fontProblem().c_str());
    for (int t = 0; t < kT; ++t) {
      const std::uint8_t* p = frames.data() + ((static_cast<std::size_t>(t) * kH + 6) * kW) * 3;
      QVERIFY(std::abs(p[0] - 115) <= 1 && std::abs(p[1] - 122) <= 1 && std::abs(p[2] - 100) <= 1);
    }
    QCOMPARE(out.tag, std::string("Input 0/Pathway 1"));
    QCOMPARE(out.width, kW);
    QCOMPARE(out.height, kH);
    QCOMPARE(out.png.substr(0, 6), std::string("GIF89a"));
  }

  void unknownColourMapNamesTheKey() {
    std::string error;
    QVERIFY(!vis::ClipVideo::open("rainbow", 8, {}, &error));
    QVERIFY2(error.find("TENSORBOARD.MODEL_VIS.COLORMAP: 'rainbow'") == 0, error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestClipVideo)
#include "tst_clipvideo.moc"
