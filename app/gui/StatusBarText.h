#pragma once
// The words of the main window's status bar, from plain values: how the open config stands
// (its own checks, then the pre-flight checks), where a run is, this machine, and the messages
// a run's end or the demo dataset leave. The window reads the panels and puts the text up; this
// class decides what it says, so the wording is tested without a window.
//
//   StatusBarText text;
//   StatusBarText::ConfigChecks checks;
//   checks.configOpen = true, checks.warnings = 2;
//   validityLabel->setText(text.configChecks(checks));  // "Config valid, 2 warnings · ..."
//   progressLabel->setText(text.progress(controller->state(), controller->progress(),
//                                        controller->etaSeconds()));
#include <QObject>
#include <QString>
#include <optional>

#include "train/Trainer.h"

namespace amp::system {
struct DeviceInfo;
}
namespace amp::data {
struct DemoDataSummary;
}

namespace amp::gui {

class StatusBarText : public QObject {
  Q_OBJECT
 public:
  /// The counts the problem list under the config shows (a refused key is its pre-flight error
  /// only, so it is not counted twice).
  struct ConfigChecks {
    bool configOpen = false;  ///< false while the start page shows
    int errors = 0, warnings = 0;
    bool preflightPending = false;
    int preflightErrors = 0, preflightWarnings = 0;
  };

  explicit StatusBarText(QObject* parent = nullptr);

  /// "CUDA: <first GPU>" or "CPU · <cores> cores · <BLAS>": what a run here trains on.
  QString device(const system::DeviceInfo& machine) const;
  /// "Config valid · ready to train here", "Config: 2 errors", "No config open" ...
  QString configChecks(const ConfigChecks& c) const;
  /// "Running · epoch 2/10 · step 130/1000 · ETA 0:04:10"; empty when no run has started. The
  /// ETA shows only while the run is running or paused (a finished run has none left).
  QString progress(train::TrainerState state, const train::TrainerProgress& p,
                   std::optional<double> etaSeconds) const;
  /// What a run's end leaves in the status bar.
  QString runEnded(train::TrainerState state, const QString& error) const;
  /// Said when OUTPUT_DIR held a finished run and this one went to a fresh folder beside it.
  QString outputDirMoved(const QString& requested, const QString& used) const;
  QString demoDataWritten(const data::DemoDataSummary& summary, const QString& dir) const;
};

}  // namespace amp::gui
