#include "PreflightRunner.h"

#include "preflight/RunPreflight.h"

namespace amp::widgets {

PreflightRunner::PreflightRunner(QObject* parent)
    : QObject(parent), estimator_(std::make_shared<preflight::MemoryEstimator>()) {
  first_ = [](const config::Config& cfg, const std::string& file) {
    preflight::PreflightOptions options;
    options.memory = false;
    return preflight::runPreflight(cfg, file, options, nullptr);
  };
  memory_ = [estimator = estimator_](const config::Config& cfg, const std::string& file) {
    return preflight::memoryPreflight(cfg, file, *estimator);
  };
  debounce_.setSingleShot(true);
  debounce_.setInterval(400);
  connect(&debounce_, &QTimer::timeout, this, &PreflightRunner::launch);
}

PreflightRunner::~PreflightRunner() {
  if (worker_.joinable()) worker_.join();
}

void PreflightRunner::setChecks(CheckFn first, CheckFn memory) {
  first_ = std::move(first);
  memory_ = std::move(memory);
}

bool PreflightRunner::pending() const {
  if (!hasConfig_) return false;
  return recheckAfter_ || !checked_ || !(*checked_ == wanted_) || checkedFile_ != wantedFile_;
}

int PreflightRunner::errorCount() const {
  return static_cast<int>(config::countErrors(diagnostics_));
}

void PreflightRunner::request(const config::Config& cfg, const std::string& file) {
  hasConfig_ = true;
  wanted_ = cfg;
  wantedFile_ = file;
  if (!pending()) {  // the same config as the last check: its results stand
    debounce_.stop();
    return;
  }
  debounce_.start();
}

void PreflightRunner::clear() {
  hasConfig_ = false;
  debounce_.stop();
  checked_.reset();
  diagnostics_.clear();
  complete_ = true;
  emit resultsChanged(true);
}

void PreflightRunner::recheck() {
  if (!hasConfig_) return;
  debounce_.stop();
  if (running_) {
    recheckAfter_ = true;  // what the running check saw may be out of date
    return;
  }
  checked_.reset();
  launch();
}

void PreflightRunner::launch() {
  if (!hasConfig_ || running_) return;     // a running check relaunches when it ends
  if (worker_.joinable()) worker_.join();  // ended: its last result has been delivered
  running_ = true;
  recheckAfter_ = false;
  const std::uint64_t generation = ++generation_;
  emit started();
  worker_ = std::thread([this, generation, cfg = wanted_, file = wantedFile_, first = first_,
                         memory = memoryEnabled_ ? memory_ : CheckFn()] {
    // An exception leaving this thread would end the studio: it becomes the check's error.
    const auto guarded = [&file](const CheckFn& check, const config::Config& c) {
      try {
        return check(c, file);
      } catch (const std::exception& e) {
        return config::Diagnostics{
            config::Diagnostic{config::Diagnostic::Severity::Error, config::Origin{file, 0, 0}, "",
                               std::string("the pre-flight check failed: ") + e.what()}};
      }
    };
    config::Diagnostics found = guarded(first, cfg);
    const bool more =
        memory && !config::hasErrors(found);  // memory matters only when the run can start
    QMetaObject::invokeMethod(
        this,
        [this, generation, cfg, file, found, more] {
          deliver(generation, cfg, file, found, !more);
        },
        Qt::QueuedConnection);
    if (!more) return;
    const config::Diagnostics extra = guarded(memory, cfg);
    found.insert(found.end(), extra.begin(), extra.end());
    QMetaObject::invokeMethod(
        this, [this, generation, cfg, file, found] { deliver(generation, cfg, file, found, true); },
        Qt::QueuedConnection);
  });
}

void PreflightRunner::deliver(std::uint64_t generation, const config::Config& cfg,
                              const std::string& file, config::Diagnostics found, bool complete) {
  if (generation != generation_ || !hasConfig_) {
    if (complete) running_ = false;
    return;
  }
  checked_ = cfg;
  checkedFile_ = file;
  diagnostics_ = std::move(found);
  complete_ = complete;
  if (complete) running_ = false;
  if (complete && recheckAfter_) {
    recheckAfter_ = false;
    checked_.reset();
    launch();
    return;
  }
  emit resultsChanged(complete);
  if (complete && pending() && !debounce_.isActive()) launch();
}

}  // namespace amp::widgets
