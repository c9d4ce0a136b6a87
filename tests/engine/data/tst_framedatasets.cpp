#include <QtTest>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <set>

#include "config/Config.h"
#include "data/ClipPreview.h"
#include "data/ClipSampler.h"
#include "data/Dataset.h"
#include "data/DemoFrameData.h"
#include "data/JpegFrames.h"
#include "data/VideoLoader.h"
#include "support/Configs.h"

using namespace amp;
using namespace amp::data;
namespace fs = std::filesystem;

// The frame-folder datasets behind the dataset seam: SSv2's label join, Charades' per-frame
// labels and multi-hot targets, frames decoded in OpenCV's BGR order, errors naming the frame.
class TestFrameDatasets : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  std::string root() const { return dir_.path().toStdString(); }

  config::Config config(const std::string& templ, const std::string& dataDir,
                        std::vector<std::string> more = {}) {
    std::vector<std::string> o = {"DATA.PATH_TO_DATA_DIR",   dataDir, "DATA.PATH_PREFIX", dataDir,
                                  "DATA_LOADER.NUM_WORKERS", "0"};
    o.insert(o.end(), more.begin(), more.end());
    return testsupport::loadConfigOrDie(testsupport::repoConfig("demo/" + templ), o);
  }

  std::string demo(DemoFormat format, const std::string& name) {
    const std::string out = root() + "/" + name;
    if (fs::exists(out + "/demo-data.json")) return out;
    DemoDataOptions o;
    o.out_dir = out;
    o.format = format;
    o.clips_per_class = 2;
    o.threads = 2;
    DemoDataSummary summary;
    std::string error;
    if (!generateDemoData(o, summary, &error)) qFatal("%s", error.c_str());
    return out;
  }

  static void write(const std::string& path, const std::string& text) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
  }

  // A solid-colour JPEG frame (RGB values r, g, b).
  static void colourFrame(const std::string& path, int r, int g, int b, int size = 40) {
    std::vector<std::uint8_t> px(static_cast<size_t>(size) * size * 3);
    for (size_t i = 0; i < px.size(); i += 3) {
      px[i] = static_cast<std::uint8_t>(r);
      px[i + 1] = static_cast<std::uint8_t>(g);
      px[i + 2] = static_cast<std::uint8_t>(b);
    }
    fs::create_directories(fs::path(path).parent_path());
    std::string error;
    if (!writeJpeg(path, px.data(), size, size, JpegPixels::Rgb, 95, &error))
      qFatal("%s", error.c_str());
  }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void testReadsTheValidationFiles() {
    QCOMPARE(listFileName(DatasetKind::Ssv2, Split::Test), std::string("val.csv"));
    QCOMPARE(listFileName(DatasetKind::Charades, Split::Train), std::string("train.csv"));
    QCOMPARE(listFileName(DatasetKind::Kinetics, Split::Test), std::string("test.csv"));
    DatasetKind k;
    QVERIFY(datasetKindFromName("SSv2", k) && k == DatasetKind::Ssv2);
    QVERIFY(datasetKindFromName("AVA", k) && k == DatasetKind::Ava);
    QVERIFY(!datasetKindFromName("epickitchens", k));
  }

  void ssv2DemoJoinsLabelsAndFrames() {
    const std::string d = demo(DemoFormat::Ssv2, "ssv2");
    const auto c = config("DEMO_X3D_TINY_SSV2.yaml", d);
    SampleList train, test;
    std::string error;
    QVERIFY2(readSampleList(c, Split::Train, train, &error), error.c_str());
    QVERIFY2(readSampleList(c, Split::Test, test, &error), error.c_str());
    QCOMPARE(train.kind, DatasetKind::Ssv2);
    QVERIFY(!train.multi_label);
    QCOMPARE(train.videos.size(), size_t(16));  // 2 per class of 8
    QCOMPARE(test.videos.size(), size_t(16));   // val: max(2, 2 / 4) per class
    QCOMPARE(train.listPath, d + "/train.csv");
    QCOMPARE(test.listPath, d + "/val.csv");
    // The generator lists class after class: video k has class k % 8, 24 frames on disk.
    for (size_t k = 0; k < train.videos.size(); ++k) {
      const Sample& s = train.videos[k];
      QCOMPARE(s.label, static_cast<int>(k % 8));
      QCOMPARE(s.frames.size(), size_t(24));
      QVERIFY2(fs::is_regular_file(s.frames.back()), s.frames.back().c_str());
    }
    QCOMPARE(train.maxLabel, 7);
  }

  void ssv2TemplatesLoseTheirBrackets() {
    const std::string d = root() + "/ssv2-join";
    write(d + "/something-something-v2-labels.json",
          R"({"Putting something on something": "3", "Pushing something": "0"})");
    // b is not in the frame list (dropped); c is not in the JSON (ignored); the counts agree.
    write(d + "/something-something-v2-train.json",
          R"([{"id": "b", "template": "Pushing [something]"},
              {"id": "a", "template": "Putting [something] on [something]"}])");
    write(d + "/train.csv",
          "original_vido_id video_id frame_id path labels\n"
          "a 0 0 a/1.jpg \"\"\nc 1 0 c/1.jpg \"\"\na 0 1 a/2.jpg \"\"\n");
    SampleList list;
    std::string error;
    QVERIFY2(readSampleList(config("DEMO_X3D_TINY_SSV2.yaml", d), Split::Train, list, &error),
             error.c_str());
    QCOMPARE(list.videos.size(), size_t(1));
    QCOMPARE(list.videos[0].name, std::string("a"));
    QCOMPARE(list.videos[0].label, 3);
    QCOMPARE(list.videos[0].frames, (std::vector<std::string>{d + "/a/1.jpg", d + "/a/2.jpg"}));

    // PySlowFast asserts the frame list and the labels file list as many videos.
    write(d + "/train.csv", "original_vido_id video_id frame_id path labels\na 0 0 a/1.jpg \"\"\n");
    QVERIFY(!readSampleList(config("DEMO_X3D_TINY_SSV2.yaml", d), Split::Train, list, &error));
    QVERIFY2(error.find("train.csv: lists 1 videos but") != std::string::npos, error.c_str());
  }

  void charadesTargetsAreFrameLabelUnions() {
    Sample s;
    s.frame_labels = {{}, {1}, {1, 4}, {4}, {}, {7}, {}};
    QCOMPARE(targetClasses(s, 0, 0), std::vector<int>{});
    QCOMPARE(targetClasses(s, 1, 3), (std::vector<int>{1, 4}));
    QCOMPARE(targetClasses(s, 3, 6), (std::vector<int>{4, 7}));
    QCOMPARE(targetClasses(s, -2, 99), (std::vector<int>{1, 4, 7}));  // clamped to the video
    Sample v;
    v.labels = {2, 5};  // validation: the video's classes whatever the span
    QCOMPARE(targetClasses(v, 0, 1), (std::vector<int>{2, 5}));
  }

  void charadesBatchesCarryMultiHotTargets() {
    const std::string d = root() + "/charades-hand";
    // One video of 12 frames: classes 1 on frames 2-5, 3 on frames 8-11; 40 x 40 grey frames.
    std::string list = "original_vido_id video_id frame_id path labels\n";
    for (int f = 0; f < 12; ++f) {
      const std::string labels = f >= 2 && f <= 5 ? "1" : f >= 8 ? "3" : "";
      list +=
          "V1 0 " + std::to_string(f) + " V1/" + std::to_string(f) + ".jpg \"" + labels + "\"\n";
      colourFrame(d + "/V1/" + std::to_string(f) + ".jpg", 128, 128, 128);
    }
    write(d + "/train.csv", list);
    write(d + "/val.csv", list);
    const auto c = config(
        "DEMO_X3D_TINY_CHARADES.yaml", d,
        {"DATA.NUM_FRAMES", "4", "DATA.SAMPLING_RATE", "2", "DATA.TRAIN_JITTER_SCALES", "[32, 32]",
         "DATA.TRAIN_CROP_SIZE", "32", "DATA.TEST_CROP_SIZE", "32", "MODEL.NUM_CLASSES", "5"});
    SampleList train, val;
    std::string error;
    QVERIFY2(readSampleList(c, Split::Train, train, &error), error.c_str());
    QVERIFY2(readSampleList(c, Split::Val, val, &error), error.c_str());
    QVERIFY(train.multi_label);
    QCOMPARE(train.videos[0].labels, (std::vector<int>{1, 3}));
    QCOMPARE(train.videos[0].frame_labels.size(), size_t(12));
    QVERIFY(val.videos[0].frame_labels.empty());  // validation: the video's labels

    auto options = LoaderOptions::fromConfig(c, Split::Train);
    options.batch_size = 1;
    options.workers = 0;
    std::set<std::vector<float>> seen;
    for (int epoch = 0; epoch < 12; ++epoch) {
      VideoLoader loader(train, ClipParams::fromConfig(c), Split::Train, options);
      loader.startEpoch(epoch);
      auto b = loader.next();
      QVERIFY2(b.has_value(), loader.error().c_str());
      QCOMPARE(b->num_classes, 5);
      QCOMPARE(b->targets.size(), size_t(5));
      // 4 frames 2 apart span 7 of 12: the target is the classes of the frames in that span.
      const auto& idx = b->info[0].frame_indices;
      QCOMPARE(idx.size(), size_t(4));
      QCOMPARE(idx.back() - idx.front(), std::int64_t(6));
      std::vector<float> want(5, 0.0f);
      for (auto f = idx.front(); f <= idx.back(); ++f) {
        if (f >= 2 && f <= 5) want[1] = 1;
        if (f >= 8) want[3] = 1;
      }
      QCOMPARE(b->targets, want);
      seen.insert(want);
    }
    QVERIFY2(seen.size() >= 2, "the random starts gave one target only");

    VideoLoader valLoader(val, ClipParams::fromConfig(c), Split::Val,
                          LoaderOptions::fromConfig(c, Split::Val));
    valLoader.startEpoch(0);
    auto b = valLoader.next();
    QVERIFY2(b.has_value(), valLoader.error().c_str());
    QCOMPARE(b->targets, (std::vector<float>{0, 1, 0, 1, 0}));
  }

  void framesAreDecodedInBgrOrder() {
    const std::string d = root() + "/bgr";
    Sample s;
    s.name = "red";
    for (int f = 0; f < 6; ++f) {
      s.frames.push_back(d + "/" + std::to_string(f) + ".jpg");
      colourFrame(s.frames.back(), 250, 20, 5);
    }
    s.path = s.frames.front();
    const auto c = config("DEMO_X3D_TINY_SSV2.yaml", d,
                          {"DATA.NUM_FRAMES", "3", "DATA.TEST_CROP_SIZE", "32", "DATA.MEAN",
                           "[0.0, 0.0, 0.0]", "DATA.STD", "[1.0, 1.0, 1.0]"});
    ClipSampler sampler(ClipParams::fromConfig(c));
    Clip clip;
    std::string error;
    QVERIFY2(sampler.sample(s, Split::Test, 0, ClipDraws{}, clip, &error), error.c_str());
    // SSv2's test frames: the middle of 3 segments of 5 / 3 frames: edges 0 2 3 5 -> 1 2 4.
    QCOMPARE(clip.frame_indices, (std::vector<std::int64_t>{1, 2, 4}));
    QCOMPARE(clip.height, 32);
    // Channel 0 is blue, as OpenCV's imdecode gives it to PySlowFast (JPEG keeps flat colours
    // within a few levels).
    const size_t plane = 3 * 32 * 32;
    QVERIFY2(std::abs(clip.fast[0] * 255 - 5) < 4, std::to_string(clip.fast[0] * 255).c_str());
    QVERIFY2(std::abs(clip.fast[2 * plane] * 255 - 250) < 4,
             std::to_string(clip.fast[2 * plane] * 255).c_str());
  }

  // The clip preview shows a frame folder's clip in RGB, its first frame at the size the region
  // refers to (short side 64 of the 84 x 84 frames in the test view), named by the video id.
  void previewShowsFramesInRgb() {
    const std::string d = demo(DemoFormat::Ssv2, "ssv2");
    const auto c = config("DEMO_X3D_TINY_SSV2.yaml", d);
    std::vector<PreviewClip> clips;
    std::string error;
    QVERIFY2(previewClips(c, Split::Test, 0, 0, 1, clips, &error), error.c_str());
    QCOMPARE(clips.size(), size_t(1));
    const PreviewClip& p = clips[0];
    SampleList list;
    QVERIFY2(readSampleList(c, Split::Test, list, &error), error.c_str());
    QCOMPARE(p.path, list.videos[0].name);
    QCOMPARE(p.info.decoded.height, 64);
    QCOMPARE(p.full.size(), size_t(64 * 64 * 3));
    DecodedClip bgr;
    QVERIFY2(
        decodeJpegFrames({list.videos[0].frames[static_cast<size_t>(p.info.frame_indices.front())]},
                         bgr, &error),
        error.c_str());
    // Mean of each channel: the preview's red is the JPEG's third (BGR) channel.
    auto mean = [](const std::vector<std::uint8_t>& px, size_t c) {
      double sum = 0;
      for (size_t i = c; i < px.size(); i += 3) sum += px[i];
      return sum / static_cast<double>(px.size() / 3);
    };
    for (size_t ch = 0; ch < 3; ++ch)
      QVERIFY2(std::abs(mean(p.full, ch) - mean(bgr.rgb, 2 - ch)) < 3.0,
               (std::to_string(mean(p.full, ch)) + " vs " + std::to_string(mean(bgr.rgb, 2 - ch)))
                   .c_str());
    QVERIFY(std::abs(mean(p.full, 0) - mean(p.full, 2)) > 3.0);  // the check can tell them apart
  }

  void aMissingFrameIsNamed() {
    const std::string d = root() + "/missing";
    Sample s;
    for (int f = 0; f < 4; ++f) {
      s.frames.push_back(d + "/" + std::to_string(f) + ".jpg");
      if (f != 2) colourFrame(s.frames.back(), 10, 10, 10);
    }
    s.path = s.frames.front();
    const auto c =
        config("DEMO_X3D_TINY_SSV2.yaml", d, {"DATA.NUM_FRAMES", "4", "DATA.TEST_CROP_SIZE", "32"});
    ClipSampler sampler(ClipParams::fromConfig(c));
    Clip clip;
    std::string error;
    QVERIFY(!sampler.sample(s, Split::Test, 0, ClipDraws{}, clip, &error));
    QVERIFY2(error.find(d + "/2.jpg") != std::string::npos, error.c_str());
  }

  void charadesDemoHasOverlappingActions() {
    const std::string d = demo(DemoFormat::Charades, "charades");
    const auto c = config("DEMO_X3D_TINY_CHARADES.yaml", d);
    SampleList train;
    std::string error;
    QVERIFY2(readSampleList(c, Split::Train, train, &error), error.c_str());
    QCOMPARE(train.videos.size(), size_t(12));
    int overlapping = 0;
    for (const Sample& s : train.videos) {
      QCOMPARE(s.frames.size(), size_t(48));
      QVERIFY(s.labels.size() >= 2);
      for (const auto& f : s.frame_labels)
        if (f.size() >= 2) {
          ++overlapping;
          break;
        }
    }
    QCOMPARE(overlapping, 12);  // every video has frames where two actions happen at once
  }
};

QTEST_GUILESS_MAIN(TestFrameDatasets)
#include "tst_framedatasets.moc"
