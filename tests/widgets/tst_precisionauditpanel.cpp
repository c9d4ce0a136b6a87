// The studio's precision audit: ampstudio-cli audit precision run in a child process on the
// editor's config or a run's newest checkpoint, shown as a sortable, filterable table and two
// per-layer charts; beside a training run it runs at lower priority on one thread; Cancel ends
// it at once and keeps what was shown; errors say what is wrong.
#include <QtTest>

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>

#include <cmath>
#include <fstream>
#include <sstream>

#include <qcustomplot.h>

#include "CliPanelChecks.h"
#include "PrecisionAuditPanel.h"
#include "audit/AuditJson.h"
#include "runlog/RunDirectory.h"
#include "support/DemoFixture.h"

using namespace amp;

class TestPrecisionAuditPanel : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  testsupport::DemoFixture demo_{
      {"X3D.DIM_C5", "32", "TRAIN.BATCH_SIZE", "2", "DATA_LOADER.NUM_WORKERS", "1"}};

  static int barsCount(QCustomPlot* p) {
    int n = 0;
    for (int i = 0; i < p->plottableCount(); ++i)
      if (auto* b = qobject_cast<QCPBars*>(p->plottable(i))) n += b->dataCount();
    return n;
  }

 private Q_SLOTS:
  void initTestCase() {
    qputenv("AMPSTUDIO_CLI", AMPSTUDIO_CLI_PATH);
    QVERIFY2(demo_.generate(dir_.path()), demo_.error().c_str());
  }

  void auditsTheEditorsConfigLayerByLayer() {
    widgets::PrecisionAuditPanel panel;
    panel.resize(1400, 800);
    std::optional<config::Config> cfg = demo_.config();
    QVERIFY(cfg);
    panel.setConfigSource([&] { return cfg; });
    panel.batchesBox()->setValue(2);
    auto says = [](QCustomPlot* p, const QString& text) {
      for (int i = 0; i < p->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->text() == text) return true;
      return false;
    };
    // Before an audit the charts say so, with no legend and no numbers on their axes.
    for (QCustomPlot* p : {panel.headroomChart(), panel.underflowChart()}) {
      QVERIFY(says(p, "no audit yet"));
      QVERIFY(!p->legend->visible() && !p->xAxis->tickLabels() && !p->yAxis->tickLabels());
    }
    QSignalSpy done(&panel, &widgets::PrecisionAuditPanel::finished);
    panel.auditConfig();
    QVERIFY(panel.busy());
    QVERIFY(done.wait(120000));
    QVERIFY2(done.front().front().toBool(), qPrintable(panel.status()->text()));
    QVERIFY(!panel.lastArguments().contains("--threads"));  // no training run: as training would
    QVERIFY(panel.lastArguments().join(' ').contains("--batches 2 --precision amp"));

    const auto& r = panel.report();
    QCOMPARE(r.summary.batches, 2);
    QCOMPARE(r.summary.batch_size, 2);
    QVERIFY2(r.layers.size() > 20, std::to_string(r.layers.size()).c_str());
    QCOMPARE(panel.proxy()->rowCount(), static_cast<int>(r.layers.size()));
    // One headroom bar per layer with a nonzero output, one underflow bar pair per layer with a
    // gradient.
    int finiteHeadroom = 0, withGrad = 0;
    for (const auto& l : r.layers) {
      finiteHeadroom += std::isfinite(l.headroom_log2) ? 1 : 0;
      withGrad += l.has_grad ? 1 : 0;
    }
    for (QCustomPlot* p : {panel.headroomChart(), panel.underflowChart()}) {
      QVERIFY(!says(p, "no audit yet"));
      QVERIFY(p->legend->visible() && p->xAxis->tickLabels() && p->yAxis->tickLabels());
    }
    QCOMPARE(barsCount(panel.headroomChart()), finiteHeadroom);
    QCOMPARE(barsCount(panel.underflowChart()), 2 * withGrad);
    bool limitLabel = false;
    for (int i = 0; i < panel.headroomChart()->itemCount(); ++i)
      if (auto* t = qobject_cast<QCPItemText*>(panel.headroomChart()->item(i)))
        limitLabel = limitLabel || t->text().contains("65504");
    QVERIFY(limitLabel);
    QVERIFY2(panel.summary()->text().contains("Recommendation") &&
                 panel.summary()->text().contains("AMP.INIT_SCALE"),
             qPrintable(panel.summary()->text()));
    // Its clauses one under the other, each as the report says it.
    const QStringList clauses = QString::fromStdString(r.summary.recommendation).split("; ");
    QVERIFY(clauses.size() >= 2);
    for (const QString& clause : clauses)
      QVERIFY2(panel.summary()->text().contains("• " + clause.toHtmlEscaped()),
               qPrintable(clause + " | " + panel.summary()->text()));

    // Sorted by headroom, the tightest layer comes first: the summary's.
    panel.table()->sortByColumn(widgets::AuditTableModel::Headroom, Qt::AscendingOrder);
    QCOMPARE(panel.proxy()->index(0, widgets::AuditTableModel::Layer).data().toString(),
             QString::fromStdString(r.summary.min_headroom_layer));
    // Sorting is numeric, not by the text.
    double previous = -1e300;
    for (int row = 0; row < panel.proxy()->rowCount(); ++row) {
      const double v = panel.proxy()
                           ->index(row, widgets::AuditTableModel::Headroom)
                           .data(Qt::UserRole)
                           .toDouble();
      QVERIFY(v >= previous);
      previous = v;
    }
    // The filter keeps matching layers; selecting one marks it in both charts.
    panel.filterEdit()->setText("head");
    QVERIFY(panel.proxy()->rowCount() > 0 &&
            panel.proxy()->rowCount() < static_cast<int>(r.layers.size()));
    for (int row = 0; row < panel.proxy()->rowCount(); ++row)
      QVERIFY(panel.proxy()
                  ->index(row, widgets::AuditTableModel::Layer)
                  .data()
                  .toString()
                  .contains("head", Qt::CaseInsensitive));
    panel.table()->selectRow(0);
    const int layer = panel.proxy()->index(0, widgets::AuditTableModel::Index).data().toInt();
    QCOMPARE(panel.markedLayer(), layer);

    // Export: the button is on once there is a report; the CLI's JSON, readable again.
    QVERIFY(panel.exportButton()->isEnabled());
    const QString path = dir_.path() + "/audit.json";
    QCOMPARE(panel.exportJson(path), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    audit::PrecisionAuditReport back;
    std::string error;
    QVERIFY2(
        audit::auditReportFromJson(nlohmann::json::parse(f.readAll().toStdString()), back, &error),
        error.c_str());
    QCOMPARE(back.layers.size(), r.layers.size());
  }

  void auditsARunFromItsNewestCheckpoint() {
    const std::string run = dir_.path().toStdString() + "/run";
    const QString trained = demo_.trainRun(QString::fromStdString(run), {"TRAIN.BATCH_SIZE", "4"});
    QVERIFY2(trained.isEmpty(), qPrintable(trained));
    widgets::PrecisionAuditPanel panel;
    panel.batchesBox()->setValue(1);
    panel.clipsBox()->setCurrentIndex(1);  // random clips
    QSignalSpy done(&panel, &widgets::PrecisionAuditPanel::finished);
    panel.auditRun(QString::fromStdString(run));
    QVERIFY(done.wait(120000));
    QVERIFY2(done.front().front().toBool(), qPrintable(panel.status()->text()));
    const QStringList args = panel.lastArguments();
    QCOMPARE(args.at(args.indexOf("--cfg") + 1),
             QString::fromStdString(runlog::RunDirectory(run).configPath()));
    QVERIFY(args.at(args.indexOf("--checkpoint") + 1)
                .endsWith("/checkpoints/checkpoint_epoch_00001.pyth"));
    QVERIFY(panel.checkpointEdit()->toolTip().contains(
        QDir::toNativeSeparators(args.at(args.indexOf("--checkpoint") + 1))));  // the whole path
    QVERIFY(args.contains("--synthetic"));
    QCOMPARE(panel.checkpointEdit()->text(), args.at(args.indexOf("--checkpoint") + 1));
    QVERIFY2(panel.status()->text().contains("run run (checkpoint_epoch_00001.pyth)"),
             qPrintable(panel.status()->text()));
    QCOMPARE(panel.report().summary.batch_size, 4);  // the run's TRAIN.BATCH_SIZE

    panel.auditRun(dir_.path() + "/no-run");
    QVERIFY2(panel.status()->text().contains("no-run: the run has no config.yaml"),
             qPrintable(panel.status()->text()));
    QVERIFY(!panel.busy());
  }

  void besideATrainingRunItYieldsAndCancels() {
    widgets::PrecisionAuditPanel panel;
    std::optional<config::Config> cfg = demo_.config({"X3D.DIM_C5", "256"});
    panel.setConfigSource([&] { return cfg; });
    panel.setTrainingActive(true);
    panel.batchesBox()->setValue(64);  // long enough to look at and cancel
    QSignalSpy done(&panel, &widgets::PrecisionAuditPanel::finished);
    panel.auditConfig();
    testing::checkYieldsAndCancels(panel, done);
    if (QTest::currentTestFailed()) return;
    QVERIFY(panel.report().layers.empty());  // nothing half-read
  }

  void errorsSayWhatIsWrong() {
    widgets::PrecisionAuditPanel panel;
    std::optional<config::Config> cfg;
    panel.setConfigSource([&] { return cfg; });
    panel.auditConfig();  // the editor's YAML has errors
    QVERIFY2(panel.status()->text().contains("The config has errors"),
             qPrintable(panel.status()->text()));
    QVERIFY(!panel.busy());

    cfg = demo_.config();
    testing::checkCliErrorsAreSaid(
        panel, [&] { panel.auditConfig(); }, dir_.path());
  }
};

QTEST_MAIN(TestPrecisionAuditPanel)
#include "tst_precisionauditpanel.moc"
