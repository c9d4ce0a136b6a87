#include "StudioMenus.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QToolBar>
#include <utility>

namespace amp::gui {

StudioMenus::StudioMenus(QMainWindow* window)
    : QObject(window),
      start_(new QAction(window->style()->standardIcon(QStyle::SP_MediaPlay), tr("&Start Training"),
                         window)),
      pause_(
          new QAction(window->style()->standardIcon(QStyle::SP_MediaPause), tr("&Pause"), window)),
      stop_(new QAction(window->style()->standardIcon(QStyle::SP_MediaStop), tr("S&top"), window)),
      startReason_(new QLabel) {
  start_->setShortcut(Qt::Key_F5);
  pause_->setShortcut(Qt::Key_F6);
  stop_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  stop_->setToolTip(tr("Stop after the current iteration and write a checkpoint (Shift+F5)"));
  createToolBar(window);

  QMenu* file = window->menuBar()->addMenu(tr("&File"));
  newMenu_ = file->addMenu(tr("&New from Template"));
  file->addAction(tr("&Open Config…"), QKeySequence::Open, this, &StudioMenus::openRequested);
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("&Save"), QKeySequence::Save, this, &StudioMenus::saveRequested);
  file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &StudioMenus::saveAsRequested);
  file->addAction(tr("Re&vert"), this, &StudioMenus::revertRequested);
  file->addSeparator();
  file->addAction(tr("Open Run &Folder…"), this, &StudioMenus::runFolderRequested);
  file->addAction(tr("Export Metrics as &CSV…"), this, &StudioMenus::exportCsvRequested);
  file->addAction(tr("Export &Charts…"), this, &StudioMenus::exportChartsRequested);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, window, &QWidget::close);

  QMenu* run = window->menuBar()->addMenu(tr("&Run"));
  run->addActions({start_, pause_, stop_});
  run->addSeparator();
  run->addAction(tr("Train the &Demo"), this, &StudioMenus::demoRequested);

  QMenu* view = window->menuBar()->addMenu(tr("&View"));
  const std::pair<QString, QString> tabs[] = {{tr("&Config"), "config"},
                                              {tr("&Dashboard"), "dashboard"},
                                              {tr("Co&mpare"), "compare"},
                                              {tr("&Analysis of a run"), "analysis"},
                                              {tr("C&lips the model sees"), "clips"},
                                              {tr("&Precision audit"), "precision"},
                                              {tr("P&redict videos"), "predict"}};
  int key = Qt::Key_1;  // Ctrl+1 ... Ctrl+7 in the order of the tabs
  for (const auto& [text, name] : tabs)
    view->addAction(text, QKeySequence(Qt::CTRL | Qt::Key(key++)), this,
                    [this, name = name] { emit tabRequested(name); });
  view->addSeparator();
  for (QDockWidget* dock : window->findChildren<QDockWidget*>())
    view->addAction(dock->toggleViewAction());

  QMenu* help = window->menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About AMP Studio"), window, [window] {
    QMessageBox::about(
        window, tr("About AMP Studio"),
        tr("<b>AMP Studio %1</b><p>PySlowFast-style mixed-precision training of video models, "
           "in a desktop studio.</p><p>GPL-3.0-or-later.</p>")
            .arg(AMPSTUDIO_VERSION));
  });
  setTemplates({}, {});
  setRecent({});
}

void StudioMenus::createToolBar(QMainWindow* window) {
  auto* bar = window->addToolBar(tr("Training"));
  bar->setObjectName("TrainingToolBar");  // saveState() finds it again by this name
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  bar->addActions({start_, pause_, stop_});
  bar->addSeparator();
  startReason_->setContentsMargins(8, 0, 8, 0);
  bar->addWidget(startReason_);
}

void StudioMenus::setTemplates(const QStringList& paths, const QStringList& texts) {
  newMenu_->clear();
  for (int i = 0; i < paths.size(); ++i) {
    const QString path = paths[i];
    newMenu_->addAction(texts.value(i, path), this, [this, path] { emit templateChosen(path); })
        ->setToolTip(path);
    if (i == 0) newMenu_->addSeparator();
  }
  newMenu_->setEnabled(!paths.isEmpty());
}

void StudioMenus::setRecent(const QStringList& paths) {
  recentMenu_->clear();
  for (const QString& path : paths)
    recentMenu_
        ->addAction(QFileInfo(path).fileName(), this, [this, path] { emit recentChosen(path); })
        ->setToolTip(path);
  recentMenu_->setEnabled(!paths.isEmpty());
}

}  // namespace amp::gui
