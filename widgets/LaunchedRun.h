#pragma once
// A data-parallel run started from the studio: `ampstudio-cli train` as a child process, which
// launches the worker processes (one per GPU or DIST.CPU_PROCESSES on the CPU), followed through
// its run directory like any CLI run. Pause, resume and stop reach every rank as SIGUSR1, SIGUSR2
// and SIGINT through the launcher. The same small surface as the engine's Trainer, polled from
// the GUI thread.
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <memory>
#include <vector>

#include "config/Config.h"
#include "runlog/MetricsReader.h"
#include "train/Trainer.h"

namespace amp::widgets {

class LaunchedRun {
 public:
  /// `cliPath`: the ampstudio-cli executable; `cfg` (with OUTPUT_DIR the run's folder) is
  /// written to a private temporary folder and trained from there; run.json names
  /// `configSource` as where it came from.
  LaunchedRun(QString cliPath, config::Config cfg, QString configSource);
  ~LaunchedRun();  ///< stops the run and waits for it

  bool start(QString* error);
  void pause();
  void resume();
  void stop();
  /// Blocks until the launcher has ended (the next poll() then delivers the last events and
  /// the final state).
  void wait();

  train::TrainerState state() const { return state_; }
  QString error() const { return error_; }
  train::TrainerProgress progress() const { return progress_; }
  /// Events the run appended since the last call; updates state and progress.
  std::vector<runlog::MetricEvent> poll();

  /// Where the studio finds ampstudio-cli: $AMPSTUDIO_CLI, beside the studio, or in the build tree.
  static QString findCli();

 private:
  void signalLauncher(int sig);
  void finish();
  QString cliPath_;
  config::Config cfg_;
  QString configSource_, runDir_;
  QTemporaryDir
      scratch_;  ///< the resolved config, the ranks' rendezvous file, the launcher's stderr
  std::unique_ptr<QProcess> process_;
  std::unique_ptr<runlog::MetricsReader> reader_;
  train::TrainerState state_ = train::TrainerState::Idle;
  QString error_;
  train::TrainerProgress progress_;
  bool multigrid_ =
      false;               // shape_change events give the pace; epochs from train records would not
  double launchedAt_ = 0;  ///< unix seconds: an older run.json in the folder is not this run's
};

}  // namespace amp::widgets
