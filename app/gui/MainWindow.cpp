#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCommandLinkButton>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QProgressDialog>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <algorithm>
#include <tuple>

#include "AnalysisPanel.h"
#include "ClipPreviewPanel.h"
#include "ComparisonPanel.h"
#include "ConfigEditorPanel.h"
#include "ConfigTemplates.h"
#include "DashboardPanel.h"
#include "DemoDataJob.h"
#include "PrecisionAuditPanel.h"
#include "PrecisionForm.h"
#include "PredictPanel.h"
#include "PreflightRunner.h"
#include "RecentConfigs.h"
#include "RunListPanel.h"
#include "SchemaBrowser.h"
#include "StartPage.h"
#include "StatusBarText.h"
#include "StudioMenus.h"
#include "TrainingController.h"
#include "configfile/ConfigLoader.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "system/DeviceInfo.h"

namespace amp::gui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      editor_(new widgets::ConfigEditorPanel),
      startPage_(new widgets::StartPage),
      configStack_(new QStackedWidget),
      dashboard_(new widgets::DashboardPanel),
      compare_(new widgets::ComparisonPanel),
      analysis_(new widgets::AnalysisPanel),
      preview_(new widgets::ClipPreviewPanel),
      audit_(new widgets::PrecisionAuditPanel),
      predict_(new widgets::PredictPanel),
      runs_(new widgets::RunListPanel),
      keys_(new widgets::SchemaBrowser),
      controller_(new widgets::TrainingController(this)),
      tabs_(new QTabWidget),
      validity_(new QLabel),
      progress_(new QLabel),
      progressBar_(new QProgressBar),
      device_(new QLabel),
      templates_(new ConfigTemplates(ConfigTemplates::locateConfigsFolder(), this)),
      recent_(new RecentConfigs(this)),
      statusText_(new StatusBarText(this)),
      demoData_(new DemoDataJob(this)) {
  setObjectName("AmpStudioMainWindow");
  configStack_->addWidget(startPage_);
  configStack_->addWidget(editor_);
  // Each tab is found by its id (showTab), never by its translated title or its position.
  for (auto [page, id, title] :
       {std::tuple<QWidget*, const char*, QString>{configStack_, "config", tr("Config")},
        {dashboard_, "dashboard", tr("Dashboard")},
        {compare_, "compare", tr("Compare")},
        {analysis_, "analysis", tr("Analysis")},
        {preview_, "clips", tr("Clips")},
        {audit_, "precision", tr("Precision")},
        {predict_, "predict", tr("Predict")}}) {
    tabIds_.insert(page, QString::fromLatin1(id));
    tabs_->addTab(page, title);
  }
  audit_->setConfigSource([this] { return editor_->config(); });
  predict_->setConfigSource([this] { return editor_->config(); });
  preview_->setConfigSource([this] { return editor_->config(); });
  connect(tabs_, &QTabWidget::currentChanged, this,
          [this](int i) {  // the first visit shows the first clip
            if (tabs_->widget(i) == preview_ && preview_->clips().empty() && !preview_->busy())
              preview_->showClip();
            if (tabs_->widget(i) == analysis_) analysis_->reload();  // newer validations
          });
  tabs_->setDocumentMode(true);
  setCentralWidget(tabs_);
  auto* runsDock = new QDockWidget(tr("Runs"), this);
  runsDock->setObjectName("RunsDock");
  runsDock->setWidget(runs_);
  addDockWidget(Qt::LeftDockWidgetArea, runsDock);
  auto* keysDock = new QDockWidget(tr("Config keys"), this);
  keysDock->setObjectName("KeysDock");
  keysDock->setWidget(keys_);
  addDockWidget(Qt::RightDockWidgetArea, keysDock);
  keysDock->hide();

  progressBar_->setMaximumWidth(180);
  progressBar_->setTextVisible(false);
  progressBar_->hide();
  statusBar()->addWidget(validity_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(progressBar_);
  statusBar()->addPermanentWidget(device_);
  {
    const system::DeviceInfo machine = system::probeDevices();
    device_->setText(statusText_->device(machine));
    startPage_->setFootnote(tr("This machine: %1.").arg(statusText_->device(machine)));
    editor_->form()->setMachine(static_cast<int>(machine.cuda_devices.size()),
                                machine.cuda_devices.empty()
                                    ? QString()
                                    : QString::fromStdString(machine.cuda_devices.front().name),
                                machine.cpu_cores);
  }
  // The pre-flight checks start with the first config; the start page has none to check.
  connect(startPage_, &widgets::StartPage::demoRequested, this,
          [this] { startDemo(templates_->demoConfig()); });
  startPage_->demoButton()->setEnabled(!templates_->demoConfig().isEmpty());
  if (templates_->demoConfig().isEmpty())
    startPage_->demoButton()->setToolTip(
        tr("No configs/demo folder beside the working folder or the program"));
  connect(startPage_, &widgets::StartPage::openRequested, this, &MainWindow::openConfigDialog);
  connect(startPage_, &widgets::StartPage::blankRequested, this, &MainWindow::showEditor);
  connect(startPage_, &widgets::StartPage::runFolderRequested, this,
          &MainWindow::openRunFolderDialog);
  connect(startPage_, &widgets::StartPage::recentChosen, this,
          [this](const QString& path) { openConfig(path); });
  // The start page's demo templates train at once on their generated data (written first when
  // missing); the others open as a new config. The New menu opens every template for editing.
  connect(startPage_, &widgets::StartPage::templateChosen, this, [this](const QString& path) {
    if (templates_->isDemo(path)) {
      if (maybeSave()) startDemo(path);
    } else {
      newFromTemplate(path);
    }
  });
  auto leaveStartPage = [this] {
    if (!editor_->filePath().isEmpty() || editor_->isDirty()) showEditor();
  };
  connect(editor_, &widgets::ConfigEditorPanel::filePathChanged, this, leaveStartPage);
  connect(editor_, &widgets::ConfigEditorPanel::dirtyChanged, this, leaveStartPage);

  wireMenus();
  connect(editor_, &widgets::ConfigEditorPanel::dirtyChanged, this, &MainWindow::updateTitle);
  connect(editor_, &widgets::ConfigEditorPanel::filePathChanged, this, &MainWindow::updateTitle);
  connect(editor_, &widgets::ConfigEditorPanel::validated, this, [this] {
    updateValidity();
    updateRunActions();
  });
  connect(editor_, &widgets::ConfigEditorPanel::preflightChanged, this, [this] {
    updateValidity();
    updateRunActions();
    if (startQueued_ && !editor_->preflightPending()) {  // the start waited for these results
      startQueued_ = false;
      startTraining(queuedQuiet_);
    }
  });
  connect(controller_, &widgets::TrainingController::ended, editor_, [this] {
    editor_->preflight()->recheck();  // OUTPUT_DIR is free again
  });
  connect(controller_, &widgets::TrainingController::eventsReady, dashboard_,
          &widgets::DashboardPanel::appendEvents);
  connect(controller_, &widgets::TrainingController::progressChanged, this,
          &MainWindow::updateProgress);
  connect(controller_, &widgets::TrainingController::stateChanged, this,
          [this](train::TrainerState s) {
            editor_->preflight()->setMemoryCheckEnabled(!controller_->isActive());
            if (s == train::TrainerState::Running || s == train::TrainerState::Paused)
              dashboard_->setRunState(widgets::TrainingController::stateName(s));
            updateRunActions();
            updateProgress();
          });
  connect(controller_, &widgets::TrainingController::ended, this,
          [this](train::TrainerState s, const QString& error) {
            dashboard_->setRunState(widgets::TrainingController::stateName(s), error);
            runs_->refresh();
            compare_->reload();
            if (QDir(analysis_->runDir()) == QDir(controller_->runDir())) analysis_->reload();
            updateRunActions();
            statusBar()->showMessage(statusText_->runEnded(s, error), 15000);
          });
  connect(demoData_, &DemoDataJob::finished, this, [this](bool ok) {
    if (!ok) {
      QMessageBox::warning(this, tr("Demo dataset"), demoData_->error());
      return;
    }
    statusBar()->showMessage(statusText_->demoDataWritten(demoData_->summary(), demoData_->dir()),
                             10000);
    editor_->preflight()->recheck();  // the dataset is there now
    startTraining();
  });
  wireRunList();
  editor_->validateNow();

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!settings.contains("window/geometry")) {
    resize(1440, 900);
    resizeDocks({runsDock}, {380}, Qt::Horizontal);
  }
  dashboard_->setSmoothing(settings.value("dashboard/smoothing", 0.9).toDouble());
  for (const QString& dir : settings.value("runs/extra").toStringList())
    if (QFileInfo::exists(dir)) runs_->addRunDirectory(dir);
  updateTitle();
  updateRunActions();
}

void MainWindow::wireMenus() {
  menus_ = new StudioMenus(this);
  connect(menus_->start(), &QAction::triggered, this, [this] { startTraining(); });
  connect(menus_->pause(), &QAction::triggered, this, [this] {
    if (controller_->state() == train::TrainerState::Paused)
      controller_->resume();
    else
      controller_->pause();
  });
  connect(menus_->stop(), &QAction::triggered, controller_, &widgets::TrainingController::stop);
  connect(menus_, &StudioMenus::templateChosen, this, &MainWindow::newFromTemplate);
  connect(menus_, &StudioMenus::recentChosen, this, [this](const QString& path) {
    if (maybeSave()) openConfig(path);
  });
  connect(menus_, &StudioMenus::openRequested, this, &MainWindow::openConfigDialog);
  connect(menus_, &StudioMenus::saveRequested, this, [this] {
    QString error;
    if (editor_->filePath().isEmpty())
      saveAs();
    else if (!editor_->save(&error))
      QMessageBox::warning(this, tr("Save failed"), error);
  });
  connect(menus_, &StudioMenus::saveAsRequested, this, [this] { saveAs(); });
  connect(menus_, &StudioMenus::revertRequested, editor_, &widgets::ConfigEditorPanel::revert);
  connect(menus_, &StudioMenus::runFolderRequested, this, &MainWindow::openRunFolderDialog);
  connect(menus_, &StudioMenus::exportCsvRequested, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the dashboard run's metrics"), "metrics.csv", tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !dashboard_->exportCsv(path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  });
  connect(menus_, &StudioMenus::exportChartsRequested, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Folder for the dashboard's charts (PNG and PDF)"));
    if (dir.isEmpty()) return;
    const QStringList written =
        dashboard_->exportCharts(dir, "png") + dashboard_->exportCharts(dir, "pdf");
    statusBar()->showMessage(tr("Wrote %1 files to %2").arg(written.size()).arg(dir), 8000);
  });
  connect(menus_, &StudioMenus::demoRequested, this, [this] {
    if (maybeSave()) startDemo(templates_->demoConfig());
  });
  connect(menus_, &StudioMenus::tabRequested, this, &MainWindow::showTab);

  const QStringList templates = templates_->templates();
  QStringList texts;
  for (const QString& path : templates) texts << templates_->menuText(path);
  menus_->setTemplates(templates, texts);
  startPage_->setTemplates(templates, templates_->folder());
  const auto showRecent = [this] {
    menus_->setRecent(recent_->paths());
    startPage_->setRecent(recent_->paths());
  };
  connect(recent_, &RecentConfigs::changed, this, showRecent);
  showRecent();
}

void MainWindow::openConfigDialog() {
  if (!maybeSave()) return;
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open config"), QFileInfo(editor_->filePath()).absolutePath(),
      tr("PySlowFast configs (*.yaml *.yml);;All files (*)"));
  if (!path.isEmpty()) openConfig(path);
}

void MainWindow::openRunFolderDialog() {
  const QString dir = QFileDialog::getExistingDirectory(
      this, tr("Open a run folder (holding run.json)"), runs_->runsFolder());
  if (dir.isEmpty()) return;
  runs_->addRunDirectory(dir);
  QSettings().setValue("runs/extra", runs_->extraDirectories());
  followRun(dir);
}

void MainWindow::newFromTemplate(const QString& path) {
  if (!maybeSave()) return;
  QString error;
  if (!editor_->newFromTemplate(path, &error))
    QMessageBox::warning(this, tr("New config"), error);
  else
    showTab("config");
}

QAction* MainWindow::startAction() const {
  return menus_->start();
}

bool MainWindow::startPageShown() const {
  return configStack_->currentWidget() == startPage_;
}

void MainWindow::showEditor() {
  if (!startPageShown()) return;
  configStack_->setCurrentWidget(editor_);
  editor_->setPreflightEnabled(true);
  updateValidity();
  updateRunActions();
}

void MainWindow::showTab(const QString& name) {
  QWidget* page = tabIds_.key(name, configStack_);  // an unknown name: the config tab
  tabs_->setCurrentWidget(page);
}

void MainWindow::compareRuns(const QStringList& dirs) {
  runs_->selectRuns(dirs);
  compare_->setRuns(dirs);
  tabs_->setTabText(tabs_->indexOf(compare_), tr("Compare (%1)").arg(dirs.size()));
  showTab("compare");
}

bool MainWindow::followRun(const QString& dir) {
  QString error;
  if (!dashboard_->openRunDirectory(dir, &error)) {
    QMessageBox::warning(this, tr("Cannot open run"), error);
    return false;
  }
  QSettings().setValue("session/run", QDir(dir).absolutePath());
  analysis_->showRun(dir);
  showTab("dashboard");
  return true;
}

bool MainWindow::startTraining(bool quiet) {
  auto cfg = editor_->config();
  QString why;
  if (controller_->isActive())
    why = tr("A run is active: stop it first.");
  else if (startPageShown())
    why = tr("No config is open: open one, start from a template, or train the demo.");
  else if (!cfg)
    why = tr("The config has errors: fix them first (they are listed under the text).");
  else if (editor_->preflightPending()) {
    // The checks run on a worker thread; the start follows their result (preflightChanged).
    startQueued_ = true;
    queuedQuiet_ = quiet;
    statusBar()->showMessage(tr("Checking the device, the data and the files before starting…"),
                             5000);
    return true;
  } else if (const int n = editor_->preflightErrorCount()) {
    QStringList lines;
    for (const auto& d : editor_->preflight()->diagnostics())
      if (d.isError()) lines << QString::fromStdString(d.key + ": " + d.message).toHtmlEscaped();
    why =
        tr("<p>The checks before start found %1 (listed under the config):</p><ul><li>%2</li></ul>")
            .arg(widgets::countText(n, tr("error"), tr("errors")), lines.join("</li><li>"));
    showTab("config");
  }
  if (!why.isEmpty()) {
    if (!quiet) QMessageBox::information(this, tr("Cannot start"), why);
    return false;
  }
  return beginTraining(*cfg, quiet);
}

bool MainWindow::beginTraining(const config::Config& cfg, bool quiet) {
  const QString name = QFileInfo(QString::fromStdString(cfg.getString("OUTPUT_DIR"))).fileName();
  dashboard_->beginRun(name);
  QString error;
  if (!controller_->start(cfg, editor_->filePath(), &error)) {
    dashboard_->setRunState(tr("Failed"), error);
    if (!quiet) QMessageBox::warning(this, tr("Cannot start"), error);
    return false;
  }
  if (controller_->outputDirUsed() != QString::fromStdString(cfg.getString("OUTPUT_DIR")))
    statusBar()->showMessage(
        statusText_->outputDirMoved(QString::fromStdString(cfg.getString("OUTPUT_DIR")),
                                    controller_->outputDirUsed()),
        10000);
  dashboard_->beginRun(QFileInfo(controller_->runDir()).fileName());
  // Multi-label (Charades) is judged by mAP: its chart says so before the first validation.
  dashboard_->setMultiLabel(cfg.getBool("DATA.MULTI_LABEL"));
  // A resumed run: its history first. Steps the engine has already written again arrive after
  // its "resumed" event, which drops the older copies, so nothing is shown twice.
  dashboard_->appendEvents(runlog::MetricsReader::readAll(
      runlog::RunDirectory(controller_->runDir().toStdString()).metricsPath()));
  dashboard_->setRunState(tr("Running"));
  runs_->refresh();
  showTab("dashboard");
  return true;
}

bool MainWindow::startDemo(const QString& configPath) {
  if (demoData_->isRunning() || !openConfig(configPath)) return false;
  auto cfg = editor_->config();
  if (!cfg) return false;
  // The demo templates of the frame datasets train on the same clips in their layout.
  data::DemoFormat format = data::DemoFormat::Kinetics;
  (void)data::demoFormatFromName(cfg->getString("TRAIN.DATASET"), format);  // else Kinetics'
  // AVA's folders are AVA.FRAME_DIR, FRAME_LIST_DIR and ANNOTATION_DIR: the demo writes them as
  // frames/, frame_lists/ and annotations/ of one folder.
  const QString dataDir =
      format == data::DemoFormat::Ava
          ? QFileInfo(QString::fromStdString(cfg->getString("AVA.FRAME_DIR"))).path()
          : QString::fromStdString(cfg->getString("DATA.PATH_TO_DATA_DIR"));
  if (DemoDataJob::isCurrent(dataDir, format)) return startTraining();
  demoData_->start(dataDir, data::DemoDataOptions{}.clips_per_class, format);
  // The training starts when it has finished (constructor).
  const QString what =
      format == data::DemoFormat::Kinetics ? tr("8 motion classes, 1,200 short clips")
      : format == data::DemoFormat::Ssv2
          ? tr("8 motion classes, 1,000 clips as JPEG frames with SSv2's lists")
      : format == data::DemoFormat::Charades
          ? tr("8 motion classes, 500 videos of overlapping actions as JPEG frames")
          : tr("8 motion classes, 250 videos of moving \"persons\" with boxes at keyframes");
  auto* dialog = new QProgressDialog(tr("Writing the demo dataset to %1 (%2)…").arg(dataDir, what),
                                     QString(), 0, 100, this);
  dialog->setWindowTitle(tr("Demo dataset"));
  dialog->setWindowModality(Qt::WindowModal);
  dialog->setMinimumDuration(0);
  connect(demoData_, &DemoDataJob::progressed, dialog, &QProgressDialog::setValue);
  connect(demoData_, &DemoDataJob::finished, dialog, &QObject::deleteLater);
  dialog->show();
  return true;
}

bool MainWindow::openConfig(const QString& path) {
  QString error;
  if (!editor_->openFile(path, &error)) {
    QMessageBox::warning(this, tr("Cannot open config"), error);
    return false;
  }
  recent_->remember(editor_->filePath());
  return true;
}

void MainWindow::restoreSession() {
  if (const QString config = recent_->lastConfig(); !config.isEmpty()) openConfig(config);
  QSettings settings;
  const QString run = settings.value("session/run").toString();
  if (!run.isEmpty() && runlog::RunDirectory(run.toStdString()).exists()) {
    if (runs_->runsFolder().isEmpty() ||
        !run.startsWith(QDir(runs_->runsFolder()).absolutePath() + "/"))
      runs_->addRunDirectory(run);
    runs_->selectRuns({run});
    QString error;
    dashboard_->openRunDirectory(run,
                                 &error);  // shown on the Dashboard tab; the config stays in front
  }
}

void MainWindow::setRunsFolder(const QString& folder) {
  runs_->setRunsFolder(folder);
}

void MainWindow::updateValidity() {
  StatusBarText::ConfigChecks c;
  c.configOpen = !startPageShown();
  c.errors = editor_->errorCount();
  c.warnings = editor_->shownWarningCount();
  c.preflightPending = editor_->preflightPending();
  c.preflightErrors = editor_->preflightErrorCount();
  c.preflightWarnings =
      static_cast<int>(editor_->preflight()->diagnostics().size()) - c.preflightErrors;
  validity_->setText(statusText_->configChecks(c));
}

void MainWindow::updateRunActions() {
  const bool active = controller_->isActive();
  audit_->setTrainingActive(
      active);  // an audit, prediction or preview started now yields the cores to the run
  predict_->setTrainingActive(active);
  preview_->setTrainingActive(active);
  const QString problem = startPageShown() ? tr("no config is open") : editor_->startProblem();
  QAction* start = menus_->start();
  start->setEnabled(!active && problem.isEmpty());
  const QString reason = active                        ? tr("A run is training.")
                         : !problem.isEmpty()          ? tr("Start is off: %1.").arg(problem)
                         : editor_->preflightPending() ? tr("Checking before start…")
                                                       : QString();
  start->setToolTip(reason.isEmpty() || editor_->preflightPending() ? tr("Train this config (F5)")
                                                                    : reason);
  menus_->startReason()->setText(reason);
  menus_->pause()->setEnabled(active);
  menus_->stop()->setEnabled(active);
  const bool paused = controller_->state() == train::TrainerState::Paused;
  menus_->pause()->setText(paused ? tr("&Resume") : tr("&Pause"));
  menus_->pause()->setIcon(
      style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
}

void MainWindow::updateProgress() {
  const auto p = controller_->progress();
  const std::int64_t total = p.totalSteps();
  progress_->setText(statusText_->progress(controller_->state(), p, controller_->etaSeconds()));
  progressBar_->setVisible(controller_->state() != train::TrainerState::Idle && total > 0);
  progressBar_->setRange(0, static_cast<int>(std::max<std::int64_t>(1, total)));
  progressBar_->setValue(static_cast<int>(p.step));
}

bool MainWindow::saveAs() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save config as"), editor_->filePath(),
                                                    tr("PySlowFast configs (*.yaml *.yml)"));
  if (path.isEmpty()) return false;
  QString error;
  if (!editor_->saveAs(path, &error)) {
    QMessageBox::warning(this, tr("Save failed"), error);
    return false;
  }
  recent_->remember(editor_->filePath());
  return true;
}

bool MainWindow::maybeSave() {
  if (!editor_->isDirty()) return true;
  const auto answer = QMessageBox::question(
      this, tr("Unsaved changes"), tr("The config has unsaved changes. Save them first?"),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Discard) return true;
  QString error;
  if (editor_->filePath().isEmpty()) return saveAs();
  if (editor_->save(&error)) return true;
  QMessageBox::warning(this, tr("Save failed"), error);
  return false;
}

void MainWindow::updateTitle() {
  const QString name = editor_->filePath().isEmpty() ? tr("untitled.yaml")
                                                     : QFileInfo(editor_->filePath()).fileName();
  setWindowTitle(QStringLiteral("%1[*] — AMP Studio").arg(name));
  setWindowModified(editor_->isDirty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  if (controller_->isActive()) {
    const auto answer = QMessageBox::question(
        this, tr("A run is training"),
        tr("Stop the run (after the current iteration, with a checkpoint) and quit?"),
        QMessageBox::Yes | QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    controller_->stop();
    controller_->waitForEnd();
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("dashboard/smoothing", dashboard_->smoothing());
  event->accept();
}

}  // namespace amp::gui
