#pragma once
// The fixture of the Trainer suites (tst_trainer, tst_trainermultigrid, tst_trainerrecipes): the
// demo dataset in a temporary folder, and the tiny demo config that trains on it.
//
//   class TestX : public amp::testsupport::DemoTrainingSuite {
//     Q_OBJECT
//    private slots:
//     void initTestCase() {
//       std::string error;
//       QVERIFY2(makeDemoData(&error), error.c_str());
//     }
//     void trains() { amp::train::Trainer t(demoConfig(dir_.path().toStdString() + "/run"), ...
#include <QObject>
#include <QTemporaryDir>
#include <QtGlobal>
#include <string>
#include <vector>

#include "configfile/ConfigLoader.h"
#include "data/DemoDataGenerator.h"

namespace amp::testsupport {

class DemoTrainingSuite : public QObject {
 protected:
  QTemporaryDir dir_;
  std::string data_;  ///< the demo dataset, once makeDemoData() wrote it

  /// Writes the demo dataset into dir_/data: 2 clips per class (16 train clips: 4 steps of 4),
  /// 24 frames each.
  bool makeDemoData(std::string* error) {
    data_ = dir_.path().toStdString() + "/data";
    data::DemoDataOptions o;
    o.out_dir = data_;
    o.clips_per_class = 2;
    o.frames = 24;
    data::DemoDataSummary s;
    return data::generateDemoData(o, s, error);
  }

  /// DEMO_X3D_TINY on the demo dataset, writing to `out`: batch 4, one epoch, one loader worker,
  /// a small head and a log line per step; `extra` overrides come after these.
  config::Config demoConfig(const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> ov = {"DATA.PATH_TO_DATA_DIR",
                                   data_,
                                   "DATA.PATH_PREFIX",
                                   data_,
                                   "OUTPUT_DIR",
                                   out,
                                   "TRAIN.BATCH_SIZE",
                                   "4",
                                   "SOLVER.MAX_EPOCH",
                                   "1",
                                   "DATA_LOADER.NUM_WORKERS",
                                   "1",
                                   "X3D.DIM_C5",
                                   "32",
                                   "LOG_PERIOD",
                                   "1"};
    ov.insert(ov.end(), extra.begin(), extra.end());
    auto r = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml", ov);
    if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
    return r.config;
  }
};

}  // namespace amp::testsupport
