#pragma once
// Runs the engine's pre-flight checks of the config in the editor on a worker thread, never on
// the GUI thread: a pause after the last change (debounce), the last result kept while the config
// stays the same (cache), a new request during a check queued behind it (latest wins). Two
// passes: device, data and files first (they decide whether Start is allowed), then the memory
// measurement of one training step (warnings only; cached per model by the engine).
#include <QObject>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "config/Config.h"
#include "config/Diagnostic.h"

namespace amp::preflight {
class MemoryEstimator;
}

namespace amp::widgets {

class PreflightRunner : public QObject {
  Q_OBJECT
 public:
  /// One pass of checks; runs on the worker thread.
  using CheckFn =
      std::function<config::Diagnostics(const config::Config&, const std::string& file)>;

  explicit PreflightRunner(QObject* parent = nullptr);
  ~PreflightRunner() override;  ///< waits for a check in progress

  /// Checks `cfg` after the debounce pause, unless the last check was of the same config.
  void request(const config::Config& cfg, const std::string& file);
  /// No config to check (the YAML has errors): drops the results, Start stays off.
  void clear();
  /// Checks the current config again now (the disk may have changed: a dataset written, a run
  /// ended).
  void recheck();

  /// The checks of the current config have not finished their first pass.
  bool pending() const;
  /// A check is running (either pass).
  bool running() const { return running_; }
  /// The last results include the memory pass (or it was not needed).
  bool complete() const { return complete_; }
  /// Problems of the last finished check (of the current config when !pending()).
  const config::Diagnostics& diagnostics() const { return diagnostics_; }
  int errorCount() const;

  /// Replaces the passes (tests: a slow check, or one that records its thread).
  void setChecks(CheckFn first, CheckFn memory);
  void setDebounceInterval(int ms) { debounce_.setInterval(ms); }
  /// Off while this process trains: a measurement would compete with the run for the cores and
  /// reset the peak RSS its memory chart reports. Checks started later skip the memory pass.
  void setMemoryCheckEnabled(bool on) { memoryEnabled_ = on; }

 signals:
  void started();
  /// New results: after the first pass (`complete` false while memory is still measured) and
  /// after the second.
  void resultsChanged(bool complete);

 private:
  void launch();
  void deliver(std::uint64_t generation, const config::Config& cfg, const std::string& file,
               config::Diagnostics found, bool complete);

  CheckFn first_, memory_;
  std::shared_ptr<preflight::MemoryEstimator> estimator_;
  QTimer debounce_;
  std::thread worker_;
  bool running_ = false;
  bool hasConfig_ = false;
  bool recheckAfter_ = false;  ///< recheck() came while a check ran
  bool memoryEnabled_ = true;
  config::Config wanted_;
  std::string wantedFile_;
  std::optional<config::Config> checked_;  ///< the config the results are of (first pass done)
  std::string checkedFile_;
  std::uint64_t generation_ = 0;  ///< of the check running or last run
  bool complete_ = false;
  config::Diagnostics diagnostics_;
};

}  // namespace amp::widgets
