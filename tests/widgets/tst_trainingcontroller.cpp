// The studio's Start, Pause and Stop on a data-parallel config: the controller runs
// ampstudio-cli's workers and follows their run directory; the one-writer lock refuses a second
// writer with the holder's name.
#include <QtTest>

#include <QTemporaryDir>

#include "TrainingController.h"
#include "runlog/RunDirectory.h"
#include "runlog/RunLock.h"
#include "support/Configs.h"
#include "support/DemoFixture.h"

using namespace amp;

class TestTrainingController : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  // 16 training clips: 4 steps of 4.
  testsupport::DemoFixture demo_{
      {"TRAIN.BATCH_SIZE", "4", "DATA_LOADER.NUM_WORKERS", "1", "X3D.DIM_C5", "32"},
      /*clipsPerClass=*/2};

  config::Config demo(const std::string& out, const std::vector<std::string>& extra) {
    return demo_.configOrDie(testsupport::joined({"OUTPUT_DIR", out}, extra));
  }

  static int trainEvents(const QList<QList<QVariant>>& batches) {
    int n = 0;
    for (const auto& b : batches)
      for (const auto& e : b.at(0).value<std::vector<runlog::MetricEvent>>())
        n += e.kind == runlog::kind::kTrain;
    return n;
  }

 private slots:
  void initTestCase() { QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str()); }

  void twoProcessesRunToTheEnd() {
    const std::string out = dir_.path().toStdString() + "/ddp";
    widgets::TrainingController controller;
    QSignalSpy batches(&controller, &widgets::TrainingController::eventsReady);
    QString why;
    QVERIFY2(controller.start(demo(out, {"SOLVER.MAX_EPOCH", "1", "DIST.CPU_PROCESSES", "2"}),
                              "demo.yaml", &why),
             qPrintable(why));
    QVERIFY(controller.isActive());
    controller.waitForEnd();
    QCOMPARE(controller.state(), train::TrainerState::Finished);
    QCOMPARE(trainEvents(batches), 4);
    QCOMPARE(controller.progress().step, std::int64_t{4});
    QCOMPARE(controller.progress().steps_per_epoch, std::int64_t{4});
    const auto meta = runlog::RunDirectory(out).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->worldSize, 2);
    QCOMPARE(meta->configSource, std::string("demo.yaml"));
    QCOMPARE(meta->status, runlog::RunStatus::Finished);
  }

  void twoProcessesMultigridCountEveryPhase() {
    // Long cycle: epochs 0-1 at batch 8 (2 steps each), then the fine-tune epoch at batch 4 (4
    // steps): 8 steps. The progress bar and ETA need that total from the first step; the epochs in
    // the train records would give 2 steps per epoch x 3 epochs = 6.
    const std::string out = dir_.path().toStdString() + "/ddp-mg";
    widgets::TrainingController controller;
    QSignalSpy batches(&controller, &widgets::TrainingController::eventsReady);
    const auto mg = testsupport::joined(testsupport::tinyLongCycle(),
                                        {"DIST.CPU_PROCESSES", "2", "SOLVER.MAX_EPOCH", "3",
                                         "SOLVER.STEPS", "[0, 2]", "TEST.ENABLE", "False"});
    QString why;
    QVERIFY2(controller.start(demo(out, mg), "demo.yaml", &why), qPrintable(why));
    std::int64_t totalAtFirstStep = 0;
    QTRY_VERIFY_WITH_TIMEOUT(trainEvents(batches) > 0 || !controller.isActive(), 120000);
    totalAtFirstStep = controller.progress().totalSteps();
    controller.waitForEnd();
    QCOMPARE(controller.state(), train::TrainerState::Finished);
    QCOMPARE(totalAtFirstStep, std::int64_t{8});
    QCOMPARE(trainEvents(batches), 8);
    QCOMPARE(controller.progress().step, std::int64_t{8});
    QCOMPARE(controller.progress().totalSteps(), std::int64_t{8});
    QCOMPARE(controller.progress().steps_per_epoch, std::int64_t{4});  // the fine-tune phase's
  }

  void pauseAndStopReachEveryRank() {
    const std::string out = dir_.path().toStdString() + "/ddp-long";
    widgets::TrainingController controller;
    QSignalSpy batches(&controller, &widgets::TrainingController::eventsReady);
    QSignalSpy ended(&controller, &widgets::TrainingController::ended);
    QString why;
    QVERIFY2(controller.start(demo(out, {"SOLVER.MAX_EPOCH", "50", "DIST.CPU_PROCESSES", "2"}),
                              "demo.yaml", &why),
             qPrintable(why));
    QTRY_VERIFY_WITH_TIMEOUT(trainEvents(batches) >= 3, 120000);
    controller.pause();
    QCOMPARE(controller.state(), train::TrainerState::Paused);
    // The iterations under way end, however slowly on a busy machine (their events may still
    // come); once no event came for 1.5 s, nothing more comes while paused.
    int paused = trainEvents(batches);
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                               QTest::qWait(1500);
                               const int now = trainEvents(batches);
                               const bool settled = now == paused;
                               paused = now;
                               return settled;
                             }()),
                             60000);
    QTest::qWait(2000);
    QCOMPARE(trainEvents(batches), paused);
    controller.resume();
    QTRY_VERIFY_WITH_TIMEOUT(trainEvents(batches) > paused + 1, 60000);
    controller.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!ended.isEmpty(), 60000);
    QCOMPARE(ended.first().at(0).value<train::TrainerState>(), train::TrainerState::Stopped);
    const auto meta = runlog::RunDirectory(out).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, runlog::RunStatus::Stopped);
    QVERIFY(!QDir(QString::fromStdString(out + "/checkpoints")).entryList({"*.pyth"}).isEmpty());
  }

  void aLockedRunDirectoryIsRefused() {
    const std::string out = dir_.path().toStdString() + "/locked";
    QVERIFY(runlog::RunDirectory(out).ensureExists(nullptr));
    runlog::RunLock holder;  // another writer of the folder
    std::string error;
    QVERIFY2(holder.acquire(out, &error), error.c_str());
    const QString expected = "is being written by another trainer (pid " +
                             QString::number(QCoreApplication::applicationPid());
    {  // one process: Start itself refuses
      widgets::TrainingController controller;
      QString why;
      QVERIFY(!controller.start(demo(out, {"SOLVER.MAX_EPOCH", "1"}), "demo.yaml", &why));
      QVERIFY2(why.contains(expected), qPrintable(why));
    }
    {  // two processes: the launcher starts, rank 0 refuses, the run fails saying why
      widgets::TrainingController controller;
      QString why;
      QVERIFY2(controller.start(demo(out, {"SOLVER.MAX_EPOCH", "1", "DIST.CPU_PROCESSES", "2"}),
                                "demo.yaml", &why),
               qPrintable(why));
      controller.waitForEnd();
      QCOMPARE(controller.state(), train::TrainerState::Failed);
      QVERIFY2(controller.error().contains(expected), qPrintable(controller.error()));
    }
  }
};

QTEST_MAIN(TestTrainingController)
#include "tst_trainingcontroller.moc"
