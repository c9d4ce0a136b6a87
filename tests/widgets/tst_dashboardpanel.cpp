// The live dashboard: a real (tiny) run through the training controller fills the charts and
// stops cleanly; a run another process writes is followed; axes, smoothing and export work.
#include <QtTest>

#include <unistd.h>
#include <QListWidget>
#include <QTemporaryDir>

#include "DashboardPanel.h"
#include "MetricChart.h"
#include "TrainingController.h"
#include "configfile/ConfigLoader.h"
#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"
#include "support/DemoFixture.h"

using namespace amp;

namespace {
runlog::MetricEvent trainEvent(std::int64_t step, double loss) {
  runlog::MetricEvent e;
  e.step = step;
  e.epoch = static_cast<double>(step) / 10.0;
  e.time_s = static_cast<double>(step) * 0.5;
  e.values = {{"loss", loss},          {"lr", 0.1},
              {"loss_scale", 65536.0}, {"skipped", step == 3 ? 1.0 : 0.0},
              {"top1_err", 50},        {"clips_per_s", 20},
              {"iter_time_s", 0.5},    {"data_wait_s", 0.01}};
  return e;
}
}  // namespace

class TestDashboardPanel : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

 private slots:
  void controllerRunFillsThePlotsAndStopsCleanly() {
    testsupport::DemoFixture demo({}, /*clipsPerClass=*/2);
    QVERIFY2(demo.generate(dir_.path()), demo.error().c_str());
    const std::string data = demo.dataDir();
    const std::string out = dir_.path().toStdString() + "/run-live";
    auto r = config::ConfigLoader().loadFile(
        std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml",
        {"DATA.PATH_TO_DATA_DIR", data, "DATA.PATH_PREFIX", data, "OUTPUT_DIR", out,
         "TRAIN.BATCH_SIZE", "4", "SOLVER.MAX_EPOCH", "50", "DATA_LOADER.NUM_WORKERS", "1",
         "X3D.DIM_C5", "32"});
    QVERIFY(r.ok());

    widgets::TrainingController controller;
    widgets::DashboardPanel dashboard;
    dashboard.beginRun("run-live");
    connect(&controller, &widgets::TrainingController::eventsReady, &dashboard,
            &widgets::DashboardPanel::appendEvents);
    QSignalSpy ended(&controller, &widgets::TrainingController::ended);
    QSignalSpy batches(&controller, &widgets::TrainingController::eventsReady);
    QString why;
    QVERIFY2(controller.start(r.config, "demo.yaml", &why), qPrintable(why));
    QVERIFY(controller.isActive());
    QString again;
    QVERIFY(!controller.start(r.config, "demo.yaml", &again));  // one run at a time
    QVERIFY(again.contains("active"));

    widgets::MetricChart* loss = dashboard.chart("loss");
    QTRY_VERIFY_WITH_TIMEOUT(loss->pointCount(0) >= 6, 120000);  // raw training loss
    controller.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!ended.isEmpty(), 60000);
    QCOMPARE(ended.first().at(0).value<train::TrainerState>(), train::TrainerState::Stopped);
    QCOMPARE(controller.state(), train::TrainerState::Stopped);
    QVERIFY(!controller.isActive());
    QVERIFY(batches.size() >= 2);  // delivered in timer ticks, not one call per event
    const auto progress = controller.progress();
    QVERIFY(progress.step >= 6 && progress.step < 50 * 4);
    // Every step reached the charts: loss raw and smoothed, accuracy, lr, loss scale, throughput,
    // memory.
    QCOMPARE(loss->pointCount(0), static_cast<std::size_t>(progress.step));
    QCOMPARE(loss->pointCount(1), static_cast<std::size_t>(progress.step));
    for (const char* id : {"accuracy", "learning_rate", "loss_scale", "throughput", "memory",
                           "gradient_norm", "iteration_time"})
      QVERIFY2(dashboard.chart(id)->pointCount(0) > 0 || dashboard.chart(id)->pointCount(3) > 0,
               id);
    // The stop wrote a checkpoint; the message list says so, the run directory says stopped.
    bool checkpoint = false;
    for (int i = 0; i < dashboard.messages()->count(); ++i)
      checkpoint = checkpoint || dashboard.messages()->item(i)->text().contains("checkpoint");
    QVERIFY(checkpoint);
    auto meta = runlog::RunDirectory(out).readMetadata();
    QVERIFY(meta);
    QCOMPARE(meta->status, runlog::RunStatus::Stopped);
    // Starting the same config again resumes the stopped run in the same folder.
    QVERIFY(controller.start(r.config, "demo.yaml", &why));
    QCOMPARE(controller.outputDirUsed(), QString::fromStdString(out));
    controller.stop();
    controller.waitForEnd();

    // A finished run is kept: the next start of its config goes to a fresh folder beside it.
    const std::string done = dir_.path().toStdString() + "/run-done";
    config::Config oneEpoch = r.config;
    oneEpoch.setOrThrow("OUTPUT_DIR", done);
    oneEpoch.setOrThrow("SOLVER.MAX_EPOCH", 1);
    QVERIFY2(controller.start(oneEpoch, "demo.yaml", &why), qPrintable(why));
    controller.waitForEnd();
    QCOMPARE(controller.state(), train::TrainerState::Finished);
    QVERIFY(controller.etaSeconds() && *controller.etaSeconds() == 0.0);
    QVERIFY2(controller.start(oneEpoch, "demo.yaml", &why), qPrintable(why));
    QCOMPARE(controller.outputDirUsed(), QString::fromStdString(done + "-2"));
    controller.waitForEnd();
    QCOMPARE(controller.state(), train::TrainerState::Finished);
    QCOMPARE(runlog::RunDirectory(done + "-2").readMetadata()->status, runlog::RunStatus::Finished);
  }

  void followsARunAnotherProcessWrites() {
    const std::string out = dir_.path().toStdString() + "/run-cli";
    runlog::RunDirectory run(out);
    QVERIFY(run.ensureExists(nullptr));
    runlog::RunMetadata m;
    m.name = "cli-run";
    m.status = runlog::RunStatus::Running;
    m.host = runlog::hostName();
    m.pid = getpid();
    m.updatedAt = runlog::unixTimeNow();
    QVERIFY(run.writeMetadata(m, nullptr));
    runlog::MetricsWriter w;
    QVERIFY(w.open(run.metricsPath(), nullptr));
    for (int s = 1; s <= 10; ++s) QVERIFY(w.write(trainEvent(s, 2.0 / s), nullptr));
    widgets::DashboardPanel dashboard;
    QString error;
    QVERIFY2(dashboard.openRunDirectory(QString::fromStdString(out), &error), qPrintable(error));
    QCOMPARE(dashboard.chart("loss")->pointCount(0), std::size_t(10));
    QVERIFY(dashboard.stateText().contains("Running"));
    for (int s = 11; s <= 15; ++s) QVERIFY(w.write(trainEvent(s, 2.0 / s), nullptr));
    QTRY_COMPARE(dashboard.chart("loss")->pointCount(0), std::size_t(15));
    // A skipped step is marked on the loss-scale chart.
    QCOMPARE(dashboard.chart("loss_scale")->pointCount(1), std::size_t(1));
    m.status = runlog::RunStatus::Finished;
    m.endedAt = runlog::unixTimeNow();
    QVERIFY(run.writeMetadata(m, nullptr));
    QTRY_VERIFY_WITH_TIMEOUT(dashboard.stateText().contains("Finished"), 5000);
  }

  void aRunWithoutLossScalingSaysSo() {
    widgets::DashboardPanel dashboard;
    dashboard.beginRun("bf16");
    widgets::MetricChart* scale = dashboard.chart("loss_scale");
    QVERIFY(scale->note().isEmpty());  // no data yet: nothing to say
    std::vector<runlog::MetricEvent> events;
    for (int s = 1; s <= 5; ++s) {
      events.push_back(trainEvent(s, 1.0));
      events.back().values["loss_scale"] = 1.0;
    }
    dashboard.appendEvents(events);
    QVERIFY2(scale->note().contains("No loss scaling"), qPrintable(scale->note()));
    // A scale other than 1 (a float16 run's scaler at work): the curve speaks for itself.
    dashboard.appendEvents({trainEvent(6, 1.0)});
    QVERIFY(scale->note().isEmpty());
    dashboard.appendEvents({trainEvent(7, 1.0)});
    QVERIFY(scale->note().isEmpty());
    // A new run starts over.
    dashboard.beginRun("fp32");
    dashboard.appendEvents(events);
    QVERIFY(!scale->note().isEmpty());
  }

  // A multigrid shape change: a labelled vertical line on every chart at its step; a new run clears
  // them.
  void shapeChangesAreMarkedOnEveryChart() {
    widgets::DashboardPanel dashboard;
    dashboard.beginRun("bf16");
    std::vector<runlog::MetricEvent> events;
    for (int s = 1; s <= 8; ++s) events.push_back(trainEvent(s, 1.0));
    runlog::MetricEvent shape;
    shape.kind = runlog::kind::kEvent;
    shape.name = "shape_change";
    shape.step = 4;
    shape.message = "multigrid phase 2/3";
    shape.values = {{"batch_size", 256.0}, {"frames", 16.0}, {"crop", 158.0}};
    events.push_back(shape);
    dashboard.appendEvents(events);
    widgets::MetricChart* loss = dashboard.chart("loss");
    QCOMPARE(loss->verticalMarkerCount(), 1);
    QCOMPARE(loss->verticalMarkerLabel(0), QString("B 256 · T 16 · S 158"));
    QCOMPARE(dashboard.chart("loss_scale")->verticalMarkerCount(), 1);
    // Written once, on the first chart (Loss); the others draw the line only.
    QVERIFY(loss->verticalMarkerLabelShown(0));
    QVERIFY(!dashboard.chart("loss_scale")->verticalMarkerLabelShown(0));
    dashboard.beginRun("fp32");
    QCOMPARE(loss->verticalMarkerCount(), 0);
  }

  // The message list names events in words and says a repeated message once: where it last
  // happened, how often, since when. Arriving in two batches or all at once reads the same.
  void repeatedMessagesAreSaidOnce() {
    auto notable = [](const char* name, std::int64_t step, const std::string& message) {
      runlog::MetricEvent e;
      e.kind = runlog::kind::kEvent;
      e.name = name;
      e.step = step;
      e.message = message;
      return e;
    };
    const std::string precise =
        "running statistics of 40 batch norms recomputed over 10 training batches";
    const std::vector<runlog::MetricEvent> events = {
        notable("tensorboard", 0, "TENSORBOARD.ENABLE: no event files are written: disk full"),
        notable("precise_bn", 100, precise),
        notable("checkpoint", 100, "/runs/a/checkpoints/checkpoint_epoch_00001.pyth"),
        notable("precise_bn", 200, precise),
        notable("checkpoint", 200, "/runs/a/checkpoints/checkpoint_epoch_00002.pyth"),
        notable("precise_bn", 300, precise),
        notable("some_new_event", 300, "said by a newer engine"),
        notable("shape_change", 300, "multigrid phase 2/5 (epochs 6-9): batch 32")};
    const QStringList expected = {
        "▲ step 0 · TensorBoard: TENSORBOARD.ENABLE: no event files are written: disk full",
        "• step 100 · Checkpoint: checkpoint_epoch_00001.pyth",
        "• step 200 · Checkpoint: checkpoint_epoch_00002.pyth",
        "• steps 100–300 · Precise BN: " + QString::fromStdString(precise) + " (3 times)",
        "• step 300 · Some new event: said by a newer engine",
        "• step 300 · multigrid phase 2/5 (epochs 6-9): batch 32"};  // it names itself
    for (std::size_t split : {events.size(), std::size_t(4)}) {
      widgets::DashboardPanel dashboard;
      dashboard.beginRun("fp32");
      dashboard.appendEvents({events.begin(), events.begin() + static_cast<long>(split)});
      if (split < events.size())
        dashboard.appendEvents({events.begin() + static_cast<long>(split), events.end()});
      QStringList shown;
      for (int i = 0; i < dashboard.messages()->count(); ++i)
        shown << dashboard.messages()->item(i)->text();
      QCOMPARE(shown, expected);
      dashboard.beginRun("fp32 again");  // a new run starts counting afresh
      dashboard.appendEvents({events[1]});
      QCOMPARE(dashboard.messages()->count(), 1);
      QCOMPARE(dashboard.messages()->item(0)->text(),
               "• step 100 · Precise BN: " + QString::fromStdString(precise));
    }
  }

  // A multi-label run (Charades) is judged by mean average precision: its val and test events
  // carry `map` (a fraction) and no top-1. The accuracy chart becomes mAP in percent, and turns
  // back when a single-label run is opened in the same dashboard (and mAP again after).
  void multiLabelRunsShowMeanAveragePrecision() {
    const auto writeRun = [this](const char* name, bool saysMultiLabel,
                                 const std::vector<runlog::MetricEvent>& events) {
      const std::string out = dir_.path().toStdString() + "/" + name;
      runlog::RunDirectory run(out);
      runlog::RunMetadata m;
      m.name = name;
      m.status = runlog::RunStatus::Finished;
      m.multiLabel = saysMultiLabel;
      runlog::MetricsWriter w;
      if (!run.ensureExists(nullptr) || !run.writeMetadata(m, nullptr) ||
          !w.open(run.metricsPath(), nullptr))
        return QString();
      for (const auto& e : events)
        if (!w.write(e, nullptr)) return QString();
      return QString::fromStdString(out);
    };
    const auto evaluation = [](const char* kind, std::int64_t step,
                               std::map<std::string, double> values) {
      runlog::MetricEvent e;
      e.kind = kind;
      e.step = step;
      e.epoch = static_cast<double>(step) / 10.0;
      e.values = std::move(values);
      return e;
    };
    std::vector<runlog::MetricEvent> multi;
    for (int s = 1; s <= 20; ++s) {
      multi.push_back(trainEvent(s, 1.0));
      multi.back().values.erase("top1_err");  // multi-label training has no top-1
    }
    multi.push_back(evaluation("val", 10, {{"map", 0.352}, {"max_map", 0.352}}));
    multi.push_back(evaluation("val", 20, {{"map", 0.413}, {"max_map", 0.413}}));
    multi.push_back(evaluation("test", 20, {{"map", 0.427}, {"videos", 40}}));
    std::vector<runlog::MetricEvent> single;
    for (int s = 1; s <= 20; ++s) single.push_back(trainEvent(s, 1.0));
    single.push_back(evaluation("val", 20, {{"top1_err", 30}, {"top5_err", 10}}));
    // Told by the data alone (no multi_label in run.json), by run.json alone (no val yet).
    const QString charades = writeRun("charades", false, multi);
    const QString kinetics = writeRun("kinetics", false, single);
    const QString starting =
        writeRun("charades-starting", true, {multi.begin(), multi.begin() + 5});
    QVERIFY(!charades.isEmpty() && !kinetics.isEmpty() && !starting.isEmpty());

    widgets::DashboardPanel dashboard;
    widgets::MetricChart* acc = dashboard.chart("accuracy");
    const auto legend = [acc] {
      QStringList names;
      for (int i = 0; i < acc->seriesCount(); ++i)
        if (acc->legend->itemWithPlottable(acc->seriesGraph(i)))
          names << acc->seriesGraph(i)->name();
      return names;
    };
    const auto expectMap = [&] {
      QVERIFY(dashboard.showsMeanAveragePrecision());
      QVERIFY2(acc->title().contains("mean average precision", Qt::CaseInsensitive),
               qPrintable(acc->title()));
      QCOMPARE(acc->yAxis->label(), QString("mAP (%)"));
      // Multi-label heads are trained with a binary cross entropy per class.
      QCOMPARE(dashboard.chart("loss")->yAxis->label(), QString("binary cross entropy"));
    };
    QString error;
    QVERIFY2(dashboard.openRunDirectory(charades, &error), qPrintable(error));
    expectMap();
    // Percent (x100) at the validation's step, named for mAP; the test's point too.
    QVERIFY2(acc->valuesAt(20).contains("val mAP: 41.3%"),
             qPrintable(acc->valuesAt(20).join(" | ")));
    QVERIFY2(acc->valuesAt(20).contains("test mAP (multi-view): 42.7%"),
             qPrintable(acc->valuesAt(20).join(" | ")));
    QVERIFY2(acc->valuesAt(10).contains("val mAP: 35.2%"),
             qPrintable(acc->valuesAt(10).join(" | ")));
    // No top-1 series: there is none in a multi-label run, and the legend lists only mAP.
    QCOMPARE(legend(), (QStringList{"val mAP", "test mAP (multi-view)"}));
    QVERIFY(acc->yAxis->range().upper > 42.7 && acc->yAxis->range().upper < 100);

    QVERIFY2(dashboard.openRunDirectory(kinetics, &error), qPrintable(error));
    QVERIFY(!dashboard.showsMeanAveragePrecision());
    QCOMPARE(acc->title(), QString("Accuracy"));
    QCOMPARE(acc->yAxis->label(), QString("%"));
    QCOMPARE(dashboard.chart("loss")->yAxis->label(), QString("cross entropy"));
    QCOMPARE(legend(), (QStringList{"train top-1 (smoothed)", "val top-1", "val top-5"}));
    QVERIFY(acc->valuesAt(20).contains("val top-1: 70%"));

    QVERIFY2(dashboard.openRunDirectory(starting, &error), qPrintable(error));
    expectMap();  // run.json said so before any `map` arrived
    QVERIFY(legend().isEmpty());

    // Live: a run begun as single-label turns to mAP when a `map` arrives; setMultiLabel (the
    // config's DATA.MULTI_LABEL) says it before; a new run forgets both.
    dashboard.beginRun("live");
    QVERIFY(!dashboard.showsMeanAveragePrecision());
    dashboard.appendEvents({multi.begin(), multi.begin() + 20});
    QVERIFY(!dashboard.showsMeanAveragePrecision());
    dashboard.appendEvents({multi[20]});
    expectMap();
    dashboard.beginRun("next");
    QVERIFY(!dashboard.showsMeanAveragePrecision());
    dashboard.setMultiLabel(true);
    expectMap();
    dashboard.beginRun("after");
    QCOMPARE(acc->title(), QString("Accuracy"));
  }

  void axisSmoothingAndExport() {
    widgets::DashboardPanel dashboard;
    dashboard.beginRun("synthetic");
    std::vector<runlog::MetricEvent> events;
    for (int s = 1; s <= 40; ++s) events.push_back(trainEvent(s, s % 2 ? 1.0 : 3.0));
    runlog::MetricEvent backoff;
    backoff.kind = runlog::kind::kEvent;
    backoff.name = "scaler_backoff";
    backoff.step = 3;
    backoff.values = {{"loss_scale", 32768.0}};
    backoff.layer = "head.projection";
    events.push_back(backoff);
    dashboard.appendEvents(events);
    widgets::MetricChart* loss = dashboard.chart("loss");
    QCOMPARE(loss->seriesGraph(0)->data()->at(39)->key, 40.0);
    QCOMPARE(dashboard.chart("loss_scale")->pointCount(2), std::size_t(1));  // the backoff marker
    // The tracker over the marker names where the overflow started.
    const QStringList atBackoff = dashboard.chart("loss_scale")->valuesAt(3.0);
    QVERIFY2(atBackoff.contains("backoff: 32768 (first inf/NaN in head.projection)"),
             qPrintable(atBackoff.join(" | ")));
    QCOMPARE(dashboard.messages()->count(), 1);
    // The tracker writes units where the axis has one; the loss's axis names a quantity, not a
    // unit.
    QVERIFY2(dashboard.chart("accuracy")->valuesAt(40.0).contains("train top-1 (smoothed): 50%"),
             qPrintable(dashboard.chart("accuracy")->valuesAt(40.0).join(" | ")));
    QVERIFY2(dashboard.chart("throughput")->valuesAt(40.0).contains("clips/s: 20 clips/s"),
             qPrintable(dashboard.chart("throughput")->valuesAt(40.0).join(" | ")));
    QVERIFY2(dashboard.chart("iteration_time")->valuesAt(40.0).contains("iteration: 0.5 s"),
             qPrintable(dashboard.chart("iteration_time")->valuesAt(40.0).join(" | ")));
    QVERIFY2(dashboard.chart("loss")->valuesAt(40.0).contains("train: 3"),
             qPrintable(dashboard.chart("loss")->valuesAt(40.0).join(" | ")));
    // Smoothing 0.9 flattens the 1, 3, 1, 3 ... loss; 0 gives the raw values back.
    const double smoothedLast = loss->seriesGraph(1)->data()->at(39)->value;
    QVERIFY(smoothedLast > 1.5 && smoothedLast < 2.5);
    dashboard.setSmoothing(0.0);
    QCOMPARE(loss->seriesGraph(1)->data()->at(39)->value, 3.0);
    dashboard.setXAxis(widgets::DashboardPanel::XAxis::Epoch);
    QCOMPARE(loss->seriesGraph(0)->data()->at(39)->key, 4.0);
    QCOMPARE(loss->xAxis->range().upper, 4.0);  // following: fitted to the data
    dashboard.setXAxis(widgets::DashboardPanel::XAxis::Time);
    QCOMPARE(loss->seriesGraph(0)->data()->at(39)->key, 20.0);
    QVERIFY(!loss->valuesAt(10.0).isEmpty());  // the tracker's text

    const QString folder = dir_.path() + "/export";
    QDir().mkpath(folder);
    QString error;
    QVERIFY(dashboard.exportCsv(folder + "/metrics.csv", &error));
    QFile csv(folder + "/metrics.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readLine(), QByteArray("kind,step,epoch,time_s,clips_per_s,data_wait_s,iter_time_"
                                        "s,loss,loss_scale,lr,skipped,top1_err\n"));
    const QStringList png = dashboard.exportCharts(folder, "png"),
                      pdf = dashboard.exportCharts(folder, "pdf");
    QCOMPARE(png.size(), 8);
    QCOMPARE(pdf.size(), 8);
    for (const QString& f : png + pdf) QVERIFY2(QFileInfo(f).size() > 1000, qPrintable(f));
    QImage image(folder + "/loss.png");
    QVERIFY(!image.isNull());
  }
};

QTEST_MAIN(TestDashboardPanel)
#include "tst_dashboardpanel.moc"
