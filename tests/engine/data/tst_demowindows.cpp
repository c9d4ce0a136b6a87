// The classification demo's windows against hand-worked plans of demo_loader.py and
// draw_predictions: where each window starts, which frames carry its classes, which windows
// DEMO.NUM_CLIPS_SKIP leaves unpredicted, and the config keys' checks.
#include <QtTest>

#include "configfile/ConfigLoader.h"
#include "data/DemoWindows.h"

using namespace amp;
using data::DemoWindowParams;
using data::planDemoWindows;

namespace {

DemoWindowParams params(int seq, int frames, int buffer, int vis, int skip) {
  DemoWindowParams p;
  p.seq_len = seq;
  p.num_frames = frames;
  p.buffer = buffer;
  p.clip_vis_size = vis;
  p.clips_skip = skip;
  return p;
}

}  // namespace

class TestDemoWindows : public QObject {
  Q_OBJECT
 private slots:
  // 40 frames, clips of 16 sharing 4: windows at 0, 12, 24 (36 would end at 52). Each draws on
  // the frames it adds (0-15, 16-27, 28-39) within 10 of its middle (8, 20, 32).
  void windowsOverlapByTheBuffer() {
    const auto w = planDemoWindows(40, params(16, 8, 4, 10, 0));
    QCOMPARE(w.size(), std::size_t{3});
    const std::int64_t first[] = {0, 12, 24}, middle[] = {8, 20, 32};
    const std::int64_t drawFirst[] = {0, 16, 28}, drawLast[] = {15, 27, 39};
    for (std::size_t k = 0; k < 3; ++k) {
      QCOMPARE(w[k].first, first[k]);
      QCOMPARE(w[k].middle, middle[k]);
      QCOMPARE(w[k].draw_first, drawFirst[k]);
      QCOMPARE(w[k].draw_last, drawLast[k]);
      QVERIFY(w[k].predicted);
    }
    // torch.linspace(0, 15, 8).long(): 0, 2.14, 4.29, 6.43, 8.57, 10.71, 12.86, 15.
    QCOMPARE(w[1].sampled, (std::vector<std::int64_t>{12, 14, 16, 18, 20, 22, 24, 27}));
  }

  // A narrow CLIP_VIS_SIZE draws around the middle only; 39 frames hold two windows.
  void theClassesShowAroundTheMiddle() {
    const auto w = planDemoWindows(39, params(16, 8, 4, 2, 0));
    QCOMPARE(w.size(), std::size_t{2});
    QCOMPARE(w[0].draw_first, std::int64_t{6});
    QCOMPARE(w[0].draw_last, std::int64_t{10});
    QCOMPARE(w[1].draw_first, std::int64_t{18});
    QCOMPARE(w[1].draw_last, std::int64_t{22});
    QVERIFY(planDemoWindows(15, params(16, 8, 4, 2, 0)).empty());
    QCOMPARE(planDemoWindows(16, params(16, 8, 0, 2, 0)).size(), std::size_t{1});
  }

  // No buffer: windows tile the video; NUM_CLIPS_SKIP 2 predicts windows 0, 3, 6 ...
  void skippedWindowsAreNotPredicted() {
    const auto w = planDemoWindows(100, params(10, 5, 0, 3, 2));
    QCOMPARE(w.size(), std::size_t{10});
    for (std::size_t k = 0; k < w.size(); ++k) {
      QCOMPARE(w[k].first, static_cast<std::int64_t>(10 * k));
      QCOMPARE(w[k].predicted, k % 3 == 0);
    }
    QCOMPARE(w[0].sampled, (std::vector<std::int64_t>{0, 2, 4, 6, 9}));
    // One frame: the first of the clip (linspace with one point).
    QCOMPARE(planDemoWindows(10, params(10, 1, 0, 3, 0))[0].sampled,
             (std::vector<std::int64_t>{0}));
  }

  void theKeysAreChecked() {
    auto load = [](std::vector<std::string> overrides) {
      return config::ConfigLoader().loadText("TRAIN:\n  ENABLE: False\n", "demo.yaml", ".",
                                             overrides);
    };
    auto ok = load({"DATA.NUM_FRAMES", "8", "DATA.SAMPLING_RATE", "4", "DEMO.BUFFER_SIZE", "16"});
    QVERIFY(ok.ok());
    const auto p = DemoWindowParams::fromConfig(ok.config);
    QCOMPARE(p.seq_len, 32);
    QCOMPARE(p.buffer, 16);
    QCOMPARE(p.clip_vis_size, 10);  // PySlowFast's default
    auto tooMuch =
        load({"DATA.NUM_FRAMES", "8", "DATA.SAMPLING_RATE", "4", "DEMO.BUFFER_SIZE", "17"});
    QVERIFY(tooMuch.ok());
    try {
      (void)DemoWindowParams::fromConfig(tooMuch.config);
      QFAIL("a buffer over half the clip was accepted");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).startsWith("DEMO.BUFFER_SIZE: 17 frames") &&
                   QString(e.what()).contains("(16 here)"),
               e.what());
    }
    QVERIFY(!load({"DEMO.CLIP_VIS_SIZE", "-1"}).ok());  // the schema's >= 0
    QVERIFY(!load({"DEMO.INPUT_FORMAT", "YUV"}).ok());
  }
};

QTEST_APPLESS_MAIN(TestDemoWindows)
#include "tst_demowindows.moc"
