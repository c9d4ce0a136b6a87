#include <QtTest>

#include <QTableWidget>
#include <QTemporaryDir>

#include "RunListPanel.h"
#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"

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
}  // namespace

class TestRunListPanel : public QObject {
  Q_OBJECT
 private slots:
  void listsRunsAndPicksUpNewOnes() {
    QTemporaryDir dir;
    widgets::RunListPanel panel;
    panel.setRunsFolder(dir.path());
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
                                   "Peak memory", "Devices", "Started"}));
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
    QCOMPARE(t->item(0, RunListPanel::BestTop1)->text(), QString());
    QVERIFY(t->item(0, RunListPanel::BestTop1)->toolTip().contains("mAP"));
    QCOMPARE(t->horizontalHeaderItem(RunListPanel::BestTop1)->text(), QString("Best val mAP"));
    runlog::RunSummary s;
    s.bestValTop1 = 72.04;
    QCOMPARE(RunListPanel::bestText(s, false), QString("72.0 %"));
    QCOMPARE(RunListPanel::bestText(s, true), QString());
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
    QCOMPARE(panel.table()->rowCount(), 1);
    QCOMPARE(panel.table()->item(0, 1)->text(), QString("unreadable"));
    QVERIFY(panel.table()->item(0, 0)->toolTip().contains("run.json"));
  }
};

QTEST_MAIN(TestRunListPanel)
#include "tst_runlistpanel.moc"
