#pragma once
// Loads PySlowFast YAML configs (with _BASE_ inheritance) and KEY VALUE overrides into a
// validated Config, collecting every problem with its file, line and column.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/Config.h"
#include "config/Diagnostic.h"

namespace amp::config {

/// The largest config file read (PySlowFast's are a few KB): a larger one is refused unread, so
/// a mistaken path (a video, a checkpoint) costs nothing.
inline constexpr std::uintmax_t kMaxConfigFileBytes = 4u << 20;

struct LoadResult {
  Config config;
  Diagnostics diagnostics;  ///< errors and warnings, in the order found
  bool ok() const { return !hasErrors(diagnostics); }
};

/// Reads one scalar the way PySlowFast does: YAML 1.1 null/bool words, then a Python literal
/// (numbers such as 1e-4, tuples, quoted strings), else the text itself.
Value parseScalarText(std::string_view text);

class ConfigLoader {
 public:
  explicit ConfigLoader(std::shared_ptr<const KeySchema> schema = KeySchema::builtin());

  /// Defaults, then the file (and its _BASE_ chain), then the overrides (KEY VALUE pairs), then
  /// validation of the result.
  LoadResult loadFile(const std::string& path,
                      const std::vector<std::string>& overrides = {}) const;
  /// As loadFile, for YAML text not (yet) saved: `displayName` names it in messages and
  /// `baseDir` resolves a relative _BASE_.
  LoadResult loadText(std::string_view yaml, const std::string& displayName,
                      const std::string& baseDir,
                      const std::vector<std::string>& overrides = {}) const;

  /// Merges KEY VALUE pairs into `config` (no validation), reporting problems into `out`.
  void applyOverrides(Config& config, const std::vector<std::string>& overrides,
                      Diagnostics& out) const;

 private:
  std::shared_ptr<const KeySchema> schema_;
};

}  // namespace amp::config
