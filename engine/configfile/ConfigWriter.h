#pragma once
// Writes a Config as PySlowFast-style nested YAML.
#include <string>

#include "config/Config.h"

namespace amp::config {

struct WriteOptions {
  /// Only keys that differ from their defaults (a minimal config file).
  bool onlyChanged = false;
  /// For PySlowFast itself: drop the studio's keys and fold SOLVER.LR_SCALE into the rates.
  bool pyslowfast = false;
};

/// Nested YAML of the config, keys in schema order. loadText(toYaml(c)) reproduces c.
std::string toYaml(const Config& config, const WriteOptions& options = {});

/// Writes toYaml(config) to `path` atomically (temporary file + rename). False with `error`
/// naming the path and the reason.
[[nodiscard]] bool saveConfigFile(const Config& config, const std::string& path, std::string* error,
                                  const WriteOptions& options = {});

}  // namespace amp::config
