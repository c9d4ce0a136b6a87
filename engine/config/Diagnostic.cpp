#include "config/Diagnostic.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace amp::config {

std::string Origin::describe() const {
  if (isCommandLine()) return "command line, argument " + std::to_string(column);
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string Diagnostic::toString() const {
  std::string s = where.describe();
  s += ": ";
  if (severity == Severity::Warning) s += "warning: ";
  if (!key.empty()) s += key + ": ";
  return s + message;
}

bool hasErrors(const Diagnostics& d) {
  return std::any_of(d.begin(), d.end(), [](const Diagnostic& x) { return x.isError(); });
}

size_t countErrors(const Diagnostics& d) {
  return static_cast<size_t>(
      std::count_if(d.begin(), d.end(), [](const Diagnostic& x) { return x.isError(); }));
}

Diagnostics withoutRepeatsOf(const Diagnostics& checks, const Diagnostics& errors) {
  Diagnostics kept;
  for (const Diagnostic& d : checks) {
    const bool repeated = !d.isError() && !d.key.empty() &&
                          std::any_of(errors.begin(), errors.end(), [&d](const Diagnostic& e) {
                            return e.isError() && e.key == d.key;
                          });
    if (!repeated) kept.push_back(d);
  }
  return kept;
}

Diagnostics sortedByLocation(const Diagnostics& d) {
  // Errors first; then files in order of first appearance (command line last), line, column.
  std::vector<std::string> files;
  for (const auto& x : d)
    if (std::find(files.begin(), files.end(), x.where.file) == files.end())
      files.push_back(x.where.file);
  auto rank = [&](const Diagnostic& x) {
    const auto fileIndex = std::find(files.begin(), files.end(), x.where.file) - files.begin();
    // Problems of the file as a whole (line 0) come after the located ones.
    const int line = x.where.line > 0 ? x.where.line : std::numeric_limits<int>::max();
    return std::make_tuple(x.isError() ? 0 : 1, x.where.isCommandLine() ? 1 : 0, fileIndex, line,
                           x.where.column);
  };
  Diagnostics out = d;
  std::stable_sort(out.begin(), out.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return rank(a) < rank(b); });
  return out;
}

std::string formatDiagnostics(const Diagnostics& d) {
  std::string out;
  for (const auto& x : sortedByLocation(d)) out += x.toString() + "\n";
  return out;
}

}  // namespace amp::config
