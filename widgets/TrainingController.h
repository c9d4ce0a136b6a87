#pragma once
// Runs the engine's Trainer for the GUI: the engine thread pushes events into a queue, a timer
// on the GUI thread drains it (25 Hz by default) and hands each batch on in one signal, so the
// charts replot at most once per tick and the UI never waits on training.
#include <QObject>
#include <QTimer>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "LaunchedRun.h"
#include "config/Config.h"
#include "runlog/MetricEvent.h"
#include "train/Trainer.h"

namespace amp::widgets {

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  ~TrainingController() override;  ///< stops a run and waits for its engine thread

  /// Starts training `cfg`. A relative OUTPUT_DIR is taken as it is (like the CLI: from the
  /// working folder). When OUTPUT_DIR already holds a finished run, the run goes to a fresh
  /// folder beside it ("-2", "-3" ...); a stopped or failed run there is resumed (AUTO_RESUME).
  /// A config that asks for several processes (NUM_GPUS > 1, DIST.CPU_PROCESSES > 1, NUM_SHARDS
  /// > 1) runs as `ampstudio-cli train` in child processes, followed through its run directory.
  /// False with `error` when a run is active or the trainer cannot start.
  bool start(const config::Config& cfg, const QString& configSource, QString* error);
  void pause();
  void resume();
  void stop();
  /// Blocks until the engine thread has ended, then delivers what is left (for tests and quit).
  void waitForEnd();

  bool isActive() const;  ///< running or paused
  train::TrainerState state() const;
  QString error() const;
  QString runDir() const { return runDir_; }
  QString outputDirUsed() const { return outputDir_; }
  train::TrainerProgress progress() const;
  /// Seconds left, from the pace of the last steps; nullopt before there is a pace.
  std::optional<double> etaSeconds() const { return eta_; }
  void setTickInterval(int ms) { timer_.setInterval(ms); }

  /// "Running", "Paused", "Finished", "Stopped", "Failed".
  static QString stateName(train::TrainerState s);

 signals:
  void started(const QString& runDir);
  void eventsReady(const std::vector<amp::runlog::MetricEvent>& events);
  void stateChanged(amp::train::TrainerState state);
  void progressChanged();
  /// The run ended (finished, stopped or failed); `error` says why when it failed.
  void ended(amp::train::TrainerState state, const QString& error);

 private:
  void drain();
  std::unique_ptr<train::Trainer> trainer_;  // one process: the engine thread here
  std::unique_ptr<LaunchedRun> launched_;    // several: ampstudio-cli's workers
  std::mutex mutex_;
  std::vector<runlog::MetricEvent> queue_;
  QTimer timer_;
  train::TrainerState lastState_ = train::TrainerState::Idle;
  QString runDir_, outputDir_;
  std::optional<double> eta_;
  std::vector<std::pair<double, double>> pace_;  ///< (time_s, step) of recent train events
};

}  // namespace amp::widgets
