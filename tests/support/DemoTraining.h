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

#include "support/DemoFixture.h"

namespace amp::testsupport {

class DemoTrainingSuite : public QObject {
 protected:
  QTemporaryDir dir_;
  /// DEMO_X3D_TINY on 2 clips per class (16 train clips: 4 steps of 4), batch 4, one epoch, one
  /// loader worker, a small head and a log line per step.
  DemoFixture demo_{joined(demoTraining(), {"SOLVER.MAX_EPOCH", "1"}), /*clipsPerClass=*/2};

  /// Writes the demo dataset into dir_/data.
  bool makeDemoData(std::string* error) {
    const bool ok = demo_.generate(dir_.path());
    if (!ok && error) *error = demo_.error();
    return ok;
  }
  const std::string& dataDir() const { return demo_.dataDir(); }

  /// The demo config writing to `out`, `extra` overrides after the suite's.
  config::Config demoConfig(const std::string& out, const std::vector<std::string>& extra = {}) {
    return demo_.configOrDie(joined({"OUTPUT_DIR", out}, extra));
  }
};

}  // namespace amp::testsupport
