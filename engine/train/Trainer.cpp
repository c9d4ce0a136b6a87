// The trainer's public face: its thread, requests (pause, resume, stop) and progress. The run
// itself, on the engine thread, is in TrainerRun.cpp.
#include "train/Trainer.h"

#include "config/BatchLayout.h"
#include "runlog/RunDirectory.h"
#include "train/Tester.h"

namespace amp::train {

const char* toString(TrainerState s) {
  switch (s) {
    case TrainerState::Idle:
      return "idle";
    case TrainerState::Running:
      return "running";
    case TrainerState::Paused:
      return "paused";
    case TrainerState::Finished:
      return "finished";
    case TrainerState::Stopped:
      return "stopped";
    case TrainerState::Failed:
      return "failed";
  }
  return "?";
}

Trainer::Trainer(config::Config cfg, std::string configSource)
    : cfg_(std::move(cfg)), configSource_(std::move(configSource)) {
  runDir_ = cfg_.getString("OUTPUT_DIR");
}

Trainer::~Trainer() {
  stop();
  wait();
}

void Trainer::setEventSink(std::function<void(const runlog::MetricEvent&)> sink) {
  sink_ = std::move(sink);
}
void Trainer::pause() {
  pauseRequested_ = true;
}
void Trainer::resume() {
  pauseRequested_ = false;
}
void Trainer::stop() {
  stopRequested_ = true;
}
void Trainer::wait() {
  if (thread_.joinable()) thread_.join();
}

std::string Trainer::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

TrainerProgress Trainer::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_;
}

bool Trainer::start(std::string* error) {
  if (thread_.joinable()) {
    if (error) *error = "this trainer has already been started";
    return false;
  }
  // A task the studio does not run is refused before anything is written.
  if (const auto why = unsupportedTask(cfg_, cfg_.getBool("TRAIN.ENABLE"))) {
    if (error) *error = *why;
    return false;
  }
  // Clips per process batch: videos x the clips of each (repeated augmentation, temporal crops).
  if (cfg_.getBool("MIXUP.ENABLE") && cfg_.getBool("TRAIN.ENABLE") &&
      config::perProcessBatch(cfg_, false) * config::clipsPerTrainVideo(cfg_) < 2) {
    if (error)
      *error =
          "MIXUP.ENABLE: mixup and cutmix mix a batch with its own reverse, so each process needs "
          "at least 2 clips per "
          "batch; raise TRAIN.BATCH_SIZE or set MIXUP.ENABLE False";
    return false;
  }
  if (dist_.rank ==
      0) {  // the run directory's one writer; other ranks only read checkpoints from it
    runlog::RunDirectory dir(runDir_);
    std::string why;
    if (!dir.ensureExists(&why)) {
      if (error) *error = "OUTPUT_DIR: " + why;
      return false;
    }
    if (!lock_.acquire(runDir_, error)) return false;
  }
  state_ = TrainerState::Running;
  thread_ = std::thread(&Trainer::run, this);
  return true;
}

}  // namespace amp::train
