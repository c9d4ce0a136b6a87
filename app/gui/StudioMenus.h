#pragma once
// The studio's menu bar and Training toolbar: their actions, shortcuts and icons, File > New
// from Template and Open Recent. A view like the start page: it says what was chosen and the
// window does it, so the window's file stays the wiring between panels.
//
//   auto* menus = new StudioMenus(window);  // after the docks: View lists their toggles
//   connect(menus, &StudioMenus::openRequested, window, &MainWindow::openConfigDialog);
//   connect(menus->start(), &QAction::triggered, window, [window] { window->startTraining(); });
//   menus->setRecent(recentConfigs->paths());
#include <QObject>
#include <QStringList>

class QAction;
class QLabel;
class QMainWindow;
class QMenu;

namespace amp::gui {

class StudioMenus : public QObject {
  Q_OBJECT
 public:
  /// Adds the menus and the toolbar to `window` (and is its child).
  explicit StudioMenus(QMainWindow* window);

  /// File > New from Template: `texts[i]` shown for `paths[i]`; a line under the first (the
  /// demo). Off when there are none.
  void setTemplates(const QStringList& paths, const QStringList& texts);
  /// File > Open Recent: file names, the whole path as tooltip. Off when there are none.
  void setRecent(const QStringList& paths);

  QAction* start() const { return start_; }
  QAction* pause() const { return pause_; }
  QAction* stop() const { return stop_; }
  /// The toolbar's line beside Stop: why Start is off, or that a run trains.
  QLabel* startReason() const { return startReason_; }

 signals:
  void templateChosen(const QString& path);
  void recentChosen(const QString& path);
  void openRequested();
  void saveRequested();
  void saveAsRequested();
  void revertRequested();
  void runFolderRequested();
  void exportCsvRequested();
  void exportChartsRequested();
  void demoRequested();
  /// View > a tab: "config", "dashboard", "compare", "clips", "precision" or "predict".
  void tabRequested(const QString& name);

 private:
  void createToolBar(QMainWindow* window);
  QAction* start_;
  QAction* pause_;
  QAction* stop_;
  QLabel* startReason_;
  QMenu* newMenu_ = nullptr;
  QMenu* recentMenu_ = nullptr;
};

}  // namespace amp::gui
