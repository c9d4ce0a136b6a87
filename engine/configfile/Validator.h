#pragma once
// Checks a merged config: per-key ranges and choices, rules across keys, and one warning that
// lists keys the studio reads but does not act on yet.
#include <string>

#include "config/Config.h"
#include "config/Diagnostic.h"

namespace amp::config {

/// Appends every problem of `config` to `out`. `file` locates problems of keys left at their
/// defaults (the top config file).
void validateConfig(const Config& config, const std::string& file, Diagnostics& out);

}  // namespace amp::config
