#include "TrainingController.h"

#include <QDir>
#include <QFileInfo>

#include "config/BatchLayout.h"
#include "runlog/RunDirectory.h"

namespace amp::widgets {

TrainingController::TrainingController(QObject* parent) : QObject(parent) {
  timer_.setInterval(40);
  connect(&timer_, &QTimer::timeout, this, &TrainingController::drain);
}

TrainingController::~TrainingController() {
  launched_.reset();  // stops the launched run and waits for it
  if (trainer_) {
    trainer_->stop();
    trainer_->wait();
  }
}

QString TrainingController::stateName(train::TrainerState s) {
  switch (s) {
    case train::TrainerState::Idle:
      return tr("Idle");
    case train::TrainerState::Running:
      return tr("Running");
    case train::TrainerState::Paused:
      return tr("Paused");
    case train::TrainerState::Finished:
      return tr("Finished");
    case train::TrainerState::Stopped:
      return tr("Stopped");
    case train::TrainerState::Failed:
      return tr("Failed");
  }
  return {};
}

bool TrainingController::isActive() const {
  const auto s = state();
  return s == train::TrainerState::Running || s == train::TrainerState::Paused;
}

train::TrainerState TrainingController::state() const {
  if (launched_) return launched_->state();
  return trainer_ ? trainer_->state() : train::TrainerState::Idle;
}

QString TrainingController::error() const {
  if (launched_) return launched_->error();
  return trainer_ ? QString::fromStdString(trainer_->error()) : QString();
}

train::TrainerProgress TrainingController::progress() const {
  if (launched_) return launched_->progress();
  return trainer_ ? trainer_->progress() : train::TrainerProgress{};
}

bool TrainingController::start(const config::Config& cfgIn, const QString& configSource,
                               QString* error) {
  if (isActive()) {
    if (error) *error = tr("A run is active: stop it first.");
    return false;
  }
  if (trainer_) {
    trainer_->wait();
    drain();
    trainer_.reset();
  }
  launched_.reset();
  config::Config cfg = cfgIn;
  // A finished run is not overwritten (auto-resume would find nothing left to train).
  QString out = QString::fromStdString(cfg.getString("OUTPUT_DIR"));
  const QString base = out;
  for (int n = 2;; ++n) {
    auto meta = runlog::RunDirectory(out.toStdString()).readMetadata();
    if (!meta || meta->status != runlog::RunStatus::Finished) break;
    out = QStringLiteral("%1-%2").arg(base).arg(n);
  }
  if (out != base) cfg.set("OUTPUT_DIR", out.toStdString());
  outputDir_ = out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.clear();
  }
  pace_.clear();
  eta_.reset();
  if (config::configuredWorldSize(cfg) > 1) {
    launched_ = std::make_unique<LaunchedRun>(LaunchedRun::findCli(), cfg, configSource);
    if (!launched_->start(error)) {
      lastState_ = train::TrainerState::Failed;
      launched_.reset();
      return false;
    }
    runDir_ = out;
    lastState_ = train::TrainerState::Running;
    timer_.start();
    emit started(runDir_);
    emit stateChanged(lastState_);
    return true;
  }
  trainer_ = std::make_unique<train::Trainer>(cfg, configSource.toStdString());
  trainer_->setEventSink([this](const runlog::MetricEvent& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(e);
  });
  std::string why;
  if (!trainer_->start(&why)) {
    if (error) *error = QString::fromStdString(why);
    lastState_ = trainer_->state();
    return false;
  }
  runDir_ = QString::fromStdString(trainer_->runDir());
  lastState_ = train::TrainerState::Running;
  timer_.start();
  emit started(runDir_);
  emit stateChanged(lastState_);
  return true;
}

void TrainingController::pause() {
  if (launched_) launched_->pause();
  if (trainer_) trainer_->pause();
}
void TrainingController::resume() {
  if (launched_) launched_->resume();
  if (trainer_) trainer_->resume();
}
void TrainingController::stop() {
  if (launched_) launched_->stop();
  if (trainer_) trainer_->stop();
}

void TrainingController::waitForEnd() {
  if (launched_) {
    launched_->wait();
    std::vector<runlog::MetricEvent> rest = launched_->poll();
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.insert(queue_.end(), rest.begin(), rest.end());
  } else if (trainer_) {
    trainer_->wait();
  } else {
    return;
  }
  drain();
}

void TrainingController::drain() {
  std::vector<runlog::MetricEvent> events;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    events.swap(queue_);
  }
  if (launched_) {  // a multi-process run: what rank 0 appended to the run's metrics since the last
                    // tick
    auto more = launched_->poll();
    events.insert(events.end(), more.begin(), more.end());
  }
  if (!events.empty()) {
    for (const auto& e : events)
      if (e.kind == runlog::kind::kTrain) pace_.emplace_back(e.time_s, static_cast<double>(e.step));
    if (pace_.size() > 200) pace_.erase(pace_.begin(), pace_.end() - 200);
    if ((trainer_ || launched_) && pace_.size() >= 2) {
      const auto p = progress();
      const double dt = pace_.back().first - pace_.front().first,
                   ds = pace_.back().second - pace_.front().second;
      const double total = static_cast<double>(p.totalSteps());
      if (dt > 0 && ds > 0 && total > 0)
        eta_ = std::max(0.0, total - static_cast<double>(p.step)) * dt / ds;
    }
    emit eventsReady(events);
    emit progressChanged();
  }
  const auto s = state();
  if (s != lastState_) {
    lastState_ = s;
    emit stateChanged(s);
    if (s == train::TrainerState::Finished || s == train::TrainerState::Stopped ||
        s == train::TrainerState::Failed) {
      timer_.stop();
      if (trainer_) trainer_->wait();
      // Anything the engine wrote between the last drain and its end.
      std::vector<runlog::MetricEvent> rest;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        rest.swap(queue_);
      }
      if (!rest.empty()) emit eventsReady(rest);
      if (s == train::TrainerState::Finished) eta_ = 0.0;
      emit progressChanged();
      emit ended(s, error());
    }
  }
}

}  // namespace amp::widgets
