// AVA behind the dataset seam and through the loader, on the AVA-format demo data: one sample per
// keyframe, batches as PySlowFast's detection_collate makes them (boxes with their clip's index,
// per-box multi-hot targets, the boxes as read, (video, second) rows), the ground truth in
// training and the scored detections in validation, the seeding, rank split and decode-failure
// policy of the other datasets.
#include <QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config/Config.h"
#include "data/AvaClips.h"
#include "data/AvaDataset.h"
#include "data/Dataset.h"
#include "data/DemoDataGenerator.h"
#include "data/JpegFrames.h"
#include "data/VideoLoader.h"
#include "support/AvaDemo.h"
#include "support/Configs.h"

using namespace amp;
using namespace amp::data;
namespace fs = std::filesystem;

namespace {

// One row of a box list: video, second, the box as written, its action (-1: none), its score.
struct CsvBox {
  std::string video;
  int second = 0;
  std::array<float, 4> box{};
  int action = -1;
  double score = 1;
};

std::vector<CsvBox> readCsv(const std::string& path, bool predicted) {
  std::vector<CsvBox> rows;
  for (const auto& cells : testsupport::csvCells(path)) {
    CsvBox r;
    r.video = cells.at(0);
    r.second = std::stoi(cells.at(1));
    for (int i = 0; i < 4; ++i)
      r.box[static_cast<size_t>(i)] = static_cast<float>(std::stod(cells.at(2 + i)));
    r.action = cells.at(6).empty() ? -1 : std::stoi(cells.at(6));
    if (predicted) r.score = std::stod(cells.at(7));
    rows.push_back(r);
  }
  return rows;
}

std::vector<Batch> drain(VideoLoader& loader, int epoch) {
  loader.startEpoch(epoch);
  std::vector<Batch> out;
  while (auto b = loader.next()) out.push_back(std::move(*b));
  return out;
}

LoaderOptions evalOptions(int batch) {
  LoaderOptions o;
  o.batch_size = batch;
  o.shuffle = false;
  o.drop_last = false;
  o.workers = 0;
  o.num_classes = 8;
  return o;
}

}  // namespace

class TestAvaLoader : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string demo_;

  config::Config config(std::vector<std::string> more = {}) {
    // The demo X3D's loader settings on the AVA demo data: the loader does not build a model.
    std::vector<std::string> o = testsupport::avaDemoOverrides(demo_);
    o.insert(o.end(), more.begin(), more.end());
    return testsupport::loadConfigOrDie(testsupport::repoConfig("demo/DEMO_X3D_TINY.yaml"), o);
  }

  SampleList samples(const config::Config& c, Split split) {
    SampleList list;
    std::string error;
    if (!readSampleList(c, split, list, &error)) qFatal("%s", error.c_str());
    return list;
  }

  std::unique_ptr<VideoLoader> loader(const config::Config& c, Split split, LoaderOptions o) {
    return std::make_unique<VideoLoader>(samples(c, split), ClipParams::fromConfig(c), split, o);
  }

  // Every box of `batches` against the CSV rows it came from: its normalised box is a row's as
  // written, its (video, second) the row's, its targets the actions of that person's rows.
  void checkAgainstCsv(const std::vector<Batch>& batches, const SampleList& list,
                       const std::vector<CsvBox>& rows, std::size_t* boxesSeen) {
    for (const Batch& b : batches) {
      QCOMPARE(b.boxes.size(), static_cast<size_t>(b.num_boxes) * 5);
      QCOMPARE(b.ori_boxes.size(), static_cast<size_t>(b.num_boxes) * 4);
      QCOMPARE(b.box_meta.size(), static_cast<size_t>(b.num_boxes) * 2);
      QCOMPARE(b.box_targets.size(), static_cast<size_t>(b.num_boxes) * 8);
      QCOMPARE(b.num_classes, 8);
      QVERIFY(b.targets.empty());  // AVA's targets are per box
      QCOMPARE(b.fast.size(), static_cast<size_t>(b.size) * 3 * 8 * b.height * b.width);
      std::vector<int> perClip(static_cast<size_t>(b.size), 0);
      for (int i = 0; i < b.num_boxes; ++i) {
        const float* box = &b.boxes[static_cast<size_t>(i) * 5];
        const int clip = static_cast<int>(box[0]);
        QCOMPARE(box[0], static_cast<float>(clip));
        QVERIFY(clip >= 0 && clip < b.size);
        QVERIFY(i == 0 || clip >= static_cast<int>(b.boxes[static_cast<size_t>(i - 1) * 5]));
        ++perClip[static_cast<size_t>(clip)];
        // Inside the clip (clip_boxes_to_image: 0 .. side - 1) and not inverted.
        QVERIFY(box[1] >= 0 && box[3] <= b.width - 1 && box[1] <= box[3]);
        QVERIFY(box[2] >= 0 && box[4] <= b.height - 1 && box[2] <= box[4]);
        const float* ori = &b.ori_boxes[static_cast<size_t>(i) * 4];
        const std::int64_t video = b.box_meta[static_cast<size_t>(i) * 2],
                           second = b.box_meta[static_cast<size_t>(i) * 2 + 1];
        QVERIFY(video >= 0 && video < static_cast<std::int64_t>(list.ava->videos.size()));
        const std::string& name = list.ava->videos[static_cast<size_t>(video)].name;
        // The clip is its keyframe's: same video and second.
        const Sample& s = list.videos[static_cast<size_t>(b.videos[static_cast<size_t>(clip)])];
        QCOMPARE(s.name, name);
        QCOMPARE(list.ava->keyframes[static_cast<size_t>(s.keyframe)].second,
                 static_cast<int>(second));
        std::set<int> actions;
        bool found = false;
        for (const CsvBox& r : rows)
          if (r.video == name && r.second == second &&
              std::equal(r.box.begin(), r.box.end(), ori)) {
            found = true;
            if (r.action > 0) actions.insert(r.action);
          }
        QVERIFY2(found, qPrintable(QString("box %1 of %2 second %3 is in no CSV row")
                                       .arg(i)
                                       .arg(name.c_str())
                                       .arg(second)));
        for (int k = 1; k <= 8; ++k)
          QCOMPARE(b.box_targets[static_cast<size_t>(i) * 8 + static_cast<size_t>(k - 1)],
                   actions.count(k) ? 1.0f : 0.0f);
        // The pixel box is the normalised one through the scale and crop the clip reports.
        const ClipInfo& info = b.info[static_cast<size_t>(clip)];
        const double x1 = ori[0] * info.decoded.width - info.region.x,
                     y2 = ori[3] * info.decoded.height - info.region.y;
        QVERIFY(std::abs(std::clamp(x1, 0.0, b.width - 1.0) - box[1]) < 1.0);
        QVERIFY(std::abs(std::clamp(y2, 0.0, b.height - 1.0) - box[4]) < 1.0);
      }
      for (const int n : perClip) QVERIFY(n >= 1);  // no keyframe without boxes
      *boxesSeen += static_cast<size_t>(b.num_boxes);
    }
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    demo_ = dir_.path().toStdString() + "/ava";
    DemoDataOptions o;
    o.out_dir = demo_;
    o.format = DemoFormat::Ava;
    o.clips_per_class = 3;  // 6 training videos, 2 validation videos
    o.threads = 2;
    DemoDataSummary summary;
    std::string error;
    QVERIFY2(generateDemoData(o, summary, &error), error.c_str());
  }

  void oneSamplePerKeyframe() {
    const auto c = config();
    const SampleList train = samples(c, Split::Train);
    QCOMPARE(train.kind, DatasetKind::Ava);
    QVERIFY(train.multi_label);
    QVERIFY(train.ava);
    // The keyframes are the (video, second) pairs of the ground truth.
    std::set<std::pair<std::string, int>> pairs;
    for (const CsvBox& r : readCsv(demo_ + "/annotations/ava_train_v2.2.csv", false))
      pairs.insert({r.video, r.second});
    QCOMPARE(train.videos.size(), pairs.size());
    QCOMPARE(train.ava->keyframes.size(), pairs.size());
    for (std::size_t i = 0; i < train.videos.size(); ++i) {
      const Sample& s = train.videos[i];
      QCOMPARE(s.keyframe, static_cast<int>(i));
      QVERIFY(s.frames.empty());  // the frames stay in the shared dataset
      const AvaKeyframe& k = train.ava->keyframes[i];
      QVERIFY(!k.boxes.empty());
      QCOMPARE(s.name, train.ava->videos[static_cast<size_t>(k.video)].name);
      QCOMPARE(s.path, train.ava->videos[static_cast<size_t>(k.video)]
                           .frames[static_cast<size_t>(k.center_frame)]);
      QVERIFY(pairs.count({s.name, k.second}));
    }
    // Validation: the detections scoring 0.9 or more, every 4th second (902-904 leaves 904).
    const SampleList val = samples(c, Split::Val);
    std::set<std::pair<std::string, int>> detected;
    for (const CsvBox& r : readCsv(demo_ + "/annotations/ava_val_predicted_boxes.csv", true))
      if (r.score >= 0.9 && r.second % 4 == 0) detected.insert({r.video, r.second});
    QCOMPARE(val.videos.size(), detected.size());
    QCOMPARE(samples(config({"AVA.FULL_TEST_ON_VAL", "True"}), Split::Val).videos.size(),
             val.videos.size() * 3);
  }

  // get_keyframe_data keeps only the seconds with boxes: a second whose only detection scores
  // under AVA.DETECTION_SCORE_THRESH is no sample; one that passes it is.
  void keyframesWithoutBoxesAreDropped() {
    const auto base = samples(config(), Split::Train);
    const std::string v0 = base.ava->videos[0].name, v1 = base.ava->videos[1].name;
    std::ofstream(demo_ + "/annotations/extra_predicted.csv")
        << v0 << ",0905,0.1,0.1,0.5,0.5,,0.95\n"
        << v1 << ",0905,0.1,0.1,0.5,0.5,,0.5\n";
    const auto more =
        samples(config({"AVA.TRAIN_PREDICT_BOX_LISTS", "['extra_predicted.csv']"}), Split::Train);
    QCOMPARE(more.videos.size(), base.videos.size() + 1);
    int at905 = 0;
    for (const AvaKeyframe& k : more.ava->keyframes) {
      QVERIFY(!k.boxes.empty());
      if (k.second == 905) {
        ++at905;
        QCOMPARE(more.ava->videos[static_cast<size_t>(k.video)].name, v0);
      }
    }
    QCOMPARE(at905, 1);
  }

  void trainBatchesFollowTheGroundTruth() {
    const auto c = config();
    const SampleList list = samples(c, Split::Train);
    LoaderOptions o = LoaderOptions::fromConfig(c, Split::Train);
    o.batch_size = 4;
    o.workers = 2;
    o.seed = 5;
    VideoLoader loader(list, ClipParams::fromConfig(c), Split::Train, o);
    QCOMPARE(loader.samplesPerEpoch(), list.videos.size());
    QCOMPARE(loader.batchesPerEpoch(), list.videos.size() / 4);  // drop_last
    const auto batches = drain(loader, 0);
    QCOMPARE(batches.size(), list.videos.size() / 4);
    std::size_t boxes = 0;
    std::set<int> used;
    for (const Batch& b : batches) {
      QCOMPARE(b.size, 4);
      QCOMPARE(b.height, 64);  // DATA.TRAIN_CROP_SIZE
      QCOMPARE(b.width, 64);
      QCOMPARE(b.frames, 8);
      QVERIFY(b.slow.empty());  // X3D: one pathway
      QCOMPARE(b.replaced, 0);
      used.insert(b.videos.begin(), b.videos.end());
    }
    QCOMPARE(used.size(), batches.size() * 4);  // shuffled without repeats
    checkAgainstCsv(batches, list, readCsv(demo_ + "/annotations/ava_train_v2.2.csv", false),
                    &boxes);
    QVERIFY(boxes >= batches.size() * 4);
  }

  void valBatchesAreTheDetections() {
    const auto c = config({"AVA.FULL_TEST_ON_VAL", "True"});
    const SampleList list = samples(c, Split::Val);
    VideoLoader loader(list, ClipParams::fromConfig(c), Split::Val, evalOptions(4));
    const auto batches = drain(loader, 0);
    QCOMPARE(batches.size(), (list.videos.size() + 3) / 4);  // no drop_last
    std::vector<int> order;
    for (const Batch& b : batches) {
      QCOMPARE(b.height, 64);  // short side to TEST_CROP_SIZE, then its centre crop
      QCOMPARE(b.width, 64);
      order.insert(order.end(), b.videos.begin(), b.videos.end());
    }
    std::vector<int> all(list.videos.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    QCOMPARE(order, all);  // in order, each once
    std::vector<CsvBox> kept;
    for (const CsvBox& r : readCsv(demo_ + "/annotations/ava_val_predicted_boxes.csv", true))
      if (r.score >= 0.9) kept.push_back(r);
    std::size_t boxes = 0;
    checkAgainstCsv(batches, list, kept, &boxes);
    QCOMPARE(boxes, kept.size());   // every detection over the threshold, none under it
    for (const Batch& b : batches)  // detections carry no actions: all-zero rows
      QVERIFY(
          std::all_of(b.box_targets.begin(), b.box_targets.end(), [](float v) { return v == 0; }));
  }

  void testHasOneViewPerKeyframe() {
    const auto c = config({"TEST.NUM_ENSEMBLE_VIEWS", "3", "TEST.NUM_SPATIAL_CROPS", "3"});
    const SampleList list = samples(c, Split::Test);
    QCOMPARE(ClipParams::fromConfig(c).viewsPerTestVideo(), 1);
    VideoLoader loader(list, ClipParams::fromConfig(c), Split::Test, evalOptions(2));
    QCOMPARE(loader.samplesPerEpoch(), list.videos.size());
    const auto batches = drain(loader, 0);
    std::size_t clips = 0;
    for (const Batch& b : batches) {
      clips += static_cast<size_t>(b.size);
      QVERIFY(std::all_of(b.views.begin(), b.views.end(), [](int v) { return v == 0; }));
    }
    QCOMPARE(clips, list.videos.size());
  }

  void slowFastGetsBothPathways() {
    const auto c = config();
    ClipParams p = ClipParams::fromConfig(c);
    p.slowfast_alpha = 4;
    VideoLoader loader(samples(c, Split::Val), p, Split::Val, evalOptions(1));
    const auto batches = drain(loader, 0);
    QVERIFY(!batches.empty());
    const Batch& b = batches.front();
    QCOMPARE(b.slow_frames, 2);  // linspace(0, 7, 2): frames 0 and 7 of the fast pathway
    const std::size_t plane = static_cast<size_t>(b.height) * b.width;
    for (std::size_t ch = 0; ch < 3; ++ch)
      for (std::size_t t = 0; t < 2; ++t) {
        const std::size_t fastT = t == 0 ? 0 : 7;
        QVERIFY(std::equal(b.slow.begin() + static_cast<long>((ch * 2 + t) * plane),
                           b.slow.begin() + static_cast<long>((ch * 2 + t + 1) * plane),
                           b.fast.begin() + static_cast<long>((ch * 8 + fastT) * plane)));
      }
  }

  void theSeedDecides() {
    const auto c = config({"DATA.RANDOM_FLIP", "True"});
    auto run = [&](std::uint64_t seed, int workers) {
      LoaderOptions o = LoaderOptions::fromConfig(c, Split::Train);
      o.batch_size = 3;
      o.seed = seed;
      o.workers = workers;
      return drain(*loader(c, Split::Train, o), 1);
    };
    const auto a = run(11, 0), b = run(11, 2), other = run(12, 0);
    QCOMPARE(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      QVERIFY(a[i].fast == b[i].fast);
      QVERIFY(a[i].boxes == b[i].boxes);
      QCOMPARE(a[i].videos, b[i].videos);
    }
    bool differs = false;
    for (std::size_t i = 0; i < a.size(); ++i)
      differs = differs || a[i].videos != other[i].videos || a[i].boxes != other[i].boxes;
    QVERIFY(differs);
  }

  void ranksSplitTheKeyframes() {
    // Evaluation as the other datasets: rank r takes every world-th keyframe, no padding, and a
    // keyframe's clip and boxes are the same whatever the number of ranks.
    const auto c = config({"AVA.FULL_TEST_ON_VAL", "True"});
    const auto one = drain(*loader(c, Split::Val, evalOptions(1)), 0);
    std::multiset<int> seen;
    for (int rank = 0; rank < 2; ++rank) {
      LoaderOptions o = evalOptions(1);
      o.rank = rank;
      o.world_size = 2;
      for (const Batch& b : drain(*loader(c, Split::Val, o), 0)) {
        const int k = b.videos.front();
        QCOMPARE(k % 2, rank);
        seen.insert(k);
        QVERIFY(b.fast == one[static_cast<size_t>(k)].fast);
        QVERIFY(b.boxes == one[static_cast<size_t>(k)].boxes);
      }
    }
    QCOMPARE(seen.size(), one.size());
    QCOMPARE(std::set<int>(seen.begin(), seen.end()).size(), one.size());
  }

  void aMissingFrameIsNamed() {
    const auto c = config();
    SampleList list = samples(c, Split::Test);
    auto broken = std::make_shared<AvaDataset>(*list.ava);
    const AvaKeyframe& k = broken->keyframes.front();
    const std::string missing = dir_.path().toStdString() + "/no-such-frame.jpg";
    broken->videos[static_cast<size_t>(k.video)].frames[static_cast<size_t>(k.center_frame)] =
        missing;
    list.ava = broken;
    {  // test: fatal, naming the frame and the video
      VideoLoader loader(list, ClipParams::fromConfig(c), Split::Test, evalOptions(1));
      loader.startEpoch(0);
      QVERIFY(!loader.next());
      const std::string error = loader.error();
      QVERIFY2(error.find(missing) != std::string::npos, error.c_str());
      QVERIFY2(error.find(list.videos.front().name) != std::string::npos, error.c_str());
    }
    {  // training: replaced by another keyframe and counted, as a broken video is
      LoaderOptions o = LoaderOptions::fromConfig(c, Split::Train);
      o.batch_size = static_cast<int>(list.videos.size());
      o.shuffle = false;
      o.workers = 0;
      VideoLoader loader(list, ClipParams::fromConfig(c), Split::Train, o);
      const auto batches = drain(loader, 0);
      QCOMPARE(batches.size(), size_t(1));
      QVERIFY(batches[0].replaced >= 1);
      QVERIFY(batches[0].videos.front() != 0);
      const auto failures = loader.takeFailures();
      QVERIFY(!failures.empty());
      QVERIFY(failures.front().reason.find(missing) != std::string::npos);
    }
  }

  // The classification path refuses a keyframe: its clip needs its boxes (the preview and other
  // ClipSampler users get an error, not a JPEG opened as a video).
  void clipSamplerRefusesKeyframes() {
    const auto c = config();
    const SampleList list = samples(c, Split::Val);
    ClipSampler sampler(ClipParams::fromConfig(c));
    Clip clip;
    std::string error;
    QVERIFY(!sampler.sample(list.videos.front(), Split::Val, 0, ClipDraws{}, clip, &error));
    QVERIFY2(error.find("AvaClips.h") != std::string::npos, error.c_str());
  }

  void testClipsOfDifferentShapesAreRefused() {
    // A copy of the demo whose first validation video is 112x84: its test clips are 85x64, the
    // other video's 64x64; one batch cannot hold both.
    const std::string wide = dir_.path().toStdString() + "/ava-wide";
    fs::copy(demo_, wide, fs::copy_options::recursive);
    const auto c0 = config();
    const SampleList val0 = samples(c0, Split::Test);
    const std::string first = val0.ava->videos[0].name;
    std::vector<std::uint8_t> px(112 * 84 * 3, 128);
    std::string error;
    for (const auto& f : fs::directory_iterator(wide + "/frames/" + first))
      QVERIFY2(writeJpeg(f.path().string(), px.data(), 112, 84, JpegPixels::Rgb, 90, &error),
               error.c_str());
    const auto c = config({"AVA.FRAME_DIR", wide + "/frames"});
    {
      VideoLoader loader(samples(c, Split::Test), ClipParams::fromConfig(c), Split::Test,
                         evalOptions(8));
      loader.startEpoch(0);
      QVERIFY(!loader.next());
      error = loader.error();
      QVERIFY2(error.find(first) != std::string::npos, error.c_str());
      QVERIFY2(error.find(val0.ava->videos[1].name) != std::string::npos, error.c_str());
      QVERIFY2(error.find("TEST.BATCH_SIZE") != std::string::npos, error.c_str());
    }
    // One clip per batch: each keeps its own shape.
    const auto batches = drain(*loader(c, Split::Test, evalOptions(1)), 0);
    QCOMPARE(batches.front().width, 85);  // 112 x 64 / 84, floored
    QCOMPARE(batches.front().height, 64);
    QCOMPARE(batches.back().width, 64);
  }
};

QTEST_GUILESS_MAIN(TestAvaLoader)
#include "tst_avaloader.moc"
