// The words of the main window's status bar: the config's standing, the run's progress with its
// ETA, this machine, and the messages a run's end and the demo dataset leave.
#include <QtTest>

#include "StatusBarText.h"
#include "data/DemoDataGenerator.h"
#include "system/DeviceInfo.h"

using amp::gui::StatusBarText;
using amp::train::TrainerState;

class TestStatusBarText : public QObject {
  Q_OBJECT
 private:
  StatusBarText text_;

  static StatusBarText::ConfigChecks open(int errors, int warnings) {
    StatusBarText::ConfigChecks c;
    c.configOpen = true;
    c.errors = errors;
    c.warnings = warnings;
    return c;
  }

 private slots:
  void theConfigsStanding() {
    QCOMPARE(text_.configChecks({}), QString("No config open"));
    QCOMPARE(text_.configChecks(open(0, 0)), QString("Config valid · ready to train here"));
    QCOMPARE(text_.configChecks(open(0, 1)),
             QString("Config valid, 1 warning · ready to train here"));
    QCOMPARE(text_.configChecks(open(2, 3)), QString("Config: 2 errors"));  // warnings wait
    auto pending = open(0, 0);
    pending.preflightPending = true;
    QCOMPARE(text_.configChecks(pending), QString("Config valid · checking before start…"));
    auto checked = open(0, 2);
    checked.preflightErrors = 1;
    checked.preflightWarnings = 2;
    QCOMPARE(text_.configChecks(checked),
             QString("Config valid, 2 warnings · before start: 1 error, 2 warnings"));
    auto broken = open(1, 0);  // the checks before start do not speak over the config's errors
    broken.preflightPending = true;
    broken.preflightErrors = 4;
    QCOMPARE(text_.configChecks(broken), QString("Config: 1 error"));
  }

  void theRunsProgress() {
    amp::train::TrainerProgress p;
    p.epoch = 0;
    p.max_epoch = 10;
    p.step = 5;
    p.steps_per_epoch = 100;
    QVERIFY(text_.progress(TrainerState::Idle, p, 250.0).isEmpty());
    QCOMPARE(text_.progress(TrainerState::Running, p, std::nullopt),
             QString("Running · epoch 1/10 · step 5/1000"));
    QCOMPARE(text_.progress(TrainerState::Paused, p, 250.4),
             QString("Paused · epoch 1/10 · step 5/1000 · ETA 0:04:10"));
    p.epoch = 10;  // the end: epoch N/N, and no time left to show
    p.step = 1000;
    QCOMPARE(text_.progress(TrainerState::Finished, p, 3.0),
             QString("Finished · epoch 10/10 · step 1000/1000"));
    p.total_steps = 1200;  // known from the schedule (multigrid): wins over the epoch count
    QCOMPARE(text_.progress(TrainerState::Stopped, p, std::nullopt),
             QString("Stopped · epoch 10/10 · step 1000/1200"));
  }

  void theRunsEnd() {
    QCOMPARE(text_.runEnded(TrainerState::Failed, "loss is NaN"),
             QString("The run failed: loss is NaN"));
    QCOMPARE(text_.runEnded(TrainerState::Stopped, {}), QString("The run stopped."));
    QCOMPARE(text_.runEnded(TrainerState::Finished, {}), QString("The run finished."));
  }

  void thisMachine() {
    amp::system::DeviceInfo cpu;
    cpu.cpu_cores = 16;
    cpu.blas = "OpenBLAS";
    QCOMPARE(text_.device(cpu), QString("CPU · 16 cores · OpenBLAS"));
    amp::system::DeviceInfo gpu = cpu;
    gpu.cuda_devices.push_back({0, "NVIDIA H100", 80.0, 9, 0});
    QCOMPARE(text_.device(gpu), QString("CUDA: NVIDIA H100"));
  }

  void messages() {
    amp::data::DemoDataSummary s;
    s.train = 800;
    s.val = 200;
    s.test = 200;
    QCOMPARE(text_.demoDataWritten(s, "/data/demo"),
             QString("Wrote 800 train, 200 val, 200 test clips to /data/demo"));
    QCOMPARE(text_.outputDirMoved("runs/demo", "runs/demo-2"),
             QString("runs/demo holds a finished run: this one goes to runs/demo-2"));
  }
};

QTEST_GUILESS_MAIN(TestStatusBarText)
#include "tst_statusbartext.moc"
