#include "StatusBarText.h"

#include <algorithm>

#include "ConfigEditorPanel.h"
#include "TrainingController.h"
#include "data/DemoDataGenerator.h"
#include "system/DeviceInfo.h"
#include "util/Duration.h"

namespace amp::gui {

StatusBarText::StatusBarText(QObject* parent) : QObject(parent) {}

QString StatusBarText::device(const system::DeviceInfo& machine) const {
  if (!machine.cuda_devices.empty())
    return tr("CUDA: %1").arg(QString::fromStdString(machine.cuda_devices.front().name));
  return tr("CPU · %1 cores · %2").arg(machine.cpu_cores).arg(QString::fromStdString(machine.blas));
}

QString StatusBarText::configChecks(const ConfigChecks& c) const {
  if (!c.configOpen) return tr("No config open");
  QString text = c.errors     ? tr("Config: %1").arg(widgets::problemsText(c.errors, 0))
                 : c.warnings ? tr("Config valid, %1").arg(widgets::problemsText(0, c.warnings))
                              : tr("Config valid");
  // A config with errors cannot start whatever the checks before start say: its errors first.
  if (!c.errors) {
    if (c.preflightPending)
      text += tr(" · checking before start…");
    else if (c.preflightErrors || c.preflightWarnings)
      text += tr(" · before start: %1")
                  .arg(widgets::problemsText(c.preflightErrors, c.preflightWarnings));
    else
      text += tr(" · ready to train here");
  }
  return text;
}

QString StatusBarText::progress(train::TrainerState state, const train::TrainerProgress& p,
                                std::optional<double> etaSeconds) const {
  if (state == train::TrainerState::Idle) return {};
  // Epochs count from 0 in the engine and from 1 for people; a run that has not reached its
  // first epoch yet still reads "epoch 1/N".
  QString text = tr("%1 · epoch %2/%3 · step %4/%5")
                     .arg(widgets::TrainingController::stateName(state))
                     .arg(std::clamp(p.epoch + 1, 1, std::max(1, p.max_epoch)))
                     .arg(p.max_epoch)
                     .arg(p.step)
                     .arg(p.totalSteps());
  const bool active = state == train::TrainerState::Running || state == train::TrainerState::Paused;
  if (etaSeconds && active)
    text += tr(" · ETA %1").arg(QString::fromStdString(util::formatDuration(*etaSeconds)));
  return text;
}

QString StatusBarText::runEnded(train::TrainerState state, const QString& error) const {
  return state == train::TrainerState::Failed
             ? tr("The run failed: %1").arg(error)
             : tr("The run %1.").arg(widgets::TrainingController::stateName(state).toLower());
}

QString StatusBarText::outputDirMoved(const QString& requested, const QString& used) const {
  return tr("%1 holds a finished run: this one goes to %2").arg(requested, used);
}

QString StatusBarText::demoDataWritten(const data::DemoDataSummary& summary,
                                       const QString& dir) const {
  return tr("Wrote %1 train, %2 val, %3 test clips to %4")
      .arg(summary.train)
      .arg(summary.val)
      .arg(summary.test)
      .arg(dir);
}

}  // namespace amp::gui
