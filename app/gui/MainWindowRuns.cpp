// MainWindow's run list wiring: what a run's activation, selection and context-menu actions open
// in the tabs (the dashboard, Compare, Analysis, Clips, Precision, Predict).
#include <QDir>
#include <QSettings>
#include <QTabWidget>

#include "AnalysisPanel.h"
#include "ClipPreviewPanel.h"
#include "ComparisonPanel.h"
#include "MainWindow.h"
#include "PrecisionAuditPanel.h"
#include "PredictPanel.h"
#include "RunListPanel.h"
#include "TrainingController.h"

namespace amp::gui {

void MainWindow::wireRunList() {
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
  connect(runs_, &widgets::RunListPanel::selectionChanged, this, [this](const QStringList& dirs) {
    if (dirs.size() != 1) return;
    QSettings().setValue("session/run", QDir(dirs.front()).absolutePath());
    analysis_->showRun(dirs.front());  // the Analysis tab shows the run selected
  });
  connect(analysis_, &widgets::AnalysisPanel::predictRequested, this,
          [this](const QString& dir, const QString& video) {
            showTab("predict");
            if (predict_->useRun(dir)) {
              predict_->addVideos({video});
              predict_->predict();
            }
          });
  connect(analysis_, &widgets::AnalysisPanel::clipRequested, this,
          [this](const QString& dir, const QString& split, const QString& video) {
            showTab("clips");
            preview_->showSample(dir, split, video);
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
    tabs_->setTabText(tabs_->indexOf(compare_), tr("Compare (%1)").arg(dirs.size()));
    if (first) showTab("compare");
  });
}

}  // namespace amp::gui
