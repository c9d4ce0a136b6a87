#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "ConfigEditorPanel.h"
#include "RunListPanel.h"
#include "SchemaBrowser.h"
#include "system/DeviceInfo.h"

namespace amp::gui {
namespace {
constexpr int kMaxRecent = 8;

QString deviceSummary() {
  const auto d = system::probeDevices();
  if (!d.cuda_devices.empty())
    return QObject::tr("CUDA: %1").arg(QString::fromStdString(d.cuda_devices.front().name));
  return QObject::tr("CPU · %1 cores · %2").arg(d.cpu_cores).arg(QString::fromStdString(d.blas));
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      editor_(new widgets::ConfigEditorPanel),
      runs_(new widgets::RunListPanel),
      keys_(new widgets::SchemaBrowser),
      validity_(new QLabel),
      device_(new QLabel) {
  setObjectName("AmpStudioMainWindow");
  setCentralWidget(editor_);
  auto* runsDock = new QDockWidget(tr("Runs"), this);
  runsDock->setObjectName("RunsDock");
  runsDock->setWidget(runs_);
  addDockWidget(Qt::LeftDockWidgetArea, runsDock);
  auto* keysDock = new QDockWidget(tr("Config keys"), this);
  keysDock->setObjectName("KeysDock");
  keysDock->setWidget(keys_);
  addDockWidget(Qt::RightDockWidgetArea, keysDock);

  statusBar()->addWidget(validity_, 1);
  statusBar()->addPermanentWidget(device_);
  device_->setText(deviceSummary());

  createMenus();
  connect(editor_, &widgets::ConfigEditorPanel::dirtyChanged, this, &MainWindow::updateTitle);
  connect(editor_, &widgets::ConfigEditorPanel::filePathChanged, this, &MainWindow::updateTitle);
  connect(editor_, &widgets::ConfigEditorPanel::validated, this, [this](int errors, int warnings) {
    validity_->setText(errors ? tr("Config: %1").arg(widgets::countText(errors, tr("error"), tr("errors")))
                              : warnings ? tr("Config valid, %1").arg(widgets::countText(warnings, tr("warning"), tr("warnings")))
                                         : tr("Config valid"));
  });
  editor_->validateNow();

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!settings.contains("window/geometry")) resize(1280, 800);
  updateTitle();
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open Config…"), QKeySequence::Open, this, [this] {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open config"), QFileInfo(editor_->filePath()).absolutePath(),
                                                      tr("PySlowFast configs (*.yaml *.yml);;All files (*)"));
    if (!path.isEmpty()) openConfig(path);
  });
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("&Save"), QKeySequence::Save, this, [this] {
    QString error;
    if (editor_->filePath().isEmpty()) saveAs();
    else if (!editor_->save(&error)) QMessageBox::warning(this, tr("Save failed"), error);
  });
  file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, [this] { saveAs(); });
  file->addAction(tr("Re&vert"), this, [this] { editor_->revert(); });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About AMP Studio"), this, [this] {
    QMessageBox::about(this, tr("About AMP Studio"),
                       tr("<b>AMP Studio %1</b><p>PySlowFast-style mixed-precision training of video models, "
                          "in a desktop studio.</p><p>GPL-3.0-or-later.</p>").arg(AMPSTUDIO_VERSION));
  });
  updateRecentMenu();
}

bool MainWindow::openConfig(const QString& path) {
  QString error;
  if (!editor_->openFile(path, &error)) {
    QMessageBox::warning(this, tr("Cannot open config"), error);
    return false;
  }
  rememberRecent(editor_->filePath());
  return true;
}

void MainWindow::setRunsFolder(const QString& folder) { runs_->setRunsFolder(folder); }

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
  return true;
}

bool MainWindow::maybeSave() {
  if (!editor_->isDirty()) return true;
  const auto answer = QMessageBox::question(this, tr("Unsaved changes"),
                                            tr("The config has unsaved changes. Save them first?"),
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
    recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] {
      if (maybeSave()) openConfig(path);
    })->setToolTip(path);
  recentMenu_->setEnabled(!recent.isEmpty());
}

void MainWindow::updateTitle() {
  const QString name = editor_->filePath().isEmpty() ? tr("untitled.yaml") : QFileInfo(editor_->filePath()).fileName();
  setWindowTitle(QStringLiteral("%1[*] — AMP Studio").arg(name));
  setWindowModified(editor_->isDirty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  event->accept();
}

}  // namespace amp::gui
