#pragma once
// The keys whose values differ between configs: what the comparison view shows.
#include <string>
#include <vector>

#include "config/Config.h"

namespace amp::config {

struct KeyDifference {
  std::string key;
  std::vector<std::string> values;  ///< one per config, Python-like display (formatValue)
};

/// Keys (in schema order) whose value is not the same in every config. All configs must share
/// one schema; an empty or single-config list has no differences.
std::vector<KeyDifference> diffConfigs(const std::vector<const Config*>& configs);

}  // namespace amp::config
