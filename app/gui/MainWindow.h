#pragma once
// Assembles the studio's panels, menus, toolbar and status bar, and wires the training
// controller to them. Holds no logic of its own beyond wiring: the menus and toolbar
// (StudioMenus), which configs to offer (ConfigTemplates), the recent list (RecentConfigs), the
// status bar's words (StatusBarText) and writing the demo dataset (DemoDataJob) live in their own
// classes.
#include <QHash>
#include <QMainWindow>

#include "train/Trainer.h"

class QAction;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTabWidget;

namespace amp::widgets {
class AnalysisPanel;
class ClipPreviewPanel;
class PrecisionAuditPanel;
class PredictPanel;
class ComparisonPanel;
class ConfigEditorPanel;
class DashboardPanel;
class RunListPanel;
class SchemaBrowser;
class StartPage;
class TrainingController;
}  // namespace amp::widgets

namespace amp::gui {
class ConfigTemplates;
class DemoDataJob;
class RecentConfigs;
class StatusBarText;
class StudioMenus;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  bool openConfig(const QString& path);
  void setRunsFolder(const QString& folder);
  /// Starts training the config in the editor. False (with a message box unless `quiet`) when
  /// the config has errors, the pre-flight checks found an error, or a run is active. While the
  /// pre-flight checks of the config are still running, the start waits for them (true: queued).
  bool startTraining(bool quiet = false);
  /// Whether a start waits for the pre-flight checks.
  bool startQueued() const { return startQueued_; }
  /// Opens the last config and shows the last selected run (QSettings), where they still exist.
  void restoreSession();
  /// The demo: opens `config` and starts it, first writing the demo dataset where it is missing
  /// (on a pool thread, with a progress dialog; the start follows when it is written). False
  /// when the config cannot be opened or started, or a demo dataset is being written already.
  bool startDemo(const QString& config);
  /// Whether the Config tab shows the start page (no config opened, started or edited yet).
  bool startPageShown() const;
  /// "config", "dashboard", "compare", "analysis", "clips", "precision" or "predict".
  void showTab(const QString& name);
  void compareRuns(const QStringList& dirs);
  bool followRun(const QString& dir);

  widgets::ConfigEditorPanel* editor() const { return editor_; }
  widgets::DashboardPanel* dashboard() const { return dashboard_; }
  widgets::ComparisonPanel* comparison() const { return compare_; }
  widgets::AnalysisPanel* analysisPanel() const { return analysis_; }
  widgets::ClipPreviewPanel* clipPreview() const { return preview_; }
  widgets::PrecisionAuditPanel* precisionAudit() const { return audit_; }
  widgets::PredictPanel* predictPanel() const { return predict_; }
  widgets::RunListPanel* runList() const { return runs_; }
  widgets::StartPage* startPage() const { return startPage_; }
  widgets::TrainingController* controller() const { return controller_; }
  QAction* startAction() const;

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void wireMenus();
  void wireRunList();  ///< MainWindowRuns.cpp
  void updateTitle();
  void updateRunActions();
  void updateValidity();
  void updateProgress();
  bool saveAs();
  bool maybeSave();
  bool beginTraining(const config::Config& cfg, bool quiet);
  void showEditor();
  void openConfigDialog();
  void openRunFolderDialog();
  void newFromTemplate(const QString& path);

  widgets::ConfigEditorPanel* editor_;
  widgets::StartPage* startPage_;
  QStackedWidget* configStack_;
  widgets::DashboardPanel* dashboard_;
  widgets::ComparisonPanel* compare_;
  widgets::AnalysisPanel* analysis_;
  widgets::ClipPreviewPanel* preview_;
  widgets::PrecisionAuditPanel* audit_;
  widgets::PredictPanel* predict_;
  widgets::RunListPanel* runs_;
  widgets::SchemaBrowser* keys_;
  widgets::TrainingController* controller_;
  QTabWidget* tabs_;
  QHash<QWidget*, QString> tabIds_;  ///< each tab page's id for showTab ("dashboard" ...)
  QLabel* validity_;
  QLabel* progress_;
  QProgressBar* progressBar_;
  QLabel* device_;
  ConfigTemplates* templates_;
  RecentConfigs* recent_;
  StatusBarText* statusText_;
  DemoDataJob* demoData_;
  StudioMenus* menus_ = nullptr;
  bool startQueued_ = false;
  bool queuedQuiet_ = false;
};

}  // namespace amp::gui
