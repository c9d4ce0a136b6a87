#pragma once
// Where the data pre-flight checks put a problem: a Diagnostic at the key's place in the config
// file (where it was set, else the top file, as the validator places them).
//
//   PreflightReporter r{cfg, file, out};
//   r.error("AVA.LABEL_MAP_FILE", "'dir/map.pbtxt' does not exist");
#include <string>

#include "config/Config.h"
#include "config/Diagnostic.h"

namespace amp::preflight {

struct PreflightReporter {
  const config::Config& cfg;
  const std::string& file;
  config::Diagnostics& out;
  void add(config::Diagnostic::Severity s, const std::string& key, const std::string& message) {
    config::Origin where{file, 0, 0};
    if (const config::Origin* o = cfg.origin(key)) where = *o;
    out.push_back(config::Diagnostic{s, where, key, message});
  }
  void error(const std::string& key, const std::string& m) {
    add(config::Diagnostic::Severity::Error, key, m);
  }
  void warning(const std::string& key, const std::string& m) {
    add(config::Diagnostic::Severity::Warning, key, m);
  }
};

}  // namespace amp::preflight
