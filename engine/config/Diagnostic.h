#pragma once
// A problem found in a config, located at the file, line and column (or command-line argument)
// where the offending key was set.
#include <string>
#include <vector>

namespace amp::config {

/// Where a value came from. line/column are 1-based; 0 means unknown.
struct Origin {
  std::string file;  ///< path as given, or kCommandLine
  int line = 0;
  int column = 0;  ///< for the command line: the 1-based argument index of the KEY
  static constexpr const char* kCommandLine = "<command line>";
  bool isCommandLine() const { return file == kCommandLine; }
  std::string describe() const;  ///< "file:3:5", "command line, argument 2", "file"
};

struct Diagnostic {
  enum class Severity { Error, Warning };
  Severity severity = Severity::Error;
  Origin where;
  std::string key;      ///< may be empty (e.g. a YAML syntax error)
  std::string message;  ///< what is wrong and what is allowed
  /// "file:line:column: KEY: message" (warnings carry "warning: " after the location).
  std::string toString() const;
  bool isError() const { return severity == Severity::Error; }
};

using Diagnostics = std::vector<Diagnostic>;

bool hasErrors(const Diagnostics& d);
size_t countErrors(const Diagnostics& d);
/// `checks` without the warnings whose key `errors` holds an error for: what train refuses is a
/// warning of the config check and an error of the pre-flight checks, and is said once, as the
/// error.
Diagnostics withoutRepeatsOf(const Diagnostics& checks, const Diagnostics& errors);
/// Errors before warnings; within each, by file, line and column (command line last).
Diagnostics sortedByLocation(const Diagnostics& d);
/// All diagnostics, one per line, in sortedByLocation order.
std::string formatDiagnostics(const Diagnostics& d);

}  // namespace amp::config
