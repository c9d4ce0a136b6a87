#include <QtTest>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "configfile/ConfigLoader.h"
#include "data/DemoDataGenerator.h"
#include "data/KineticsCsv.h"
#include "data/RandAugment.h"
#include "data/VideoLoader.h"

using namespace amp::data;
namespace fs = std::filesystem;

namespace {

ClipParams demoParams() {
  ClipParams p;
  p.num_frames = 8;
  p.sampling_rate = 2;
  p.target_fps = 15;
  p.jitter_min = 64;
  p.jitter_max = 80;
  p.train_crop = 64;
  p.test_crop = 64;
  p.test_views = 2;
  p.test_crops = 1;
  p.random_flip = false;
  return p;
}

std::vector<Batch> drain(VideoLoader& loader, int epoch) {
  loader.startEpoch(epoch);
  std::vector<Batch> out;
  while (auto b = loader.next()) out.push_back(std::move(*b));
  return out;
}

}  // namespace

class TestVideoLoader : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  SampleList train_;

  SampleList list(const std::string& split) {
    SampleList l;
    std::string error;
    if (!readKineticsList(dir_.path().toStdString(), split, " ", dir_.path().toStdString(), 0, l,
                          &error))
      qFatal("%s", error.c_str());
    return l;
  }

 private slots:
  void initTestCase() {
    DemoDataOptions o;
    o.out_dir = dir_.path().toStdString();
    o.clips_per_class = 2;  // 16 train, 16 val, 16 test clips
    o.frames = 24;
    DemoDataSummary s;
    std::string error;
    QVERIFY2(generateDemoData(o, s, &error), error.c_str());
    train_ = list("train");
  }

  void batchesHaveTheRightShape() {
    LoaderOptions o;
    o.batch_size = 5;
    o.workers = 2;
    VideoLoader loader(train_, demoParams(), Split::Train, o);
    QCOMPARE(loader.batchesPerEpoch(), size_t(3));  // 16 clips, drop last
    const auto batches = drain(loader, 0);
    QCOMPARE(batches.size(), size_t(3));
    for (const auto& b : batches) {
      QCOMPARE(b.size, 5);
      QCOMPARE(b.fast.size(), size_t(5) * 3 * 8 * 64 * 64);
      QCOMPARE(b.labels.size(), size_t(5));
      for (int l : b.labels) QVERIFY(l >= 0 && l < 8);
    }
    QVERIFY(loader.error().empty());
  }

  // Multigrid short cycles (ShortCycleBatchSampler): batch k takes shape k % 3, its clips the
  // epoch's next videos in order, the crop and jitter of that shape; the epoch ends when the
  // next whole batch no longer fits (drop_last). A resume at batch k starts where it started.
  void shortCycleBatchesCycleThroughTheShapes() {
    LoaderOptions o;
    o.batch_size = 2;
    o.workers = 2;
    o.seed = 3;
    o.short_cycle = {{4, 32, 32}, {2, 48, 48}, {3, 64, 64}};
    VideoLoader loader(train_, demoParams(), Split::Train, o);
    QCOMPARE(loader.batchesPerEpoch(),
             size_t(5));  // 4+2+3+4+2 = 15 of 16; the next (3) does not fit
    LoaderOptions plain = o;
    plain.short_cycle.clear();
    plain.batch_size = 16;
    VideoLoader whole(train_, demoParams(), Split::Train, plain);
    const auto all = drain(whole, 0).at(0).videos;  // the epoch's order of videos
    const auto batches = drain(loader, 0);
    const std::vector<int> sizes = {4, 2, 3, 4, 2}, crops = {32, 48, 64, 32, 48};
    QCOMPARE(batches.size(), sizes.size());
    std::vector<int> order;
    for (size_t k = 0; k < batches.size(); ++k) {
      QCOMPARE(batches[k].size, sizes[k]);
      QCOMPARE(batches[k].height, crops[k]);
      QCOMPARE(batches[k].fast.size(), size_t(sizes[k]) * 3 * 8 * crops[k] * crops[k]);
      for (const auto& info : batches[k].info)
        QVERIFY(std::min(info.decoded.height, info.decoded.width) >= crops[k]);
      order.insert(order.end(), batches[k].videos.begin(), batches[k].videos.end());
    }
    QCOMPARE(order, std::vector<int>(all.begin(), all.begin() + 15));
    // Resuming at batch 3 gives batches 3 and 4 again.
    loader.startEpoch(0, 3);
    auto b3 = loader.next();
    QVERIFY(b3);
    QCOMPARE(b3->videos, batches[3].videos);
    QVERIFY(b3->fast == batches[3].fast);
    loader.stop();
    // Without drop_last the last clip makes a sixth, partial batch.
    LoaderOptions keep = o;
    keep.drop_last = false;
    QCOMPARE(VideoLoader(train_, demoParams(), Split::Train, keep).batchesPerEpoch(),
             size_t(6));  // and the partial one
  }

  // Multigrid long cycles: every training clip draws its sampling rate from
  // [DATA.SAMPLING_RATE, MULTIGRID.LONG_CYCLE_SAMPLING_RATE]; the test keeps DATA.SAMPLING_RATE.
  void longCycleClipsDrawTheirSamplingRate() {
    ClipParams p = demoParams();
    p.sampling_rate = 1;
    p.max_sampling_rate = 2;
    QCOMPARE(p.samplingRateFor(-1, Split::Train), 1);
    QCOMPARE(p.samplingRateFor(0.49, Split::Train), 1);
    QCOMPARE(p.samplingRateFor(0.5, Split::Train), 2);
    QCOMPARE(p.samplingRateFor(0.999, Split::Train), 2);
    QCOMPARE(p.samplingRateFor(0.999, Split::Test), 1);
    LoaderOptions o;
    o.batch_size = 16;
    o.workers = 1;
    VideoLoader loader(train_, p, Split::Train, o);
    std::set<std::int64_t> spans;
    for (int epoch = 0; epoch < 2; ++epoch)
      for (const auto& b : drain(loader, epoch))
        for (const auto& info : b.info)
          spans.insert(info.frame_indices.back() - info.frame_indices.front());
    // 8 frames over 8 source frames (rate 1) or 16 (rate 2) of the 15 fps demo clips.
    QVERIFY(*spans.begin() <= 7 && *spans.rbegin() >= 14);
    for (auto span : spans)
      QVERIFY2((span >= 6 && span <= 7) || (span >= 14 && span <= 15),
               qPrintable(QString::number(span)));
  }

  // With MULTIGRID.DEFAULT_S, PySlowFast scales the training jitter's minimum with the crop
  // (round(min x crop / DEFAULT_S), halves to even); the test's short side stays
  // TRAIN_JITTER_SCALES[0].
  void multigridScalesTheJitterWithTheCrop() {
    auto r = amp::config::ConfigLoader().loadText(
        "DATA:\n  TRAIN_JITTER_SCALES: [256, 320]\n  TRAIN_CROP_SIZE: 158\nMULTIGRID:\n  "
        "DEFAULT_S: 224\n  LONG_CYCLE_SAMPLING_RATE: 8\n",
        "mg.yaml", ".");
    QVERIFY(r.ok());
    const ClipParams p = ClipParams::fromConfig(r.config);
    QCOMPARE(p.jitter_min, 181);  // 256 x 158 / 224 = 180.57
    QCOMPARE(p.test_jitter_min, 256);
    QCOMPARE(p.jitter_max, 320);
    QCOMPARE(p.max_sampling_rate, 8);
    auto plain =
        amp::config::ConfigLoader().loadText("DATA:\n  TRAIN_CROP_SIZE: 158\n", "p.yaml", ".");
    QCOMPARE(ClipParams::fromConfig(plain.config).jitter_min, 256);
  }

  void sameSeedSameBatchesWhateverTheThreads() {
    LoaderOptions o;
    o.batch_size = 4;
    o.seed = 42;
    o.workers = 0;
    VideoLoader serial(train_, demoParams(), Split::Train, o);
    o.workers = 3;
    VideoLoader parallel(train_, demoParams(), Split::Train, o);
    const auto a = drain(serial, 1), b = drain(parallel, 1);
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      QCOMPARE(a[i].videos, b[i].videos);
      QVERIFY(a[i].fast == b[i].fast);
    }
    // Another epoch shuffles differently; another seed too.
    const auto c = drain(parallel, 2);
    std::vector<int> orderA, orderC;
    for (const auto& x : a) orderA.insert(orderA.end(), x.videos.begin(), x.videos.end());
    for (const auto& x : c) orderC.insert(orderC.end(), x.videos.begin(), x.videos.end());
    QVERIFY(orderA != orderC);
  }

  void repeatedAugmentationGivesCopiesPerVideo() {
    // AUG.NUM_SAMPLE 2 x TRAIN_CROP_NUM_SPATIAL 1: each video of a batch of 4 gives 2 clips side by
    // side (multiple_samples_collate), batches per epoch count videos as before.
    LoaderOptions o;
    o.batch_size = 4;
    o.workers = 2;
    o.seed = 5;
    ClipParams p = demoParams();
    p.random_flip = true;
    p.aug.num_sample = 2;
    VideoLoader loader(train_, p, Split::Train, o);
    QCOMPARE(loader.batchesPerEpoch(), size_t(4));
    QCOMPARE(loader.clipsPerVideo(), 2);
    const auto batches = drain(loader, 0);
    QCOMPARE(batches.size(), size_t(4));
    const size_t clip = size_t(3) * 8 * 64 * 64;
    int differing = 0;
    std::set<int> videos;
    for (const auto& b : batches) {
      QCOMPARE(b.size, 8);
      QCOMPARE(b.copies, 2);
      QCOMPARE(b.fast.size(), size_t(8) * clip);
      QCOMPARE(b.labels.size(), size_t(8));
      QCOMPARE(b.videos.size(), size_t(8));
      QCOMPARE(b.views.size(), size_t(8));
      for (size_t i = 0; i < 8; i += 2) {
        QCOMPARE(b.videos[i], b.videos[i + 1]);
        QCOMPARE(b.labels[i], b.labels[i + 1]);
        QCOMPARE(b.labels[i], train_.videos[static_cast<size_t>(b.videos[i])].label);
        videos.insert(b.videos[i]);
        differing += !std::equal(b.fast.begin() + static_cast<std::ptrdiff_t>(i * clip),
                                 b.fast.begin() + static_cast<std::ptrdiff_t>((i + 1) * clip),
                                 b.fast.begin() + static_cast<std::ptrdiff_t>((i + 1) * clip));
      }
    }
    QCOMPARE(videos.size(), size_t(16));  // every video once, as without copies
    QVERIFY(differing >= 12);             // copies are augmented independently
    // Validation keeps one clip per video.
    VideoLoader val(list("val"), p, Split::Val, o);
    QCOMPARE(val.clipsPerVideo(), 1);
    val.startEpoch(0);
    QCOMPARE(val.next()->size, 4);
  }

  // DATA.TRAIN_CROP_NUM_TEMPORAL 2 x AUG.NUM_SAMPLE 2: 4 clips per video, window by window (clips
  // 0-1 share window 0's frames, 2-3 window 1's), the same for the same seed; the windows' gaps
  // keep CONTRASTIVE.DELTA_CLIPS_MIN / MAX; an impossible bound still gives clips.
  void temporalCropsGiveWindowsOfCopies() {
    QTemporaryDir longDir;  // 64-frame videos: room for two 16-frame windows and a gap
    DemoDataOptions d;
    d.out_dir = longDir.path().toStdString();
    d.clips_per_class = 1;
    d.frames = 64;
    DemoDataSummary summary;
    std::string error;
    QVERIFY2(generateDemoData(d, summary, &error), error.c_str());
    SampleList videos;
    QVERIFY2(readKineticsList(d.out_dir, "train", " ", d.out_dir, 0, videos, &error),
             error.c_str());
    LoaderOptions o;
    o.batch_size = 2;
    o.workers = 2;
    o.seed = 7;
    auto windowsOf = [&](double deltaMin, double deltaMax) {
      ClipParams p = demoParams();
      p.aug.num_sample = 2;
      p.aug.crop_num_temporal = 2;
      p.aug.delta_min = deltaMin;
      p.aug.delta_max = deltaMax;
      VideoLoader loader(videos, p, Split::Train, o);
      if (loader.clipsPerVideo() != 4) qFatal("clips per video %d", loader.clipsPerVideo());
      // Per video: window 0's and window 1's frame indices.
      std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> out;
      for (const auto& b : drain(loader, 0)) {
        if (b.size != 8 || b.copies != 4) qFatal("batch of %d clips, %d copies", b.size, b.copies);
        for (int v = 0; v < 2; ++v) {
          const int base = 4 * v;
          for (int c = 1; c < 4; ++c)
            if (b.labels[base + c] != b.labels[base] || b.videos[base + c] != b.videos[base])
              qFatal("copies of one video differ in label");
          if (b.info[base].frame_indices != b.info[base + 1].frame_indices ||
              b.info[base + 2].frame_indices != b.info[base + 3].frame_indices)
            qFatal("the copies of a window have different frames");
          out.emplace_back(b.info[base].frame_indices, b.info[base + 2].frame_indices);
        }
      }
      return out;
    };
    const double inf = std::numeric_limits<double>::infinity();
    const auto free = windowsOf(-inf, inf);
    QCOMPARE(free.size(), size_t(8));  // 8 videos, 2 per batch
    int different = 0;
    for (const auto& [a, b] : free) different += a != b;
    QVERIFY2(different >= 6, std::to_string(different).c_str());  // each window starts on its own
    QVERIFY(windowsOf(-inf, inf) == free);                        // and the same for the same seed
    // Gaps in time order: the later window's first frame minus the earlier one's last (the
    // indices truncate the float starts, hence the 1-frame slack).
    auto gaps =
        [](const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>& w) {
          std::vector<std::int64_t> g;
          for (auto [a, b] : w) {
            if (b.front() < a.front()) std::swap(a, b);
            g.push_back(b.front() - a.back());
          }
          return g;
        };
    for (auto g : gaps(windowsOf(10, inf))) QVERIFY2(g >= 9, std::to_string(g).c_str());
    for (auto g : gaps(windowsOf(-inf, 0))) QVERIFY2(g <= 1, std::to_string(g).c_str());
    QCOMPARE(windowsOf(1000, inf).size(),
             size_t(8));  // cannot fit in 64 frames: the closest draw, no failure
  }

  void augmentedClipsAreTheSameWhateverTheWorkers() {
    // The MViT recipe (relative crops with motion shift, RandAugment, pixel erasing, 2 copies):
    // every draw is keyed by seed, epoch and position, so 0, 1 and 3 workers agree.
    ClipParams p = demoParams();
    p.random_flip = true;
    p.aug.relative_scale = {0.08, 1.0};
    p.aug.relative_aspect = {0.75, 1.3333};
    p.aug.motion_shift = true;
    p.aug.rand_augment = p.aug.enabled = true;
    std::string error;
    QVERIFY2(parseRandAugment("rand-m7-n4-mstd0.5-inc1", p.aug.policy, &error), error.c_str());
    p.aug.erase = true;
    p.aug.erasing.probability = 1.0;
    p.aug.num_sample = 2;
    LoaderOptions o;
    o.batch_size = 3;
    o.seed = 77;
    std::vector<std::vector<Batch>> runs;
    for (int workers : {0, 1, 3}) {
      o.workers = workers;
      VideoLoader loader(train_, p, Split::Train, o);
      runs.push_back(drain(loader, 2));
      QVERIFY2(loader.error().empty(), loader.error().c_str());
    }
    QCOMPARE(runs[0].size(), size_t(5));
    for (size_t r = 1; r < runs.size(); ++r)
      for (size_t i = 0; i < runs[0].size(); ++i) {
        QCOMPARE(runs[r][i].videos, runs[0][i].videos);
        QVERIFY(runs[r][i].fast == runs[0][i].fast);
      }
    o.seed = 78;
    VideoLoader other(train_, p, Split::Train, o);
    QVERIFY(drain(other, 2)[0].fast != runs[0][0].fast);
  }

  void recycledBuffersGiveTheSameBatches() {
    LoaderOptions o;
    o.batch_size = 4;
    o.seed = 9;
    o.workers = 2;
    VideoLoader plain(train_, demoParams(), Split::Train, o),
        recycling(train_, demoParams(), Split::Train, o);
    const auto expected = drain(plain, 0);
    recycling.startEpoch(0);
    size_t i = 0;
    while (auto b = recycling.next()) {
      QVERIFY(i < expected.size());
      QVERIFY(b->fast == expected[i].fast);
      QCOMPARE(b->videos, expected[i].videos);
      recycling.recycle(std::move(*b));  // its buffers are written again by later batches
      ++i;
    }
    QCOMPARE(i, expected.size());
  }

  void ranksSplitTheEpoch() {
    // Evaluation (no drop-last): 16 clips over 3 ranks, each clip exactly once, no padding.
    std::multiset<int> seen;
    for (int rank = 0; rank < 3; ++rank) {
      LoaderOptions o;
      o.batch_size = 1;
      o.shuffle = false;
      o.drop_last = false;
      o.rank = rank;
      o.world_size = 3;
      o.workers = 1;
      VideoLoader loader(train_, demoParams(), Split::Val, o);
      for (const auto& b : drain(loader, 0)) seen.insert(b.videos[0]);
    }
    QCOMPARE(seen.size(), size_t(16));
    QCOMPARE(std::set<int>(seen.begin(), seen.end()).size(), size_t(16));
  }

  void trainingRanksGetEqualSharesOfEveryClip() {
    // DistributedSampler: 16 shuffled clips padded to 18 by repeating the first two, 6 per rank,
    // so every rank runs the same number of steps; with 2 ranks (divisible) each clip once.
    for (int world : {3, 2}) {
      std::multiset<int> seen;
      std::vector<std::size_t> batches;
      for (int rank = 0; rank < world; ++rank) {
        LoaderOptions o;
        o.batch_size = 2;
        o.rank = rank;
        o.world_size = world;
        o.workers = 1;
        o.seed = 7;
        VideoLoader loader(train_, demoParams(), Split::Train, o);
        const auto got = drain(loader, 1);
        batches.push_back(got.size());
        for (const auto& b : got)
          for (int v : b.videos) seen.insert(v);
      }
      QCOMPARE(std::set<std::size_t>(batches.begin(), batches.end()).size(),
               size_t(1));  // equal on every rank
      QCOMPARE(batches.front(), size_t(world == 3 ? 3 : 4));
      QCOMPARE(std::set<int>(seen.begin(), seen.end()).size(), size_t(16));  // no clip left out
      QCOMPARE(seen.size(), size_t(world == 3 ? 18 : 16));
    }
  }

  void testModeExpandsViews() {
    LoaderOptions o;
    o.batch_size = 4;
    o.shuffle = false;
    o.drop_last = false;
    VideoLoader loader(list("test"), demoParams(), Split::Test, o);
    QCOMPARE(loader.samplesPerEpoch(), size_t(16 * 2));
    const auto batches = drain(loader, 0);
    QCOMPARE(batches.front().videos, (std::vector<int>{0, 0, 1, 1}));
    QCOMPARE(batches.front().views, (std::vector<int>{0, 1, 0, 1}));
  }

  void brokenClipsAreReplacedAndCounted() {
    SampleList l = train_;
    l.videos[3].path = dir_.path().toStdString() + "/missing.mp4";
    l.videos[7].path = std::string(AMPSTUDIO_TEST_DATA_DIR) + "/README.md";  // not a video
    LoaderOptions o;
    o.batch_size = 16;
    o.shuffle = false;
    VideoLoader loader(l, demoParams(), Split::Train, o);
    const auto batches = drain(loader, 0);
    QCOMPARE(batches.size(), size_t(1));
    QVERIFY(batches[0].replaced >= 2);
    QVERIFY(loader.totalFailures() >= 2);
    const auto failures = loader.takeFailures();
    QVERIFY(std::any_of(failures.begin(), failures.end(), [](const DecodeFailure& f) {
      return f.path.find("missing.mp4") != std::string::npos &&
             f.reason.find("does not exist") != std::string::npos;
    }));
    QVERIFY(loader.takeFailures().empty());  // taken once
  }

  void tooManyFailuresStopWithAReason() {
    SampleList l = train_;
    for (auto& v : l.videos) v.path = "/nowhere/" + fs::path(v.path).filename().string();
    LoaderOptions o;
    o.batch_size = 2;
    o.max_failures_in_a_row = 5;
    VideoLoader loader(l, demoParams(), Split::Train, o);
    const auto batches = drain(loader, 0);
    QVERIFY(batches.empty());
    QVERIFY2(loader.error().find("5 clips in a row failed to decode") != std::string::npos,
             loader.error().c_str());
    QVERIFY(loader.error().find("/nowhere/") != std::string::npos);
  }

  void optionsFromTheConfig() {
    auto r = amp::config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml",
        {"DATA_LOADER.ENABLE_MULTI_THREAD_DECODE", "True"});
    QVERIFY(r.ok());
    const auto train = LoaderOptions::fromConfig(r.config, Split::Train, 3, 16);
    QCOMPARE(train.batch_size, 8);  // 64 clips over this machine's 8 GPUs
    QCOMPARE(train.world_size, 16);
    QCOMPARE(train.rank, 3);
    // PySlowFast: the batch is per machine; more machines (NUM_SHARDS) do not shrink it.
    auto two = amp::config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml",
        {"NUM_SHARDS", "2", "SHARD_ID", "1"});
    QVERIFY(two.ok());
    QCOMPARE(LoaderOptions::fromConfig(two.config, Split::Train, 9, 16).batch_size, 8);
    // CPU processes split the batch as GPUs do.
    auto cpu = amp::config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml",
        {"NUM_GPUS", "0", "DIST.CPU_PROCESSES", "4"});
    QVERIFY(cpu.ok());
    QCOMPARE(LoaderOptions::fromConfig(cpu.config, Split::Train, 1, 4).batch_size, 16);
    QCOMPARE(train.workers, 8);
    // DATA.TRAIN_CROP_NUM_TEMPORAL and the gap bounds reach the sampler.
    auto temporal = amp::config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/Kinetics/SLOWFAST_8x8_R50.yaml",
        {"DATA.TRAIN_CROP_NUM_TEMPORAL", "3", "AUG.NUM_SAMPLE", "2", "CONTRASTIVE.DELTA_CLIPS_MIN",
         "4"});
    QVERIFY(temporal.ok());
    const ClipParams tp = ClipParams::fromConfig(temporal.config);
    QCOMPARE(tp.copiesPerVideo(Split::Train), 6);
    QCOMPARE(tp.copiesPerVideo(Split::Val), 1);
    QCOMPARE(tp.aug.delta_min, 4.0);
    QVERIFY(train.shuffle && train.drop_last);
    QCOMPARE(train.decoder.threads, 0);
    const auto test = LoaderOptions::fromConfig(r.config, Split::Test);
    QVERIFY(!test.shuffle && !test.drop_last);
  }

  void testFailureIsAnError() {
    SampleList l = list("test");
    l.videos[0].path = "/nowhere/x.mp4";
    LoaderOptions o;
    o.batch_size = 2;
    o.shuffle = false;
    VideoLoader loader(l, demoParams(), Split::Test, o);
    QVERIFY(drain(loader, 0).empty());
    QVERIFY2(loader.error().find("test.csv:1") != std::string::npos, loader.error().c_str());
  }
};

QTEST_GUILESS_MAIN(TestVideoLoader)
#include "tst_videoloader.moc"
