// The studio's window: before any config, the start page (Start off); around the pre-flight
// checks, Start stays off and refuses while a pre-flight error stands (a start asked for while
// they run waits for them), warnings do not block it; File > New offers the demo and configs/
// as templates; the last config and selected run come back on the next launch.
#include <QtTest>

#include <QAction>
#include <QCommandLinkButton>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <thread>

#include "AnalysisPanel.h"
#include "ClipPreviewPanel.h"
#include "ConfigEditorPanel.h"
#include "ConfigTemplates.h"
#include "DemoDataJob.h"
#include "MainWindow.h"
#include "MistakesTable.h"
#include "PrecisionAuditPanel.h"
#include "PredictPanel.h"
#include "PreflightRunner.h"
#include "RunListPanel.h"
#include "StartPage.h"
#include "TrainingController.h"
#include "metrics/ConfusionRecord.h"
#include "runlog/RunDirectory.h"
#include "support/DemoFixture.h"

using namespace amp;

class TestMainWindow : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;

  QString write(const QString& name, const QString& text) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(text.toUtf8());
    return path;
  }

  // The demo config on the generated data, with extra YAML lines.
  QString demoConfig(const QString& name, const QString& extra, int batch = 8) {
    QFile in(QString(AMPSTUDIO_SOURCE_DIR) + "/configs/demo/DEMO_X3D_TINY.yaml");
    if (!in.open(QIODevice::ReadOnly)) qFatal("no demo config");
    QString text = QString::fromUtf8(in.readAll());
    text.replace("PATH_TO_DATA_DIR: demo-data", "PATH_TO_DATA_DIR: " + dir_.filePath("data"));
    text.replace("PATH_PREFIX: demo-data", "PATH_PREFIX: " + dir_.filePath("data"));
    text.replace("OUTPUT_DIR: runs/demo-amp", "OUTPUT_DIR: " + dir_.filePath("runs/" + name));
    text.replace("  BATCH_SIZE: 8\n  EVAL_PERIOD",
                 QStringLiteral("  BATCH_SIZE: %1\n  EVAL_PERIOD").arg(batch));
    return write(name + ".yaml", text + extra);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings of the test, not the user's
    QCoreApplication::setOrganizationName("AMP Studio Tests");
    QCoreApplication::setApplicationName("tst_mainwindow");
    QSettings().clear();
    testsupport::DemoFixture demo({}, /*clipsPerClass=*/2);  // the data set in dir_/data
    QVERIFY2(demo.generate(dir_.path()), demo.error().c_str());
  }

  // Before any config: the start page, Start off saying why, and no pre-flight checks of
  // PySlowFast's defaults (they would only report that no dataset is set). Each choice leaves it.
  void aFreshWindowShowsTheStartPageUntilAConfigIsChosen() {
    gui::MainWindow window;
    window.setRunsFolder(dir_.filePath("runs"));
    QVERIFY(window.startPageShown());
    QVERIFY(!window.startAction()->isEnabled());
    QVERIFY2(window.startAction()->toolTip().contains("no config is open"),
             qPrintable(window.startAction()->toolTip()));
    QVERIFY(!window.editor()->preflightPending());
    QVERIFY(window.editor()->preflight()->diagnostics().empty());
    QVERIFY(!window.startTraining(true));
    QCOMPARE(window.controller()->state(), train::TrainerState::Idle);
    QVERIFY(window.startPage()->templateList()->count() >= 2);
    QVERIFY(window.startPage()->templateList()->item(0)->text().contains("the demo"));
    QVERIFY(window.startPage()
                ->demoButton()
                ->isEnabled());  // configs/demo is found above the program too

    // PySlowFast's defaults: the editor, checked before start.
    window.startPage()->blankButton()->click();
    QVERIFY(!window.startPageShown());
    QVERIFY(window.editor()->filePath().isEmpty());
    QVERIFY(window.editor()->preflightPending() ||
            !window.editor()->preflight()->diagnostics().empty());
    QVERIFY(!window.startAction()->toolTip().contains("no config is open"));

    // A template: a new unsaved config.
    gui::MainWindow fromTemplate;
    QListWidget* templates = fromTemplate.startPage()->templateList();
    QListWidgetItem* x3d = nullptr;
    for (int i = 0; i < templates->count(); ++i)
      if (templates->item(i)->text().startsWith("Kinetics/X3D_M.yaml\n"))
        x3d = templates->item(i);  // the name, then its line about itself
    QVERIFY(x3d);
    QVERIFY2(x3d->text().contains("X3D-M: 16 frames at stride 5"), qPrintable(x3d->text()));
    emit templates->itemActivated(x3d);
    QVERIFY(!fromTemplate.startPageShown());
    QVERIFY(fromTemplate.editor()->isDirty());
    QVERIFY(fromTemplate.editor()->config().has_value());
    QCOMPARE(QString::fromStdString(fromTemplate.editor()->config()->getString("MODEL.ARCH")),
             QString("x3d"));

    // Opening a config leaves it too, and the next window lists it under Recent.
    gui::MainWindow opened;
    const QString cfg = demoConfig("recent", "");
    QVERIFY(opened.openConfig(cfg));
    QVERIFY(!opened.startPageShown());
    gui::MainWindow next;
    QVERIFY(next.startPageShown());
    QListWidget* recent = next.startPage()->recentList();
    QVERIFY(recent->count() >= 1);
    QCOMPARE(recent->item(0)->data(Qt::UserRole).toString(), QFileInfo(cfg).absoluteFilePath());
    emit recent->itemActivated(recent->item(0));
    QVERIFY(!next.startPageShown());
    QCOMPARE(next.editor()->filePath(), QFileInfo(cfg).absoluteFilePath());
  }

  // The start page's demo from a working folder without configs/: the config is found above
  // the program, the dataset is written where the studio runs, and the demo trains.
  void theStartPagesDemoTrainsFromAnyWorkingFolder() {
    QTemporaryDir cwd;
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(cwd.path()));
    {
      gui::MainWindow window;
      window.setRunsFolder(cwd.filePath("runs"));
      QVERIFY(window.startPage()->demoButton()->isEnabled());
      window.startPage()->demoButton()->click();
      QVERIFY(!window.startPageShown());
      QVERIFY2(window.editor()->filePath().endsWith("configs/demo/DEMO_X3D_TINY.yaml"),
               qPrintable(window.editor()->filePath()));
      // The dataset is written on the pool while the window's event loop goes on (no nested
      // loop): the click returns first, the training starts once the dataset is there.
      auto* job = window.findChild<gui::DemoDataJob*>();
      QVERIFY(job && job->isRunning());
      QVERIFY(!window.startDemo(window.editor()->filePath()));  // one write at a time
      QTRY_VERIFY_WITH_TIMEOUT(window.controller()->isActive(), 180000);
      QVERIFY(QFileInfo::exists(cwd.filePath("demo-data/train.csv")));
      window.controller()->stop();
      window.controller()->waitForEnd();
      QVERIFY(runlog::RunDirectory(cwd.filePath("runs/demo-amp").toStdString()).exists());
    }
    QVERIFY(QDir::setCurrent(previous));
  }

  void startRefusesWhileAPreflightErrorStands() {
    gui::MainWindow window;
    window.setRunsFolder(dir_.filePath("runs"));
    QVERIFY(window.openConfig(demoConfig("gpus", "NUM_GPUS: 64\n", 128)));
    // Asked for while the checks run: the start waits for them, then refuses.
    QVERIFY(window.editor()->preflightPending());
    QVERIFY(window.startTraining(true));
    QVERIFY(window.startQueued());
    QTRY_VERIFY_WITH_TIMEOUT(!window.startQueued(), 60000);
    QCOMPARE(window.controller()->state(), train::TrainerState::Idle);
    QVERIFY(!window.startAction()->isEnabled());
    QVERIFY2(window.startAction()->toolTip().contains("pre-flight error"),
             qPrintable(window.startAction()->toolTip()));
    QVERIFY(!window.startTraining(true));
    QCOMPARE(window.controller()->state(), train::TrainerState::Idle);
    QVERIFY(!QFileInfo::exists(dir_.filePath("runs/gpus")));
  }

  void warningsDoNotBlockStart() {
    const int processes = 2 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    gui::MainWindow window;
    QVERIFY(window.openConfig(demoConfig(
        "warned", QStringLiteral("DIST:\n  CPU_PROCESSES: %1\n").arg(processes), 2 * processes)));
    QVERIFY2(window.editor()->config().has_value(), qPrintable(window.editor()->text()));
    QTRY_VERIFY_WITH_TIMEOUT(!window.editor()->preflightPending(), 60000);
    const auto& found = window.editor()->preflight()->diagnostics();
    QVERIFY2(!found.empty() && !config::hasErrors(found), config::formatDiagnostics(found).c_str());
    QVERIFY(window.startAction()->isEnabled());
    QVERIFY(window.editor()->startProblem().isEmpty());
  }

  void newOffersTheDemoAndTheShippedConfigs() {
    const QStringList templates =
        gui::ConfigTemplates(gui::ConfigTemplates::locateConfigsFolder()).templates();
    QVERIFY(!templates.isEmpty());
    QVERIFY2(templates.front().endsWith("configs/demo/DEMO_X3D_TINY.yaml"),
             qPrintable(templates.front()));
    QVERIFY(std::any_of(templates.begin(), templates.end(), [](const QString& p) {
      return p.endsWith("Kinetics/SLOWFAST_8x8_R50.yaml");
    }));
    QVERIFY(std::none_of(templates.begin(), templates.end(),
                         [](const QString& p) { return p.contains("/base/"); }));
    // A template opens as a new, unsaved config whose _BASE_ still resolves.
    gui::MainWindow window;
    QString error;
    const QString slowfast =
        *std::find_if(templates.begin(), templates.end(),
                      [](const QString& p) { return p.endsWith("SLOWFAST_8x8_R50.yaml"); });
    QVERIFY2(window.editor()->newFromTemplate(slowfast, &error), qPrintable(error));
    QVERIFY(window.editor()->filePath().isEmpty());
    QVERIFY(window.editor()->isDirty());
    QVERIFY2(window.editor()->config().has_value(),
             qPrintable(QString::number(window.editor()->errorCount())));
    QCOMPARE(QString::fromStdString(window.editor()->config()->getString("MODEL.ARCH")),
             QString("slowfast"));
  }

  void theLastConfigAndRunComeBack() {
    const QString cfg = demoConfig("session", "");
    const QString run = dir_.filePath("runs/old");
    runlog::RunMetadata meta;
    meta.name = "old";
    meta.status = runlog::RunStatus::Finished;
    QVERIFY(runlog::RunDirectory(run.toStdString()).ensureExists(nullptr));
    QVERIFY(runlog::RunDirectory(run.toStdString()).writeMetadata(meta, nullptr));
    {
      gui::MainWindow first;
      first.setRunsFolder(dir_.filePath("runs"));
      QVERIFY(first.openConfig(cfg));
      QVERIFY(first.followRun(run));
    }
    gui::MainWindow second;
    second.setRunsFolder(dir_.filePath("runs"));
    QVERIFY(second.editor()->filePath().isEmpty());
    second.restoreSession();
    QCOMPARE(second.editor()->filePath(), QFileInfo(cfg).absoluteFilePath());
    QCOMPARE(second.runList()->selectedRuns(), QStringList{QDir(run).absolutePath()});
  }

  // The Runs list's context actions: a run's clips (from its saved config) and the precision
  // audit of its newest checkpoint (here none yet: a fresh initialisation), and Predict, each on
  // its tab.
  // The Analysis tab shows the run selected in the run list (one run: two or more compare).
  void theAnalysisTabShowsTheSelectedRun() {
    const QString run = dir_.filePath("runs/analysed");
    metrics::ConfusionRecord r;
    r.matrix = metrics::ConfusionMatrix(2);
    metrics::addSample(r, "a.mp4", 0, 1, 0.8, 0.2, 2);
    std::string error;
    QVERIFY(metrics::writeConfusionRecord(
        r, metrics::confusionFilePath(run.toStdString(), "test", 0), &error));
    gui::MainWindow window;
    emit window.runList()->selectionChanged({run});
    QCOMPARE(window.analysisPanel()->runDir(), run);
    QVERIFY(window.analysisPanel()->record());
    QCOMPARE(window.analysisPanel()->mistakes()->rows(), 1);
    window.showTab("analysis");
    QCOMPARE(window.findChild<QTabWidget*>()->currentWidget(), window.analysisPanel());
  }

  void aRunsClipsAndPrecisionOpenFromTheRunList() {
    qputenv("AMPSTUDIO_CLI", AMPSTUDIO_CLI_PATH);
    const QString run = dir_.filePath("runs/audited");
    QVERIFY(runlog::RunDirectory(run.toStdString()).ensureExists(nullptr));
    QVERIFY(
        QFile::copy(demoConfig("audited", "", 2),
                    QString::fromStdString(runlog::RunDirectory(run.toStdString()).configPath())));
    gui::MainWindow window;
    auto* tabs = window.findChild<QTabWidget*>();
    QVERIFY(tabs);
    emit window.runList()->clipsRequested(run);
    QCOMPARE(tabs->currentWidget(), window.clipPreview());
    QCOMPARE(window.clipPreview()->runDir(), run);
    QSignalSpy done(window.precisionAudit(), &widgets::PrecisionAuditPanel::finished);
    emit window.runList()->auditRequested(run);
    QCOMPARE(tabs->currentWidget(), window.precisionAudit());
    QVERIFY(done.wait(120000));
    QVERIFY2(done.front().front().toBool(), qPrintable(window.precisionAudit()->status()->text()));
    QVERIFY2(window.precisionAudit()->status()->text().contains(
                 "run audited (no checkpoint yet: fresh initialisation)"),
             qPrintable(window.precisionAudit()->status()->text()));
    QCOMPARE(window.precisionAudit()->report().summary.batch_size, 2);
    emit window.runList()->predictRequested(run);  // Predict: the run's config, no checkpoint yet
    QCOMPARE(tabs->currentWidget(), window.predictPanel());
    QCOMPARE(window.predictPanel()->configEdit()->text(),
             QString::fromStdString(runlog::RunDirectory(run.toStdString()).configPath()));
    QVERIFY(window.predictPanel()->checkpointEdit()->text().isEmpty());
    QVERIFY2(window.predictPanel()->status()->text().contains("has no checkpoint yet"),
             qPrintable(window.predictPanel()->status()->text()));
  }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
