#pragma once
// Runs the pre-flight checks of a config on this machine (what `ampstudio-cli train --dry-run`
// and the studio's problem list show): probes the CUDA devices, cores and free memory, measures
// one training step of one clip of the model (cached per model, precision and device), and
// checks device, data and files. Writes nothing. Torch-free header; the engine does the torch part.
#include <map>
#include <mutex>
#include <string>

#include "preflight/Preflight.h"

namespace amp::preflight {

/// CUDA devices LibTorch sees (with their free memory), cores and free RAM.
MachineFacts probeMachine();

/// Measures the memory of one training step of one clip (forward, loss, backward, optimizer
/// step, at the config's precision and device) and keeps it per model: keys that cannot change
/// it (batch size, paths, schedule, ...) do not cause a new measurement. Thread-safe.
class MemoryEstimator {
 public:
  MemoryEstimate estimate(const config::Config& cfg);
  /// The keys a measurement depends on, as one string (what the cache is keyed by).
  static std::string fingerprint(const config::Config& cfg);
  int measurements() const;  ///< how many were actually taken (not served from the cache)

 private:
  mutable std::mutex mutex_;
  std::map<std::string, MemoryEstimate> cache_;
  int measurements_ = 0;
};

struct PreflightOptions {
  bool data = true;    ///< dataset folder, lists, sampled videos, one decode
  bool memory = true;  ///< the measured step against free memory (needs an estimator)
  DataCheckOptions data_options;
};

/// Every check of `cfg` (already loaded and valid: config problems are the loader's and are not
/// repeated). `file` locates problems of keys left at their defaults. `memory` may be null.
config::Diagnostics runPreflight(const config::Config& cfg, const std::string& file,
                                 const PreflightOptions& options, MemoryEstimator* memory);
/// Only the memory check (the slow part, for a second pass after runPreflight without it):
/// nothing when the device is not there.
config::Diagnostics memoryPreflight(const config::Config& cfg, const std::string& file,
                                    MemoryEstimator& memory);

}  // namespace amp::preflight
