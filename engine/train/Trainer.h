#pragma once
// Runs one training job on its own engine thread: PySlowFast's training step with the studio's
// precision policy, periodic validation, and every metric written to the run directory.
// Torch-free header: the CLI and the GUI drive it through this class and read its events.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "config/Config.h"
#include "dist/DistEnv.h"
#include "runlog/MetricEvent.h"
#include "runlog/RunLock.h"

namespace amp::train {

enum class TrainerState { Idle, Running, Paused, Finished, Stopped, Failed };
const char* toString(TrainerState s);

struct TrainerProgress {
  int epoch = 0;
  int max_epoch = 0;
  std::int64_t step = 0;
  std::int64_t steps_per_epoch = 0;  ///< of the current epoch (multigrid phases differ)
  std::int64_t total_steps = 0;      ///< the run's optimizer steps when known, else 0
  double last_loss = 0;
  /// The run's steps: total_steps, or every epoch at the current epoch's count.
  std::int64_t totalSteps() const {
    return total_steps > 0 ? total_steps : steps_per_epoch * max_epoch;
  }
};

class Trainer {
 public:
  /// The config is copied: a run's config does not change while it runs.
  Trainer(config::Config cfg, std::string configSource);
  ~Trainer();  ///< stops and joins the engine thread
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Called on the engine thread for every event (after it is written to the run log). Set
  /// before start(); it must be quick and must not call back into the trainer.
  void setEventSink(std::function<void(const runlog::MetricEvent&)> sink);
  /// Benchmarks only (bench overhead): every step trains on one fixed random batch of the
  /// config's clip shape instead of decoding the dataset (no dataset needed: an epoch is 1000
  /// steps); validation is skipped. Set before start().
  void setSyntheticClips(bool on) { synthetic_ = on; }
  /// Data-parallel training: this process is `env.rank` of `env.world_size` (set before start()).
  /// Rank 0 alone writes the run directory; every rank trains its share of each batch and stops,
  /// pauses and fails with the others.
  void setDistributed(dist::DistEnv env) { dist_ = std::move(env); }
  const dist::DistEnv& distributed() const { return dist_; }
  /// Takes the run directory's lock (one writer per OUTPUT_DIR, held until the engine thread
  /// ends) and starts the engine thread. False with `error` when it cannot: OUTPUT_DIR
  /// unwritable, or another trainer (this process or another, this host or another sharing the
  /// folder) is writing it, named by PID and host.
  [[nodiscard]] bool start(std::string* error);
  /// Takes effect between iterations.
  void pause();
  void resume();
  /// Ends the run after the current iteration; the run's status becomes "stopped".
  void stop();
  /// Blocks until the engine thread has ended.
  void wait();

  TrainerState state() const { return state_.load(); }
  std::string error() const;
  TrainerProgress progress() const;
  const std::string& runDir() const { return runDir_; }

 private:
  struct Impl;
  void run();
  config::Config cfg_;
  std::string configSource_;
  std::string runDir_;
  std::function<void(const runlog::MetricEvent&)> sink_;
  std::atomic<TrainerState> state_{TrainerState::Idle};
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> pauseRequested_{false};
  bool synthetic_ = false;
  dist::DistEnv dist_;
  mutable std::mutex mutex_;
  std::string error_;
  TrainerProgress progress_;
  runlog::RunLock lock_;
  std::thread thread_;
};

}  // namespace amp::train
