#pragma once
// Assembles the studio's panels, menus and status bar. Holds no logic of its own beyond wiring.
#include <QMainWindow>

class QLabel;
class QMenu;

namespace amp::widgets {
class ConfigEditorPanel;
class RunListPanel;
class SchemaBrowser;
}  // namespace amp::widgets

namespace amp::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  bool openConfig(const QString& path);
  void setRunsFolder(const QString& folder);
  widgets::ConfigEditorPanel* editor() const { return editor_; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createMenus();
  void updateTitle();
  void updateRecentMenu();
  void rememberRecent(const QString& path);
  bool saveAs();
  bool maybeSave();

  widgets::ConfigEditorPanel* editor_;
  widgets::RunListPanel* runs_;
  widgets::SchemaBrowser* keys_;
  QLabel* validity_;
  QLabel* device_;
  QMenu* recentMenu_ = nullptr;
};

}  // namespace amp::gui
