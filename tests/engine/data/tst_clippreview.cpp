// The clip preview shows exactly the clips the loader builds for training at the same seed and
// position, with their source frames and crop region; its PNG contact sheets are real PNGs.
#include <QtTest>

#include <QTemporaryDir>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "configfile/ConfigLoader.h"
#include "data/ClipPreview.h"
#include "data/Dataset.h"
#include "data/DemoDataGenerator.h"
#include "data/ImageWriter.h"
#include "data/KineticsCsv.h"
#include "multigrid/Schedule.h"
#include "util/AtomicFile.h"

#include "support/DemoFixture.h"

using namespace amp;

class TestClipPreview : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  // 16 train clips, loaded in batches of 4 by 2 workers.
  testsupport::DemoFixture demo_{
      {"TRAIN.BATCH_SIZE", "4", "DATA_LOADER.NUM_WORKERS", "2", "RNG_SEED", "7"},
      /*clipsPerClass=*/2};
  std::string data_;                          ///< the data set's folder
  int augmentedClips_ = 0, erasedClips_ = 0;  ///< of the last sameAsTheLoader

  config::Config demo(const std::vector<std::string>& extra = {}) {
    return demo_.configOrDie(extra);
  }

  // The training loader's clips of `epoch` as the trainer gets them (batches of 4, 2 workers).
  std::vector<data::Batch> trainingBatches(const config::Config& c, int epoch) {
    data::SampleList list;
    std::string error;
    if (!data::readKineticsList(data_, "train", " ", data_, 0, list, &error))
      qFatal("%s", error.c_str());
    data::VideoLoader loader(list, data::ClipParams::fromConfig(c), data::Split::Train,
                             data::LoaderOptions::fromConfig(c, data::Split::Train));
    loader.startEpoch(epoch);
    std::vector<data::Batch> out;
    while (auto b = loader.next()) out.push_back(std::move(*b));
    return out;
  }

  void sameAsTheLoader(const config::Config& c) {
    const auto batches = trainingBatches(c, 1);
    QVERIFY(batches.size() >= 2);
    const auto params = data::ClipParams::fromConfig(c);
    const int copies = params.copiesPerVideo(data::Split::Train);
    std::vector<data::PreviewClip> preview;
    std::string error;
    QVERIFY2(data::previewClips(c, data::Split::Train, 1, 2, 4, preview, &error),
             error.c_str());  // positions 2 .. 5
    QCOMPARE(preview.size(), static_cast<std::size_t>(4 * copies));
    const std::size_t fastSize = params.fastSize(data::Split::Train);
    augmentedClips_ = erasedClips_ = 0;
    for (const auto& p : preview) {
      // Position p of the epoch is clip (p % 4) x copies + copy of batch p / 4.
      const auto& b = batches[static_cast<std::size_t>(p.position / 4)];
      const std::size_t j = static_cast<std::size_t>(p.position % 4 * copies + p.copy);
      QCOMPARE(p.label, b.labels[j]);
      QCOMPARE(p.info.frame_indices, b.info[j].frame_indices);
      QVERIFY(p.info.region == b.info[j].region);
      QCOMPARE(p.info.flipped, b.info[j].flipped);
      QVERIFY(p.info.augment_ops == b.info[j].augment_ops);  // the same ops with the same arguments
      QVERIFY(p.info.erased_boxes == b.info[j].erased_boxes);
      augmentedClips_ += !p.info.augment_ops.empty();
      erasedClips_ += !p.info.erased_boxes.empty();
      for (const auto& box : p.info.erased_boxes)
        QVERIFY(box.top >= 0 && box.left >= 0 && box.top + box.height <= p.crop &&
                box.left + box.width <= p.crop);
      const auto pixels =
          data::denormalise(b.fast.data() + j * fastSize, b.frames, b.height, b.width, params);
      QVERIFY(pixels == p.fast);
      QCOMPARE(static_cast<int>(p.full.size()), p.info.decoded.height * p.info.decoded.width * 3);
      QVERIFY(p.info.region.x >= 0 &&
              p.info.region.x + p.info.region.width <= p.info.decoded.width);
    }
  }

 private slots:
  void initTestCase() {
    QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str());
    data_ = demo_.dataDir();
  }

  void previewIsTheLoadersClip() {
    sameAsTheLoader(demo());
    QCOMPARE(augmentedClips_ + erasedClips_, 0);  // the plain recipe neither augments nor erases
  }

  // The MViT recipe's path: relative crops, RandAugment, erasing, two copies per video.
  void previewIsTheLoadersAugmentedClip() {
    sameAsTheLoader(demo({"DATA.TRAIN_JITTER_SCALES_RELATIVE", "[0.08, 1.0]",
                          "DATA.TRAIN_JITTER_ASPECT_RELATIVE", "[0.75, 1.3333]", "AUG.ENABLE",
                          "True", "AUG.NUM_SAMPLE", "2", "AUG.AA_TYPE", "rand-m7-n4-mstd0.5-inc1",
                          "AUG.RE_PROB", "0.5"}));
    // Of these 8 clips (seeded), some got RandAugment ops and some an erased box, so the
    // comparisons above saw real lists.
    QVERIFY(augmentedClips_ > 0);
    QVERIFY(erasedClips_ > 0);
  }

  // Normalisation undone exactly: every byte value of every channel comes back, both channel
  // orders. A multigrid run trains each long-cycle phase at its own shape: the preview of an epoch
  // shows the clips the phase's loader gives, and says which phase; the test split has the full
  // shape.
  void aMultigridEpochHasItsPhasesShape() {
    const auto c = demo({"MULTIGRID.LONG_CYCLE", "True", "SOLVER.STEPS", "[0, 6]"});
    const auto schedule = multigrid::buildSchedule(c);
    const auto& phase = multigrid::phaseAtEpoch(schedule, 0);
    QCOMPARE(phase.t, std::int64_t{2});   // round(8 x 0.25)
    QCOMPARE(phase.s, std::int64_t{45});  // round(64 x sqrt(0.5))
    std::vector<data::PreviewClip> preview;
    std::string error;
    QVERIFY2(data::previewClips(c, data::Split::Train, 0, 0, 2, preview, &error), error.c_str());
    QCOMPARE(preview.size(), std::size_t{2});
    QCOMPARE(preview.front().frames, 2);
    QCOMPARE(preview.front().crop, 45);
    QVERIFY2(preview.front().shape.rfind("multigrid phase 1/", 0) == 0,
             preview.front().shape.c_str());
    // The phase's own loader (in batches of 4: the draws depend on the position only).
    auto pc = multigrid::phaseConfig(c, schedule, phase, 1);
    QVERIFY(!pc.set("TRAIN.BATCH_SIZE", config::Value(4)));
    const auto batches = trainingBatches(pc, 0);
    const auto params = data::ClipParams::fromConfig(pc);
    for (const auto& p : preview) {
      const std::size_t j = static_cast<std::size_t>(p.position);
      QCOMPARE(p.info.frame_indices, batches[0].info[j].frame_indices);
      QVERIFY(data::denormalise(batches[0].fast.data() + j * params.fastSize(data::Split::Train),
                                batches[0].frames, batches[0].height, batches[0].width,
                                params) == p.fast);
    }
    QVERIFY2(data::previewClips(c, data::Split::Test, 0, 0, 1, preview, &error), error.c_str());
    QCOMPARE(preview.front().frames, 8);
    QVERIFY(preview.front().shape.empty());
  }

  // The label's class name from DEMO.LABEL_FILE_PATH (the demo dataset's classes.txt, one name a
  // line), as predict shows it; none where the file is not there.
  void labelsAreNamedFromTheLabelFile() {
    std::ifstream in(data_ + "/classes.txt");
    std::vector<std::string> classes;
    for (std::string line; std::getline(in, line);) classes.push_back(line);
    QCOMPARE(classes.size(), std::size_t{8});
    std::vector<data::PreviewClip> preview;
    std::string error;
    QVERIFY2(data::previewClips(demo({"DEMO.LABEL_FILE_PATH", data_ + "/classes.txt"}),
                                data::Split::Train, 0, 0, 3, preview, &error),
             error.c_str());
    for (const auto& p : preview)
      QCOMPARE(p.label_name, classes[static_cast<std::size_t>(p.label)]);
    QVERIFY2(data::previewClips(demo({"DEMO.LABEL_FILE_PATH", data_ + "/no-such-file.txt"}),
                                data::Split::Train, 0, 0, 1, preview, &error),
             error.c_str());
    QVERIFY(preview.front().label_name.empty());
  }

  void denormaliseInvertsTheNormalisation() {
    for (const bool reverse : {false, true}) {
      data::ClipParams p;
      p.mean = {0.45f, 0.40f, 0.35f};
      p.std = {0.225f, 0.25f, 0.2f};
      p.reverse_channels = reverse;
      const int n = 256;  // one frame of 1 x 256 pixels
      std::vector<float> clip(3 * n);
      for (int c = 0; c < 3; ++c)
        for (int x = 0; x < n; ++x) {
          const int src = reverse ? 2 - c : c;  // as ClipSampler writes the model's channel c
          const int value = (x + 85 * src) % 256;
          clip[static_cast<std::size_t>(c * n + x)] =
              static_cast<float>(value) * (1.0f / (255.0f * p.std[src])) - p.mean[src] / p.std[src];
        }
      const auto rgb = data::denormalise(clip.data(), 1, 1, n, p);
      for (int x = 0; x < n; ++x)
        for (int ch = 0; ch < 3; ++ch)
          QCOMPARE(static_cast<int>(rgb[static_cast<std::size_t>(x * 3 + ch)]),
                   (x + 85 * ch) % 256);
    }
  }

  void contactSheetLayout() {
    data::PreviewClip c;
    c.frames = 4;
    c.slow_frames = 1;
    c.crop = 8;
    c.info.decoded = {10, 12};
    c.info.region = {1, 2, 8, 8};
    c.full.assign(10 * 12 * 3, 100);
    c.fast.assign(4 * 8 * 8 * 3, 0);
    for (std::size_t i = 0; i < c.fast.size(); ++i) c.fast[i] = static_cast<std::uint8_t>(i % 251);
    c.slow.assign(8 * 8 * 3, 200);
    const auto s = data::contactSheet(c);
    QCOMPARE(s.width, 4 * (8 + 4) - 4);  // four frames with 4 px gaps (wider than the full frame)
    QCOMPARE(s.height, 10 + 4 + 8 + 4 + 8);
    auto px = [&](int x, int y) {
      return s.rgb.data() + (static_cast<std::size_t>(y) * s.width + x) * 3;
    };
    QCOMPARE(static_cast<int>(px(2, 1)[1]), 220);  // the region's outline (green: not flipped)
    QCOMPARE(static_cast<int>(px(5, 5)[0]), 100);  // inside it, the frame
    // Fast frame 2, pixel (3, 1), lies at x = 2 * 12 + 3, y = 10 + 4 + 1.
    for (int ch = 0; ch < 3; ++ch)
      QCOMPARE(px(2 * 12 + 3, 15)[ch],
               c.fast[static_cast<std::size_t>(2 * 8 * 8 * 3 + (1 * 8 + 3) * 3 + ch)]);
    QCOMPARE(static_cast<int>(px(0, 10 + 4 + 8 + 4)[0]),
             200);  // the slow frame, under fast frame 0
  }

  void pngFiles() {
    std::vector<std::uint8_t> rgb(5 * 3 * 3);
    for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<std::uint8_t>(i * 7);
    const std::string path = dir_.path().toStdString() + "/sheet.png";
    std::string error;
    QVERIFY2(data::writePng(path, rgb.data(), 5, 3, &error), error.c_str());
    std::string bytes;
    QVERIFY(util::readFile(path, bytes));
    QVERIFY(bytes.size() > 8 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    QVERIFY(bytes.find("IHDR") != std::string::npos && bytes.find("IEND") != std::string::npos);
    QVERIFY(!data::writePng("/proc/no-such-dir/sheet.png", rgb.data(), 5, 3, &error));
    QVERIFY2(error.find("/proc/no-such-dir/sheet.png") != std::string::npos, error.c_str());
    QVERIFY(!data::encodePng(rgb.data(), 0, 3, bytes, &error));
  }

  // An analysis file's mistake (a sample's path) back to its clip: the test's first view of the
  // video, the validation's only clip.
  void aSampleIsFoundByItsPath() {
    const config::Config c = demo({"TEST.NUM_ENSEMBLE_VIEWS", "2", "TEST.NUM_SPATIAL_CROPS", "3"});
    data::SampleList list;
    std::string error;
    QVERIFY2(data::readSampleList(c, data::Split::Test, list, &error), error.c_str());
    QVERIFY(list.videos.size() >= 3);
    const std::string third = list.videos[2].path;
    QCOMPARE(data::previewPosition(c, data::Split::Test, third, &error), 2 * 6);
    std::vector<data::PreviewClip> out;
    QVERIFY2(data::previewClips(c, data::Split::Test, 0, 12, 1, out, &error), error.c_str());
    QCOMPARE(out.front().path, third);
    QCOMPARE(out.front().view, 0);
    QVERIFY2(data::readSampleList(c, data::Split::Val, list, &error), error.c_str());
    QCOMPARE(data::previewPosition(c, data::Split::Val, list.videos[1].path, &error), 1);
    QCOMPARE(data::previewPosition(c, data::Split::Val, "gone.mp4", &error), -1);
    QVERIFY2(error.find("val.csv does not list 'gone.mp4'") != std::string::npos, error.c_str());
    QCOMPARE(data::previewPosition(c, data::Split::Train, third, &error), -1);
    QVERIFY2(error.find("shuffled") != std::string::npos, error.c_str());
  }

  void aClipOutsideTheEpochIsNamed() {
    std::vector<data::PreviewClip> out;
    std::string error;
    QVERIFY(!data::previewClips(demo(), data::Split::Train, 0, 16, 1, out, &error));
    QVERIFY2(error.find("train.csv: clip 16 is outside the train epoch's 16 clips (0 .. 15)") !=
                 std::string::npos,
             error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestClipPreview)
#include "tst_clippreview.moc"
