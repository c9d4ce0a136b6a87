// The seam where batches become tensors: a loader batch as the model's inputs, and the endless
// BatchSource the audit and the benchmarks read (epochs cycled, random clips of the config's
// shape, errors named).
#include <QtTest>

#include <QTemporaryDir>

#include "data/Dataset.h"
#include "data/KineticsCsv.h"
#include "data/VideoLoader.h"
#include "train/BatchSource.h"
#include "train/MicroBatch.h"

#include "support/DemoFixture.h"

using namespace amp;

class TestBatchSource : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  testsupport::DemoFixture demo_{{"DATA_LOADER.NUM_WORKERS", "1"}};  // 8 training clips
  std::string data_;                                                 ///< the data set's folder

  config::Config demo(const std::vector<std::string>& extra = {}) const {
    return demo_.configOrDie(extra);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str());
    data_ = demo_.dataDir();
  }

  void aLoaderBatchBecomesTheModelsInputs() {
    const auto cfg = demo();
    data::SampleList list;
    std::string error;
    QVERIFY2(data::readKineticsList(data_, "train", cfg.getString("DATA.PATH_LABEL_SEPARATOR"),
                                    data_, 0, list, &error),
             error.c_str());
    auto options = data::LoaderOptions::fromConfig(cfg, data::Split::Train);
    options.batch_size = 2;
    data::VideoLoader loader(std::move(list), data::ClipParams::fromConfig(cfg), data::Split::Train,
                             options);
    loader.startEpoch(0);
    auto b = loader.next();
    QVERIFY2(b, loader.error().c_str());
    const std::vector<float> firstValues(b->fast.begin(), b->fast.begin() + 4);
    const auto mb = train::toMicroBatch(*b, torch::kCPU, /*channelsLast=*/false);
    QCOMPARE(mb.inputs.size(), std::size_t{1});  // X3D: one pathway
    QCOMPARE(mb.inputs[0].sizes().vec(),
             (std::vector<std::int64_t>{b->size, b->channels, b->frames, b->height, b->width}));
    QCOMPARE(mb.labels.scalar_type(), torch::kLong);
    QCOMPARE(mb.labels.size(0), std::int64_t{b->size});
    for (int i = 0; i < b->size; ++i)
      QCOMPARE(mb.labels[i].item<std::int64_t>(), std::int64_t{b->labels[static_cast<size_t>(i)]});
    // A copy: the batch's buffers go back to the loader and are overwritten, the tensors stay.
    std::fill(b->fast.begin(), b->fast.end(), -7.0f);
    for (std::size_t i = 0; i < firstValues.size(); ++i)
      QCOMPARE(mb.inputs[0].flatten()[static_cast<std::int64_t>(i)].item<float>(), firstValues[i]);
    loader.stop();
  }

  void cyclesEpochsWithoutEnd() {
    std::string error;
    auto source = train::BatchSource::open(demo(), 4, torch::kCPU, false, /*random=*/false, &error);
    QVERIFY2(source, error.c_str());
    QVERIFY(!source->random());
    QCOMPARE(source->batchesPerEpoch(), std::size_t{2});  // 8 clips in batches of 4
    for (int i = 0; i < 5; ++i) {                         // two and a half epochs
      const auto mb = source->next();
      QCOMPARE(mb.inputs[0].size(0), std::int64_t{4});
      QCOMPARE(mb.labels.size(0), std::int64_t{4});
    }
    source->stop();
    QVERIFY_THROWS_EXCEPTION(std::logic_error, source->next());
  }

  void randomClipsHaveTheConfigsShape() {
    std::string error;
    auto source = train::BatchSource::open(demo({"DATA.NUM_FRAMES", "4", "DATA.TRAIN_CROP_SIZE",
                                                 "32", "DATA.PATH_TO_DATA_DIR", "/nonexistent"}),
                                           3, torch::kCPU, false, /*random=*/true, &error);
    QVERIFY2(source, error.c_str());  // no list is read for random clips
    QVERIFY(source->random());
    QCOMPARE(source->batchesPerEpoch(), std::size_t{1});
    const auto mb = source->next();
    QCOMPARE(mb.inputs[0].sizes().vec(), (std::vector<std::int64_t>{3, 3, 4, 32, 32}));
    QVERIFY((mb.labels >= 0).all().item<bool>());
    QVERIFY((mb.labels < demo().getInt("MODEL.NUM_CLASSES")).all().item<bool>());
  }

  void refusalsAreNamed() {
    std::string error;
    QVERIFY(!train::BatchSource::open(demo({"DATA.PATH_TO_DATA_DIR", dir_.path().toStdString()}), 4,
                                      torch::kCPU, false, false, &error));
    QVERIFY2(error.find("train.csv") != std::string::npos, error.c_str());
    error.clear();
    QVERIFY(!train::BatchSource::open(demo(), 9, torch::kCPU, false, false, &error));
    QCOMPARE(error, std::string("--batch: 9 clips is more than the training set holds"));
  }
};

QTEST_GUILESS_MAIN(TestBatchSource)
#include "tst_batchsource.moc"
