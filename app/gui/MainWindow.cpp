#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCommandLinkButton>
#include <QDir>
#include <QDirIterator>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QProgressDialog>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

#include "ClipPreviewPanel.h"
#include "ComparisonPanel.h"
#include "ConfigEditorPanel.h"
#include "DashboardPanel.h"
#include "MetricChart.h"
#include "PrecisionAuditPanel.h"
#include "PrecisionForm.h"
#include "PredictPanel.h"
#include "PreflightRunner.h"
#include "RunListPanel.h"
#include "SchemaBrowser.h"
#include "StartPage.h"
#include "TrainingController.h"
#include "configfile/ConfigLoader.h"
#include "data/DemoDataGenerator.h"
#include "runlog/MetricsReader.h"
#include "runlog/RunDirectory.h"
#include "system/DeviceInfo.h"

namespace amp::gui {
namespace {
constexpr int kMaxRecent = 8;

QString deviceSummary(const system::DeviceInfo& d) {
  if (!d.cuda_devices.empty())
    return QObject::tr("CUDA: %1").arg(QString::fromStdString(d.cuda_devices.front().name));
  return QObject::tr("CPU · %1 cores · %2").arg(d.cpu_cores).arg(QString::fromStdString(d.blas));
}

// The configs/ folder: beside the working folder (scripts/run.sh), else above the executable
// (a build folder inside the source tree).
QString configsFolder() {
  if (QFileInfo(QStringLiteral("configs/demo")).isDir())
    return QDir(QStringLiteral("configs")).absolutePath();
  QDir dir(QApplication::applicationDirPath());
  for (int up = 0; up < 4 && dir.cdUp(); ++up)
    if (QFileInfo(dir.filePath(QStringLiteral("configs/demo"))).isDir())
      return dir.filePath(QStringLiteral("configs"));
  return {};
}

// The demo's config under configs/, or empty where there is no configs/ folder.
QString demoConfigPath() {
  const QString root = configsFolder();
  const QString demo =
      root.isEmpty() ? QString() : QDir(root).filePath(QStringLiteral("demo/DEMO_X3D_TINY.yaml"));
  return QFileInfo(demo).isFile() ? demo : QString();
}

/// True when `dir` holds a demo dataset of the current generator version.
bool demoDataCurrent(const QString& dir) {
  std::ifstream in(QDir(dir).filePath("demo-data.json").toStdString());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto j = nlohmann::json::parse(text, nullptr, false);
  return QFileInfo::exists(QDir(dir).filePath("train.csv")) && j.is_object() &&
         j.value("version", 0) == data::kDemoDataVersion;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      editor_(new widgets::ConfigEditorPanel),
      startPage_(new widgets::StartPage),
      configStack_(new QStackedWidget),
      dashboard_(new widgets::DashboardPanel),
      compare_(new widgets::ComparisonPanel),
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
      startReason_(new QLabel) {
  setObjectName("AmpStudioMainWindow");
  configStack_->addWidget(startPage_);
  configStack_->addWidget(editor_);
  tabs_->addTab(configStack_, tr("Config"));
  tabs_->addTab(dashboard_, tr("Dashboard"));
  tabs_->addTab(compare_, tr("Compare"));
  tabs_->addTab(preview_, tr("Clips"));
  tabs_->addTab(audit_, tr("Precision"));
  tabs_->addTab(predict_, tr("Predict"));
  audit_->setConfigSource([this] { return editor_->config(); });
  predict_->setConfigSource([this] { return editor_->config(); });
  preview_->setConfigSource([this] { return editor_->config(); });
  connect(tabs_, &QTabWidget::currentChanged, this,
          [this](int i) {  // the first visit shows the first clip
            if (tabs_->widget(i) == preview_ && preview_->clips().empty() && !preview_->busy())
              preview_->showClip();
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
    device_->setText(deviceSummary(machine));
    startPage_->setFootnote(tr("This machine: %1.").arg(deviceSummary(machine)));
    editor_->form()->setMachine(static_cast<int>(machine.cuda_devices.size()),
                                machine.cuda_devices.empty()
                                    ? QString()
                                    : QString::fromStdString(machine.cuda_devices.front().name),
                                machine.cpu_cores);
  }
  // The pre-flight checks start with the first config; the start page has none to check.
  connect(startPage_, &widgets::StartPage::demoRequested, this,
          [this] { startDemo(demoConfigPath()); });
  startPage_->demoButton()->setEnabled(!demoConfigPath().isEmpty());
  if (demoConfigPath().isEmpty())
    startPage_->demoButton()->setToolTip(
        tr("No configs/demo folder beside the working folder or the program"));
  connect(startPage_, &widgets::StartPage::openRequested, this, &MainWindow::openConfigDialog);
  connect(startPage_, &widgets::StartPage::blankRequested, this, &MainWindow::showEditor);
  connect(startPage_, &widgets::StartPage::runFolderRequested, this,
          &MainWindow::openRunFolderDialog);
  connect(startPage_, &widgets::StartPage::recentChosen, this,
          [this](const QString& path) { openConfig(path); });
  connect(startPage_, &widgets::StartPage::templateChosen, this, &MainWindow::newFromTemplate);
  auto leaveStartPage = [this] {
    if (!editor_->filePath().isEmpty() || editor_->isDirty()) showEditor();
  };
  connect(editor_, &widgets::ConfigEditorPanel::filePathChanged, this, leaveStartPage);
  connect(editor_, &widgets::ConfigEditorPanel::dirtyChanged, this, leaveStartPage);

  createActions();
  createMenus();
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
            updateRunActions();
            statusBar()->showMessage(
                s == train::TrainerState::Failed
                    ? tr("The run failed: %1").arg(error)
                    : tr("The run %1.").arg(widgets::TrainingController::stateName(s).toLower()),
                15000);
          });
  connect(runs_, &widgets::RunListPanel::runActivated, this, [this](const QString& dir) {
    if (QDir(dir) == QDir(controller_->runDir()) && controller_->isActive())
      showTab("dashboard");
    else
      followRun(dir);
  });
  connect(runs_, &widgets::RunListPanel::predictRequested, this, [this](const QString& dir) {
    showTab("predict");
    predict_->useRun(dir);
  });
  connect(runs_, &widgets::RunListPanel::selectionChanged, this, [](const QStringList& dirs) {
    if (dirs.size() == 1) QSettings().setValue("session/run", QDir(dirs.front()).absolutePath());
  });
  connect(runs_, &widgets::RunListPanel::compareRequested, this, &MainWindow::compareRuns);
  connect(runs_, &widgets::RunListPanel::clipsRequested, this, [this](const QString& dir) {
    showTab("clips");
    preview_->showRun(dir);
  });
  connect(runs_, &widgets::RunListPanel::auditRequested, this, [this](const QString& dir) {
    showTab("precision");
    audit_->auditRun(dir);
  });
  connect(runs_, &widgets::RunListPanel::selectionChanged, this, [this](const QStringList& dirs) {
    if (dirs.size() < 2) return;
    const bool first = compare_->runs().size() < 2;
    compare_->setRuns(dirs);
    tabs_->setTabText(2, tr("Compare (%1)").arg(dirs.size()));
    if (first) showTab("compare");
  });
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

void MainWindow::createActions() {
  start_ = new QAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("&Start Training"), this);
  start_->setShortcut(Qt::Key_F5);
  connect(start_, &QAction::triggered, this, [this] { startTraining(); });
  pause_ = new QAction(style()->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), this);
  pause_->setShortcut(Qt::Key_F6);
  connect(pause_, &QAction::triggered, this, [this] {
    if (controller_->state() == train::TrainerState::Paused)
      controller_->resume();
    else
      controller_->pause();
  });
  stop_ = new QAction(style()->standardIcon(QStyle::SP_MediaStop), tr("S&top"), this);
  stop_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  stop_->setToolTip(tr("Stop after the current iteration and write a checkpoint (Shift+F5)"));
  connect(stop_, &QAction::triggered, controller_, &widgets::TrainingController::stop);
  auto* bar = addToolBar(tr("Training"));
  bar->setObjectName("TrainingToolBar");
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->addAction(start_);
  bar->addAction(pause_);
  bar->addAction(stop_);
  bar->addSeparator();
  startReason_->setContentsMargins(8, 0, 8, 0);
  bar->addWidget(startReason_);
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  newMenu_ = file->addMenu(tr("&New from Template"));
  updateNewMenu();
  file->addAction(tr("&Open Config…"), QKeySequence::Open, this, &MainWindow::openConfigDialog);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("&Save"), QKeySequence::Save, this, [this] {
    QString error;
    if (editor_->filePath().isEmpty())
      saveAs();
    else if (!editor_->save(&error))
      QMessageBox::warning(this, tr("Save failed"), error);
  });
  file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] { saveAs(); });
  file->addAction(tr("Re&vert"), this, [this] { editor_->revert(); });
  file->addSeparator();
  file->addAction(tr("Open Run &Folder…"), this, &MainWindow::openRunFolderDialog);
  file->addAction(tr("Export Metrics as &CSV…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export the dashboard run's metrics"), "metrics.csv", tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !dashboard_->exportCsv(path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  });
  file->addAction(tr("Export &Charts…"), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Folder for the dashboard's charts (PNG and PDF)"));
    if (dir.isEmpty()) return;
    const QStringList written =
        dashboard_->exportCharts(dir, "png") + dashboard_->exportCharts(dir, "pdf");
    statusBar()->showMessage(tr("Wrote %1 files to %2").arg(written.size()).arg(dir), 8000);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(start_);
  run->addAction(pause_);
  run->addAction(stop_);
  run->addSeparator();
  run->addAction(tr("Train the &Demo"), this, [this] {
    if (maybeSave()) startDemo(demoConfigPath());
  });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Config"), QKeySequence(Qt::CTRL | Qt::Key_1), this,
                  [this] { showTab("config"); });
  view->addAction(tr("&Dashboard"), QKeySequence(Qt::CTRL | Qt::Key_2), this,
                  [this] { showTab("dashboard"); });
  view->addAction(tr("Co&mpare"), QKeySequence(Qt::CTRL | Qt::Key_3), this,
                  [this] { showTab("compare"); });
  view->addAction(tr("C&lips the model sees"), QKeySequence(Qt::CTRL | Qt::Key_4), this,
                  [this] { showTab("clips"); });
  view->addAction(tr("&Precision audit"), QKeySequence(Qt::CTRL | Qt::Key_5), this,
                  [this] { showTab("precision"); });
  view->addAction(tr("P&redict videos"), QKeySequence(Qt::CTRL | Qt::Key_6), this,
                  [this] { showTab("predict"); });
  view->addSeparator();
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About AMP Studio"), this, [this] {
    QMessageBox::about(
        this, tr("About AMP Studio"),
        tr("<b>AMP Studio %1</b><p>PySlowFast-style mixed-precision training of video models, "
           "in a desktop studio.</p><p>GPL-3.0-or-later.</p>")
            .arg(AMPSTUDIO_VERSION));
  });
  updateRecentMenu();
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
  const int i = name == "dashboard"   ? 1
                : name == "compare"   ? 2
                : name == "clips"     ? 3
                : name == "precision" ? 4
                : name == "predict"   ? 5
                                      : 0;
  tabs_->setCurrentIndex(i);
}

void MainWindow::compareRuns(const QStringList& dirs) {
  runs_->selectRuns(dirs);
  compare_->setRuns(dirs);
  tabs_->setTabText(2, tr("Compare (%1)").arg(dirs.size()));
  showTab("compare");
}

bool MainWindow::followRun(const QString& dir) {
  QString error;
  if (!dashboard_->openRunDirectory(dir, &error)) {
    QMessageBox::warning(this, tr("Cannot open run"), error);
    return false;
  }
  QSettings().setValue("session/run", QDir(dir).absolutePath());
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
        tr("%1 holds a finished run: this one goes to %2")
            .arg(QString::fromStdString(cfg.getString("OUTPUT_DIR")), controller_->outputDirUsed()),
        10000);
  dashboard_->beginRun(QFileInfo(controller_->runDir()).fileName());
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
  if (!openConfig(configPath)) return false;
  auto cfg = editor_->config();
  if (!cfg) return false;
  const QString dataDir = QString::fromStdString(cfg->getString("DATA.PATH_TO_DATA_DIR"));
  if (!demoDataCurrent(dataDir)) {
    QDir(dataDir).removeRecursively();
    data::DemoDataOptions o;
    o.out_dir = dataDir.toStdString();
    o.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    std::atomic<int> done{0}, total{1};
    std::atomic<bool> finished{false};
    bool ok = false;
    std::string error;
    data::DemoDataSummary summary;
    QProgressDialog dialog(
        tr("Writing the demo dataset to %1 (8 motion classes, 1,200 short clips)…").arg(dataDir),
        QString(), 0, 100, this);
    dialog.setWindowTitle(tr("Demo dataset"));
    dialog.setWindowModality(Qt::WindowModal);
    dialog.setMinimumDuration(0);
    std::thread worker([&] {
      try {  // an exception leaving this thread would end the studio
        ok = data::generateDemoData(o, summary, &error,
                                    [&](int d, int t) { done = d, total = std::max(1, t); });
      } catch (const std::exception& e) {
        error = e.what();
      }
      finished = true;
    });
    QTimer poll;
    QEventLoop loop;
    connect(&poll, &QTimer::timeout, &loop, [&] {
      dialog.setValue(100 * done / total);
      if (finished) loop.quit();
    });
    poll.start(50);
    loop.exec();
    worker.join();
    dialog.setValue(100);
    if (!ok) {
      QMessageBox::warning(this, tr("Demo dataset"), QString::fromStdString(error));
      return false;
    }
    statusBar()->showMessage(tr("Wrote %1 train, %2 val, %3 test clips to %4")
                                 .arg(summary.train)
                                 .arg(summary.val)
                                 .arg(summary.test)
                                 .arg(dataDir),
                             10000);
    editor_->preflight()->recheck();  // the dataset is there now
  }
  return startTraining();
}

bool MainWindow::openConfig(const QString& path) {
  QString error;
  if (!editor_->openFile(path, &error)) {
    QMessageBox::warning(this, tr("Cannot open config"), error);
    return false;
  }
  rememberRecent(editor_->filePath());
  QSettings().setValue("session/config", editor_->filePath());
  return true;
}

void MainWindow::restoreSession() {
  QSettings settings;
  const QString config = settings.value("session/config").toString();
  if (!config.isEmpty() && QFileInfo(config).isFile()) openConfig(config);
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

QStringList MainWindow::templateConfigs() {
  const QString root = configsFolder();
  if (root.isEmpty()) return {};
  QStringList out;
  const QString demo = demoConfigPath();
  if (!demo.isEmpty()) out << demo;
  QDirIterator it(root, {QStringLiteral("*.yaml")}, QDir::Files, QDirIterator::Subdirectories);
  QStringList rest;
  while (it.hasNext()) {
    const QString path = it.next();
    if (path != demo && !QDir(root).relativeFilePath(path).contains(QStringLiteral("base/")))
      rest << path;
  }
  rest.sort(Qt::CaseInsensitive);  // demo/ before Kinetics/
  return out + rest;
}

void MainWindow::updateNewMenu() {
  newMenu_->clear();
  const QString root = configsFolder();
  const QStringList templates = templateConfigs();
  for (int i = 0; i < templates.size(); ++i) {
    const QString path = templates[i];
    const QString rel = QDir(root).relativeFilePath(path);
    QAction* a = newMenu_->addAction(i == 0 && rel.startsWith(QStringLiteral("demo/"))
                                         ? tr("Demo: tiny X3D on generated clips (%1)").arg(rel)
                                         : rel,
                                     this, [this, path] { newFromTemplate(path); });
    a->setToolTip(path);
    if (i == 0) newMenu_->addSeparator();
  }
  newMenu_->setEnabled(!templates.isEmpty());
  startPage_->setTemplates(templates, root);
}

void MainWindow::setRunsFolder(const QString& folder) {
  runs_->setRunsFolder(folder);
}

void MainWindow::updateValidity() {
  if (startPageShown()) {
    validity_->setText(tr("No config open"));
    return;
  }
  // The counts of the problem list under the config (a refused key is its pre-flight error only).
  const int errors = editor_->errorCount(), warnings = editor_->shownWarningCount();
  QString text = errors     ? tr("Config: %1").arg(widgets::problemsText(errors, 0))
                 : warnings ? tr("Config valid, %1").arg(widgets::problemsText(0, warnings))
                            : tr("Config valid");
  if (!errors) {
    const int pfErrors = editor_->preflightErrorCount();
    const int pfWarnings = static_cast<int>(editor_->preflight()->diagnostics().size()) - pfErrors;
    if (editor_->preflightPending())
      text += tr(" · checking before start…");
    else if (pfErrors || pfWarnings)
      text += tr(" · before start: %1").arg(widgets::problemsText(pfErrors, pfWarnings));
    else
      text += tr(" · ready to train here");
  }
  validity_->setText(text);
}

void MainWindow::updateRunActions() {
  const bool active = controller_->isActive();
  audit_->setTrainingActive(
      active);  // an audit, prediction or preview started now yields the cores to the run
  predict_->setTrainingActive(active);
  preview_->setTrainingActive(active);
  const QString problem = startPageShown() ? tr("no config is open") : editor_->startProblem();
  start_->setEnabled(!active && problem.isEmpty());
  const QString reason = active                        ? tr("A run is training.")
                         : !problem.isEmpty()          ? tr("Start is off: %1.").arg(problem)
                         : editor_->preflightPending() ? tr("Checking before start…")
                                                       : QString();
  start_->setToolTip(reason.isEmpty() || editor_->preflightPending() ? tr("Train this config (F5)")
                                                                     : reason);
  startReason_->setText(reason);
  pause_->setEnabled(active);
  stop_->setEnabled(active);
  const bool paused = controller_->state() == train::TrainerState::Paused;
  pause_->setText(paused ? tr("&Resume") : tr("&Pause"));
  pause_->setIcon(style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
}

void MainWindow::updateProgress() {
  const auto p = controller_->progress();
  const auto state = controller_->state();
  if (state == train::TrainerState::Idle) {
    progress_->clear();
    progressBar_->hide();
    return;
  }
  const std::int64_t total = p.totalSteps();
  QString text = tr("%1 · epoch %2/%3 · step %4/%5")
                     .arg(widgets::TrainingController::stateName(state))
                     .arg(std::clamp(p.epoch + 1, 1, std::max(1, p.max_epoch)))
                     .arg(p.max_epoch)
                     .arg(p.step)
                     .arg(total);
  if (auto eta = controller_->etaSeconds(); eta && controller_->isActive())
    text += tr(" · ETA %1").arg(widgets::formatDuration(*eta));
  progress_->setText(text);
  progressBar_->setVisible(total > 0);
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
  rememberRecent(editor_->filePath());
  QSettings().setValue("session/config", editor_->filePath());
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

void MainWindow::rememberRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("recentFiles").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recentFiles", recent);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList recent = QSettings().value("recentFiles").toStringList();
  for (const QString& path : recent)
    recentMenu_
        ->addAction(QFileInfo(path).fileName(), this,
                    [this, path] {
                      if (maybeSave()) openConfig(path);
                    })
        ->setToolTip(path);
  recentMenu_->setEnabled(!recent.isEmpty());
  startPage_->setRecent(recent);
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
