#include <QtTest>

#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QTemporaryDir>

#include "NoteTagsDialog.h"
#include "RunListPanel.h"
#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"
#include "runlog/RunLock.h"
#include "runlog/TensorBoardWriter.h"

using namespace amp;

namespace {
void makeRun(const QString& dir, const std::string& name, runlog::RunStatus status,
             const std::string& precision) {
  runlog::RunDirectory run(dir.toStdString());
  QVERIFY(run.ensureExists(nullptr));
  runlog::RunMetadata m;
  m.name = name;
  m.status = status;
  m.precision = precision;
  m.model = "X3D";
  m.startedAt = 1.79e9;
  m.endedAt = 1.79e9 + 125;
  QVERIFY(run.writeMetadata(m, nullptr));
}

// A finished run with a best val top-1, a duration, and the config keys the filter reads.
void makeSweepRun(const QString& dir, const std::string& name, double bestTop1, double seconds,
                  double lr) {
  makeRun(dir, name, runlog::RunStatus::Finished, "bf16");
  runlog::RunDirectory run(dir.toStdString());
  auto m = run.readMetadata();
  QVERIFY(m);
  m->endedAt = m->startedAt + seconds;
  QVERIFY(run.writeMetadata(*m, nullptr));
  if (bestTop1 >= 0) {
    runlog::MetricsWriter w;
    QVERIFY(w.open(run.metricsPath(), nullptr));
    runlog::MetricEvent v;
    v.kind = runlog::kind::kVal;
    v.step = 1;
    v.values = {{"top1_err", 100 - bestTop1}};
    QVERIFY(w.write(v, nullptr));
  }
  QFile config(QString::fromStdString(run.configPath()));
  QVERIFY(config.open(QIODevice::WriteOnly));
  config.write(QString("SOLVER:\n  BASE_LR: %1\nTRAIN:\n  BATCH_SIZE: 8\n").arg(lr).toUtf8());
}

QStringList column(const QTableWidget* t, int c, bool visibleOnly = false) {
  QStringList out;
  for (int r = 0; r < t->rowCount(); ++r)
    if (!visibleOnly || !t->isRowHidden(r)) out << t->item(r, c)->text();
  return out;
}
}  // namespace

class TestRunListPanel : public QObject {
  Q_OBJECT
 private slots:
  void listsRunsAndPicksUpNewOnes() {
    QTemporaryDir dir;
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QCOMPARE(panel.table()->rowCount(), 0);
    QVERIFY2(panel.table()->isHidden(),
             "an empty folder shows its text, not nine empty column headers");
    makeRun(dir.path() + "/a", "demo-fp32", runlog::RunStatus::Finished, "fp32");
    makeRun(dir.path() + "/b", "demo-amp", runlog::RunStatus::Failed, "bf16");
    panel.refresh();
    QCOMPARE(panel.table()->rowCount(), 2);
    QVERIFY(!panel.table()->isHidden());
    QCOMPARE(panel.table()->item(0, 0)->text(), QString("demo-fp32"));
    QCOMPARE(panel.table()->item(1, 1)->text(), QString("failed"));
    QCOMPARE(panel.table()->item(1, widgets::RunListPanel::Precision)->text(), QString("bf16"));
    QCOMPARE(panel.table()->item(0, widgets::RunListPanel::Time)->text(), QString("0:02:05"));
    // What tells runs apart comes first, so a narrow dock shows it without scrolling.
    QStringList headers;
    for (int c = 0; c < panel.table()->columnCount(); ++c)
      headers << panel.table()->horizontalHeaderItem(c)->text();
    QCOMPARE(headers, (QStringList{"Run", "Status", "Best val top-1", "Time", "Precision", "Model",
                                   "Peak memory", "Devices", "Started", "Tags", "Note"}));
  }

  void devicesSayHowManyProcesses() {
    runlog::RunMetadata m;
    m.device = "cpu (2 threads, OpenBLAS)";
    QCOMPARE(widgets::RunListPanel::devicesLabel(m), QString("CPU"));
    m.device = "2 x cpu (1 thread each, OpenBLAS)";
    m.worldSize = 2;
    QCOMPARE(widgets::RunListPanel::devicesLabel(m), QString("2 x CPU"));
    m.device = "8 x cuda";
    m.worldSize = 8;
    QCOMPARE(widgets::RunListPanel::devicesLabel(m), QString("8 x GPU"));
    m.device = "cuda:0";
    m.worldSize = 1;
    QCOMPARE(widgets::RunListPanel::devicesLabel(m), QString("GPU"));
    QTemporaryDir dir;
    runlog::RunDirectory run((dir.path() + "/ddp").toStdString());
    QVERIFY(run.ensureExists(nullptr));
    m.name = "ddp";
    m.device = "2 x cpu (1 thread each, OpenBLAS)";
    m.worldSize = 2;
    QVERIFY(run.writeMetadata(m, nullptr));
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QCOMPARE(panel.table()->item(0, widgets::RunListPanel::Devices)->text(), QString("2 x CPU"));
    QCOMPARE(panel.table()->item(0, widgets::RunListPanel::Devices)->toolTip(),
             QString("2 x cpu (1 thread each, OpenBLAS)"));
  }

  void summaryColumnsSelectionAndCsvExport() {
    QTemporaryDir dir;
    makeRun(dir.path() + "/a", "a", runlog::RunStatus::Finished, "fp32");
    makeRun(dir.path() + "/b", "b", runlog::RunStatus::Finished, "bf16");
    {
      runlog::MetricsWriter w;
      QVERIFY(
          w.open(runlog::RunDirectory((dir.path() + "/b").toStdString()).metricsPath(), nullptr));
      runlog::MetricEvent t;
      t.step = 1;
      t.values = {{"loss", 2.0}, {"mem_peak_rss_bytes", 300.0 * 1024 * 1024}};
      QVERIFY(w.write(t, nullptr));
      runlog::MetricEvent v;
      v.kind = runlog::kind::kVal;
      v.step = 1;
      v.values = {{"top1_err", 12.5}};
      QVERIFY(w.write(v, nullptr));
    }
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QCOMPARE(panel.table()->item(1, widgets::RunListPanel::BestTop1)->text(), QString("87.5 %"));
    QCOMPARE(panel.table()->item(1, widgets::RunListPanel::PeakMemory)->text(), QString("300 MiB"));
    QCOMPARE(panel.table()->item(0, widgets::RunListPanel::BestTop1)->text(), QString());
    QSignalSpy selection(&panel, &widgets::RunListPanel::selectionChanged);
    panel.selectRuns({dir.path() + "/a", dir.path() + "/b"});
    QCOMPARE(panel.selectedRuns(), (QStringList{dir.path() + "/a", dir.path() + "/b"}));
    panel.refresh();  // keeps the selection
    QCOMPARE(panel.selectedRuns().size(), 2);
    QString error;
    QVERIFY2(widgets::RunListPanel::exportRunCsv(dir.path() + "/b", dir.path() + "/b.csv", &error),
             qPrintable(error));
    QFile csv(dir.path() + "/b.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QCOMPARE(csv.readAll(), QByteArray("kind,step,epoch,time_s,loss,mem_peak_rss_bytes,top1_"
                                       "err\ntrain,1,0,0,2,314572800,\nval,1,0,0,,,12.5\n"));
    QVERIFY(!widgets::RunListPanel::exportRunCsv(dir.path() + "/missing", dir.path() + "/m.csv",
                                                 &error));
    QVERIFY(error.contains("missing"));
  }

  // A multi-label run (Charades) is judged by mean average precision: its val events carry `map`
  // (a fraction) and no top-1. Its best is "mAP 41.3 %", named so beside top-1 runs; the column's
  // header and tooltips say which.
  void multiLabelRunsShowTheirBestMeanAveragePrecision() {
    QTemporaryDir dir;
    const auto writeVals = [&dir](const char* run,
                                  const std::vector<std::map<std::string, double>>& vals) {
      runlog::MetricsWriter w;
      QVERIFY(w.open(runlog::RunDirectory((dir.path() + "/" + run).toStdString()).metricsPath(),
                     nullptr));
      std::int64_t step = 0;
      for (const auto& values : vals) {
        runlog::MetricEvent t;
        t.step = ++step;
        t.values = {{"loss", 0.1}, {"lr", 0.1}};  // no top1_err in multi-label training
        QVERIFY(w.write(t, nullptr));
        runlog::MetricEvent v;
        v.kind = runlog::kind::kVal;
        v.step = step;
        v.values = values;
        QVERIFY(w.write(v, nullptr));
      }
    };
    makeRun(dir.path() + "/a", "kinetics", runlog::RunStatus::Finished, "fp32");
    writeVals("a", {{{"top1_err", 12.5}}});
    makeRun(dir.path() + "/b", "charades", runlog::RunStatus::Finished, "bf16");
    writeVals("b", {{{"map", 0.35}, {"max_map", 0.35}},
                    {{"map", 0.4134}, {"max_map", 0.4134}},
                    {{"map", 0.39}, {"max_map", 0.4134}}});
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QTableWidget* t = panel.table();
    using widgets::RunListPanel;
    QCOMPARE(t->item(0, RunListPanel::BestTop1)->text(), QString("87.5 %"));
    QCOMPARE(t->item(1, RunListPanel::BestTop1)->text(), QString("mAP 41.3 %"));
    QVERIFY(t->item(1, RunListPanel::BestTop1)->toolTip().contains("mAP"));
    QVERIFY(t->item(0, RunListPanel::BestTop1)->toolTip().contains("top-1"));
    QCOMPARE(t->horizontalHeaderItem(RunListPanel::BestTop1)->text(),
             QString("Best val top-1 / mAP"));
    QVERIFY(t->horizontalHeaderItem(RunListPanel::BestTop1)->toolTip().contains("mAP"));
    // run.json says multi-label before any validation: no figure yet, and none pretending top-1.
    runlog::RunDirectory a((dir.path() + "/a").toStdString());
    auto meta = a.readMetadata();
    QVERIFY(meta);
    meta->multiLabel = true;
    QVERIFY(a.writeMetadata(*meta, nullptr));
    QFile::remove(QString::fromStdString(a.metricsPath()));
    panel.refresh();
    panel.waitForSummaries();
    QCOMPARE(t->item(0, RunListPanel::BestTop1)->text(), QString());
    QVERIFY(t->item(0, RunListPanel::BestTop1)->toolTip().contains("mAP"));
    QCOMPARE(t->horizontalHeaderItem(RunListPanel::BestTop1)->text(), QString("Best val mAP"));
    runlog::RunSummary s;
    s.bestValTop1 = 72.04;
    QCOMPARE(RunListPanel::bestText(s, false), QString("72.0 %"));
    QCOMPARE(RunListPanel::bestText(s, true), QString());
  }

  // Numbers sort as numbers (text order would put "9.5 %" above "87.5 %" and "0:59:00" above
  // "10:00:00"); a run without the figure sorts after those with one.
  void columnsSortByValue() {
    QTemporaryDir dir;
    makeSweepRun(dir.path() + "/a", "a", 87.5, 10 * 3600, 0.1);
    makeSweepRun(dir.path() + "/b", "b", 9.5, 59 * 60, 0.1);
    makeSweepRun(dir.path() + "/c", "c", -1, 5, 0.1);
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QTableWidget* t = panel.table();
    using widgets::RunListPanel;
    t->sortByColumn(RunListPanel::BestTop1, Qt::AscendingOrder);
    QCOMPARE(column(t, RunListPanel::Name), (QStringList{"b", "a", "c"}));
    t->sortByColumn(RunListPanel::BestTop1, Qt::DescendingOrder);
    QCOMPARE(column(t, RunListPanel::Name).mid(1), (QStringList{"a", "b"}));
    t->sortByColumn(RunListPanel::Time, Qt::AscendingOrder);
    QCOMPARE(column(t, RunListPanel::Time), (QStringList{"0:00:05", "0:59:00", "10:00:00"}));
    t->sortByColumn(RunListPanel::Name, Qt::DescendingOrder);
    QCOMPARE(column(t, RunListPanel::Name), (QStringList{"c", "b", "a"}));
    // A refresh keeps the order the user chose and the selection.
    panel.selectRuns({dir.path() + "/b"});
    panel.refresh();
    QCOMPARE(column(t, RunListPanel::Name), (QStringList{"c", "b", "a"}));
    QCOMPARE(panel.selectedRuns(), QStringList{dir.path() + "/b"});
  }

  void filterByTextFieldsAndConfigKeys() {
    QTemporaryDir dir;
    makeSweepRun(dir.path() + "/lr1", "x3d-lr0.1", 70, 60, 0.1);
    makeSweepRun(dir.path() + "/lr05", "x3d-lr0.05", 75, 60, 0.05);
    makeRun(dir.path() + "/fp32", "baseline", runlog::RunStatus::Failed, "fp32");
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QTableWidget* t = panel.table();
    using widgets::RunListPanel;
    QVERIFY(panel.filterEdit()->toolTip().contains("SOLVER.BASE_LR"));  // the syntax
    panel.setFilterText("SOLVER.BASE_LR=0.1");
    QCOMPARE(column(t, RunListPanel::Name, true), QStringList{"x3d-lr0.1"});
    QCOMPARE(panel.shownRunCount(), 1);
    QVERIFY(panel.findChild<QLabel*>()->text().startsWith("1 of 3 runs"));
    panel.setFilterText("solver.base_lr<0.08");
    QCOMPARE(column(t, RunListPanel::Name, true), QStringList{"x3d-lr0.05"});
    panel.setFilterText("status:failed");
    QCOMPARE(column(t, RunListPanel::Name, true), QStringList{"baseline"});
    panel.setFilterText("x3d best>72");
    QCOMPARE(column(t, RunListPanel::Name, true), QStringList{"x3d-lr0.05"});
    panel.setFilterText("-lr0");  // every run's model is X3D: words match the model too
    QCOMPARE(column(t, RunListPanel::Name, true), QStringList{"baseline"});
    // A term it cannot read shows nothing and says why, above the table.
    panel.setFilterText("SOLVER.BASE_LR>fast");
    QCOMPARE(panel.shownRunCount(), 0);
    QVERIFY(panel.findChild<QLabel*>()->text().contains("fast"));
    // Typing applies after a short pause; a refresh keeps the filter.
    panel.filterEdit()->setText("precision:bf16");
    QTRY_COMPARE(panel.shownRunCount(), 2);
    panel.refresh();
    QCOMPARE(panel.shownRunCount(), 2);
    panel.setFilterText("");
    QCOMPARE(panel.shownRunCount(), 3);
  }

  // Note and tags live in run.json: the list shows them, the filter finds them, and the
  // trainer's next rewrite keeps them (runlog::RunDirectory::writeMetadata).
  void notesAndTagsAreColumnsAndSurviveTheWriter() {
    QTemporaryDir dir;
    makeRun(dir.path() + "/a", "a", runlog::RunStatus::Running, "bf16");
    runlog::RunDirectory run((dir.path() + "/a").toStdString());
    std::string error;
    QVERIFY2(run.setNoteAndTags("diverged at epoch 3\nlr too high", {"sweep-3", "bad"}, &error),
             error.c_str());
    runlog::RunMetadata trainer;  // the trainer's own copy, older than the note
    trainer.name = "a";
    trainer.status = runlog::RunStatus::Finished;
    QVERIFY(run.writeMetadata(trainer, nullptr));
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    using widgets::RunListPanel;
    QCOMPARE(panel.table()->item(0, RunListPanel::Tags)->text(), QString("sweep-3, bad"));
    QCOMPARE(panel.table()->item(0, RunListPanel::Note)->text(), QString("diverged at epoch 3"));
    QCOMPARE(panel.table()->item(0, RunListPanel::Note)->toolTip(),
             QString("diverged at epoch 3\nlr too high"));
    QCOMPARE(panel.table()->item(0, RunListPanel::Status)->text(), QString("finished"));
    panel.setFilterText("tag:bad");
    QCOMPARE(panel.shownRunCount(), 1);
    panel.setFilterText("tag:sweep");
    QCOMPARE(panel.shownRunCount(), 0);
    QCOMPARE(widgets::NoteTagsDialog::parseTags(" sweep-3, ,baseline, sweep-3 ,lr 0.1"),
             (std::vector<std::string>{"sweep-3", "baseline", "lr 0.1"}));
  }

  // Archive moves the folder to <runs>/archive/ (hidden unless "Show archived"); the trash is the
  // desktop's (a .trashinfo beside it: restorable), and a run being written is refused.
  void archiveRestoreAndTrash() {
    QTemporaryDir dir, home;
    qputenv("XDG_DATA_HOME", home.path().toUtf8());  // the trash of this test, not the user's
    makeRun(dir.path() + "/a", "a", runlog::RunStatus::Finished, "fp32");
    makeRun(dir.path() + "/b", "b", runlog::RunStatus::Finished, "fp32");
    makeRun(dir.path() + "/live", "live", runlog::RunStatus::Finished, "fp32");
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QCOMPARE(panel.runCount(), 3);
    QString error;
    QVERIFY2(panel.archiveRun(dir.path() + "/a", &error), qPrintable(error));
    QVERIFY(QFileInfo::exists(dir.path() + "/archive/a/run.json"));
    QCOMPARE(panel.runCount(), 2);
    panel.setShowArchived(true);
    QCOMPARE(panel.runCount(), 3);
    QVERIFY(column(panel.table(), 0).contains("a (archived)"));
    QVERIFY2(panel.restoreRun(dir.path() + "/archive/a", &error), qPrintable(error));
    QVERIFY(QFileInfo::exists(dir.path() + "/a/run.json"));
    QVERIFY2(panel.trashRun(dir.path() + "/b", &error), qPrintable(error));
    QVERIFY(!QFileInfo::exists(dir.path() + "/b"));
    QVERIFY(QFileInfo::exists(home.path() + "/Trash/files/b/run.json"));
    QFile info(home.path() + "/Trash/info/b.trashinfo");
    QVERIFY(info.open(QIODevice::ReadOnly));
    const QByteArray text = info.readAll();
    QVERIFY(text.contains("Path=") && text.contains("DeletionDate="));
    QCOMPARE(panel.runCount(), 2);
    runlog::RunLock lock;  // a trainer writes "live"
    QVERIFY(lock.acquire((dir.path() + "/live").toStdString(), nullptr));
    QVERIFY(!panel.trashRun(dir.path() + "/live", &error));
    QVERIFY2(error.contains("being written"), qPrintable(error));
    QVERIFY(!panel.archiveRun(dir.path() + "/live", &error));
    QVERIFY(QFileInfo::exists(dir.path() + "/live/run.json"));
  }

  // A TensorBoard logdir opened as runs: each sub-folder of event files is one, read-only.
  void tensorBoardFoldersOpenAsRuns() {
    QTemporaryDir runs, logdir;
    for (const char* sub : {"/exp/version_0", "/exp/version_1"}) {
      runlog::TensorBoardWriter w;
      QVERIFY(w.open((logdir.path() + sub).toStdString(), 1.79e9, nullptr));
      QVERIFY(w.add({{"Train/loss", 1.0}, {"Val/Top1_err", 25.0}}, 1, 1.79e9 + 1, nullptr));
    }
    widgets::RunListPanel panel;
    panel.setRunsFolder(runs.path());
    panel.addRunDirectory(logdir.path());
    QCOMPARE(panel.runCount(), 2);
    QCOMPARE(column(panel.table(), 0), (QStringList{"exp/version_0", "exp/version_1"}));
    QCOMPARE(panel.table()->item(0, widgets::RunListPanel::Model)->text(),
             QString("TensorBoard run"));
  }

  // A run being written: each refresh shows its newest figures (its log is followed from where
  // the loader left it, not read whole again), and a replaced log starts over.
  void aRunBeingWrittenShowsItsNewestFigures() {
    QTemporaryDir dir;
    makeRun(dir.path() + "/live", "live", runlog::RunStatus::Finished, "bf16");
    runlog::RunDirectory run((dir.path() + "/live").toStdString());
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    runlog::MetricsWriter w;
    QVERIFY(w.open(run.metricsPath(), nullptr));
    double lowest = 100;
    for (double err : {60.0, 40.0, 45.0, 20.0}) {
      lowest = std::min(lowest, err);
      runlog::MetricEvent v;
      v.kind = runlog::kind::kVal;
      v.values = {{"top1_err", err}};
      QVERIFY(w.write(v, nullptr));
      QTest::qWait(5);  // a later modification time
      panel.refresh();
      panel.waitForSummaries();
      QCOMPARE(panel.table()->item(0, widgets::RunListPanel::BestTop1)->text(),
               QString("%1 %").arg(100 - lowest, 0, 'f', 1));
    }
    w.close();
    QVERIFY(QFile::remove(QString::fromStdString(run.metricsPath())));
    runlog::MetricsWriter again;  // a new log (another inode)
    QVERIFY(again.open(run.metricsPath(), nullptr));
    runlog::MetricEvent v;
    v.kind = runlog::kind::kVal;
    v.values = {{"top1_err", 90.0}};
    QVERIFY(again.write(v, nullptr));
    QTest::qWait(5);
    panel.refresh();
    panel.waitForSummaries();
    QCOMPARE(panel.table()->item(0, widgets::RunListPanel::BestTop1)->text(), QString("10.0 %"));
  }

  void damagedMetadataIsShownNotHidden() {
    QTemporaryDir dir;
    QDir().mkpath(dir.path() + "/broken");
    QFile f(dir.path() + "/broken/run.json");
    f.open(QIODevice::WriteOnly);
    f.write("{ not json");
    f.close();
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
    panel.waitForSummaries();  // the figures are read on the loader's thread
    QCOMPARE(panel.table()->rowCount(), 1);
    QCOMPARE(panel.table()->item(0, 1)->text(), QString("unreadable"));
    QVERIFY(panel.table()->item(0, 0)->toolTip().contains("run.json"));
  }
};

QTEST_MAIN(TestRunListPanel)
#include "tst_runlistpanel.moc"
