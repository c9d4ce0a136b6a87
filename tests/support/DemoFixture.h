#pragma once
// The demo data set and config the suites train and drive their panels with: a small generated
// video data set (one clip a class by default, 24 frames) in a temporary folder and
// configs/demo/DEMO_X3D_TINY.yaml pointed at it, plus a one-epoch run of it for the suites that
// need a run with a checkpoint. One fixture, so every suite gets the same data and the same
// error message when generating or loading it fails.
//
//   QTemporaryDir dir_;
//   amp::testsupport::DemoFixture demo_{{"TRAIN.BATCH_SIZE", "2"}};   // the suite's overrides
//   void initTestCase() { QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str()); }
//   std::optional<amp::config::Config> cfg = demo_.config({"X3D.DIM_C5", "256"});
//   const QString why = demo_.trainRun(dir_.path() + "/run");   // "" once it finished
#include <QString>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "configfile/ConfigLoader.h"
#include "data/DemoDataGenerator.h"
#include "support/Configs.h"
#include "train/Trainer.h"

namespace amp::testsupport {

class DemoFixture {
 public:
  /// `overrides` (key, value, key, value ...) apply to every config() of this suite;
  /// `clipsPerClass` training clips of each of the 8 classes are generated.
  explicit DemoFixture(std::vector<std::string> overrides = {}, int clipsPerClass = 1)
      : overrides_(std::move(overrides)), clipsPerClass_(clipsPerClass) {}

  /// Generates the data set in `dir`/data. False with error() when it cannot.
  bool generate(const QString& dir) {
    data_ = dir.toStdString() + "/data";
    data::DemoDataOptions o;
    o.out_dir = data_;
    o.clips_per_class = clipsPerClass_;
    o.frames = 24;
    data::DemoDataSummary summary;
    return data::generateDemoData(o, summary, &error_);
  }
  const std::string& error() const { return error_; }
  /// The data set's folder (its CSVs, classes.txt and videos).
  const std::string& dataDir() const { return data_; }

  /// DEMO_X3D_TINY.yaml on the data set with the suite's overrides, then `extra`; nullopt when it
  /// does not load (a test checks it).
  std::optional<config::Config> config(const std::vector<std::string>& extra = {}) const {
    auto r = config::ConfigLoader().loadFile(repoConfig("demo/DEMO_X3D_TINY.yaml"), with(extra));
    if (!r.ok()) return std::nullopt;
    return r.config;
  }
  /// config(), for suites whose every test needs it: qFatal with the diagnostics when it does not
  /// load (the suite's own overrides are wrong).
  config::Config configOrDie(const std::vector<std::string>& extra = {}) const {
    return loadConfigOrDie(repoConfig("demo/DEMO_X3D_TINY.yaml"), with(extra));
  }

  /// Trains one epoch into `runDir` (no test pass), so that it has a config.yaml and a
  /// checkpoint; "" once it finished, else why not.
  QString trainRun(const QString& runDir, const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> ov = {"OUTPUT_DIR", runDir.toStdString(), "SOLVER.MAX_EPOCH",
                                   "1",          "TEST.ENABLE",        "False"};
    ov.insert(ov.end(), extra.begin(), extra.end());
    const auto cfg = config(ov);
    if (!cfg) return QStringLiteral("the demo config does not load");
    train::Trainer t(*cfg, "demo.yaml");
    std::string error;
    if (!t.start(&error)) return QString::fromStdString(error);
    t.wait();
    if (t.state() != train::TrainerState::Finished)
      return QStringLiteral("the demo run ended %1").arg(train::toString(t.state()));
    return {};
  }

 private:
  // The data set's folder, the suite's overrides, then `extra`.
  std::vector<std::string> with(const std::vector<std::string>& extra) const {
    return joined(joined({"DATA.PATH_TO_DATA_DIR", data_, "DATA.PATH_PREFIX", data_}, overrides_),
                  extra);
  }

  std::vector<std::string> overrides_;
  int clipsPerClass_;
  std::string data_;
  std::string error_;
};

}  // namespace amp::testsupport
