#pragma once
// The pre-flight report of `train --dry-run` and `config check --preflight`.
#include <string>

#include "config/Config.h"

namespace amp::cli {

struct PreflightFlags {
  bool memory = true;  ///< measure one training step (off: --no-memory-check)
};

/// Runs every pre-flight check of `cfg` (loaded from `path`), prints the config check's
/// `checked` warnings (but not one the pre-flight makes an error of) and the pre-flight's problems
/// to stderr, and a verdict to stdout. Writes no file. Returns 1 on an error, else 0.
int reportPreflight(const config::Config& cfg, const std::string& path, const PreflightFlags& flags,
                    const config::Diagnostics& checked);

}  // namespace amp::cli
