// The clip preview of AVA keyframes on the AVA demo data: the clip the loader builds with its
// boxes where the box-aware transform put them, inside the clip and the shown keyframe, each
// with its keyframe's actions (named by the label map through metrics::avaLabelNames), and the
// contact sheet outlining them.
#include <QtTest>

#include <QTemporaryDir>

#include "config/Config.h"
#include "data/AvaDataset.h"
#include "data/ClipPreview.h"
#include "data/Dataset.h"
#include "metrics/AvaLabelNames.h"
#include "support/AvaDemo.h"
#include "support/Configs.h"

using namespace amp;

class TestAvaPreview : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string demo_;

  config::Config config() {
    return testsupport::loadConfigOrDie(testsupport::repoConfig("demo/DEMO_X3D_TINY.yaml"),
                                        testsupport::avaDemoOverrides(demo_));
  }

  // The boxes of every previewed keyframe of `split` against the keyframe as the dataset reads it.
  void checkSplit(data::Split split) {
    const config::Config cfg = config();
    data::SampleList list;
    std::string error;
    QVERIFY2(data::readSampleList(cfg, split, list, &error), error.c_str());
    std::vector<data::PreviewClip> clips;
    const int count = static_cast<int>(list.videos.size());
    QVERIFY2(data::previewClips(cfg, split, 0, 0, count, clips, &error), error.c_str());
    QCOMPARE(static_cast<int>(clips.size()), count);
    for (const data::PreviewClip& c : clips) {
      QVERIFY(c.second >= data::kAvaFirstSecond && c.second <= data::kAvaLastSecond);
      QCOMPARE(c.fast.size(), static_cast<size_t>(c.frames) * c.height * c.width * 3);
      QCOMPARE(c.full.size(),
               static_cast<size_t>(c.info.decoded.height) * c.info.decoded.width * 3);
      // The keyframe this clip is: the one of its video and second (the shuffle moves them).
      const data::AvaKeyframe* key = nullptr;
      for (const auto& k : list.ava->keyframes)
        if (k.second == c.second && list.ava->videos[static_cast<size_t>(k.video)]
                                            .frames[static_cast<size_t>(k.center_frame)] == c.path)
          key = &k;
      QVERIFY2(key, c.path.c_str());
      QCOMPARE(c.boxes.size(), key->boxes.size());
      for (size_t b = 0; b < c.boxes.size(); ++b) {
        const auto& box = c.boxes[b];
        QVERIFY(box.clip[0] >= 0 && box.clip[0] <= box.clip[2] && box.clip[2] <= c.width - 1);
        QVERIFY(box.clip[1] >= 0 && box.clip[1] <= box.clip[3] && box.clip[3] <= c.height - 1);
        QVERIFY(box.frame[0] >= 0 && box.frame[2] <= c.info.decoded.width);
        QVERIFY(box.frame[1] >= 0 && box.frame[3] <= c.info.decoded.height);
        QCOMPARE(box.frame[0], key->boxes[b].box[0] * c.info.decoded.width);
        QCOMPARE(box.labels, key->boxes[b].labels);
      }
    }
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    demo_ = dir_.path().toStdString() + "/ava";
    std::string error;
    QVERIFY2(testsupport::makeAvaDemo(demo_, 1, &error), error.c_str());
  }

  void trainingClipsCarryTheirKeyframesBoxes() { checkSplit(data::Split::Train); }
  // Test clips keep the frame's aspect ratio and hold the predicted boxes (no actions).
  void testClipsCarryTheirKeyframesBoxes() { checkSplit(data::Split::Test); }

  void actionsAreNamedByTheLabelMap() {
    std::string error;
    const auto names = metrics::avaLabelNames(config(), &error);
    QVERIFY2(names, error.c_str());
    QCOMPARE(names->size(), size_t(8));  // the demo's classes, ids 1 .. 8
    std::vector<data::PreviewClip> clips;
    QVERIFY2(data::previewClips(config(), data::Split::Train, 0, 0, 4, clips, &error),
             error.c_str());
    for (const auto& c : clips)
      for (const auto& b : c.boxes)
        for (const int id : b.labels) QVERIFY2(names->count(id), qPrintable(QString::number(id)));
    // A label map that is not there is named with its key.
    config::Config missing = config();
    missing.setOrThrow("AVA.LABEL_MAP_FILE", std::string("no-such-map.pbtxt"));
    QVERIFY(!metrics::avaLabelNames(missing, &error));
    QVERIFY2(error.rfind("AVA.LABEL_MAP_FILE: ", 0) == 0 &&
                 error.find("annotations/no-such-map.pbtxt") != std::string::npos,
             error.c_str());
  }

  // The keyframe on top and the clip's frame of the keyframe show the same colours inside a box
  // (the frame is decoded BGR, the clip is RGB after AVA's transform: both shown as RGB).
  void theKeyframeAndTheClipAgreeInColour() {
    std::vector<data::PreviewClip> clips;
    std::string error;
    QVERIFY2(data::previewClips(config(), data::Split::Val, 0, 0, 3, clips, &error), error.c_str());
    for (const auto& c : clips) {
      const auto& idx = c.info.frame_indices;
      const auto centre = std::find(idx.begin(), idx.end(), (c.second - 900) * 30);
      QVERIFY(centre != idx.end());
      const auto t = static_cast<std::size_t>(centre - idx.begin());
      auto mean = [](const std::uint8_t* pixels, int width, const std::array<double, 4>& b) {
        std::array<double, 3> sum{};
        int n = 0;
        for (int y = static_cast<int>(b[1]); y <= static_cast<int>(b[3]); ++y)
          for (int x = static_cast<int>(b[0]); x <= static_cast<int>(b[2]); ++x, ++n)
            for (int ch = 0; ch < 3; ++ch)
              sum[static_cast<size_t>(ch)] += pixels[(static_cast<size_t>(y) * width + x) * 3 + ch];
        for (auto& v : sum) v /= std::max(n, 1);
        return sum;
      };
      // Validation's centre crop of the scaled frame: the same pixels, at the same scale.
      const auto onFrame = mean(c.full.data(), c.info.decoded.width, c.boxes[0].frame);
      const auto inClip = mean(c.fast.data() + t * static_cast<size_t>(c.height) * c.width * 3,
                               c.width, c.boxes[0].clip);
      for (size_t ch = 0; ch < 3; ++ch)
        QVERIFY2(
            std::abs(onFrame[ch] - inClip[ch]) < 12,
            qPrintable(QString("channel %1: %2 vs %3").arg(ch).arg(onFrame[ch]).arg(inClip[ch])));
    }
  }

  void theContactSheetOutlinesTheBoxes() {
    std::vector<data::PreviewClip> clips;
    std::string error;
    QVERIFY2(data::previewClips(config(), data::Split::Train, 0, 0, 1, clips, &error),
             error.c_str());
    const data::PreviewClip& c = clips.front();
    QVERIFY(!c.boxes.empty());
    const auto sheet = data::contactSheet(c);
    const auto layout = data::contactSheetLayout(c);
    QCOMPARE(static_cast<int>(layout.fast.size()), c.frames);
    auto px = [&](int x, int y) {
      return sheet.rgb.data() + (static_cast<std::size_t>(y) * sheet.width + x) * 3;
    };
    const auto colour = data::avaBoxColour(0);
    // Box 1's top-left corner on the keyframe and on the last fast frame.
    const auto& f = c.boxes[0].frame;
    const auto& b = c.boxes[0].clip;
    const int fx = static_cast<int>(std::lround(f[0])), fy = static_cast<int>(std::lround(f[1]));
    QVERIFY(std::equal(colour.begin(), colour.end(), px(fx, fy)));
    const auto& last = layout.fast.back();
    QVERIFY(std::equal(colour.begin(), colour.end(),
                       px(last.x + static_cast<int>(std::lround(b[0])),
                          last.y + static_cast<int>(std::lround(b[1])))));
    // Without boxes the same pixel is the frame's.
    const auto plain = data::contactSheet(c, /*drawBoxes=*/false);
    QVERIFY(!std::equal(colour.begin(), colour.end(),
                        plain.rgb.data() + (static_cast<std::size_t>(fy) * plain.width + fx) * 3));
  }
};

QTEST_GUILESS_MAIN(TestAvaPreview)
#include "tst_avapreview.moc"
