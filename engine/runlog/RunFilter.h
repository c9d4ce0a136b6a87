#pragma once
// The run list's filter line as a researcher types it after a sweep: words, run fields and
// config keys, all of which must hold. It lives in the engine (no Qt) so that the studio's list
// and `ampstudio-cli runs list --filter` read the same syntax (syntaxHelp()).
//
//   runlog::RunFilter f("bf16 status:finished SOLVER.BASE_LR>=0.05 -tag:broken");
//   if (!f.problems().empty()) warn(f.problems().front());
//   for (const auto& row : rows)
//     if (f.matches(row)) show(row);
#include <map>
#include <string>
#include <vector>

namespace amp::runlog {

/// What the filter sees of one run (the list fills it from run.json, the summary and config.yaml).
struct RunFilterRow {
  std::string name, status, precision, model, device, host, note, dir;
  std::vector<std::string> tags;
  /// Figures compared with > < =: "best" (best val top-1 %, or mAP % of a multi-label run),
  /// "loss" (final training loss), "mem_gib" (peak memory), "hours" (duration), "steps".
  std::map<std::string, double> numbers;
  /// The run's config.yaml as dotted keys -> value text ("SOLVER.BASE_LR" -> "0.1"); a key the
  /// file does not set reads as its schema default.
  std::map<std::string, std::string> config;
  /// Whether the run has a config at all: without one no config term holds (no defaults).
  bool hasConfig = false;
};

class RunFilter {
 public:
  RunFilter() = default;
  explicit RunFilter(const std::string& text);

  /// True when the text holds no term: every run matches.
  bool empty() const { return terms_.empty(); }
  bool matches(const RunFilterRow& row) const;
  /// Terms that could not be read as written, each naming the term and what to type instead;
  /// such a term matches no run (a typo must not show everything).
  const std::vector<std::string>& problems() const { return problems_; }
  /// True when a term names a config key: the caller then fills RunFilterRow::config.
  bool needsConfig() const { return needsConfig_; }

  /// The syntax in a few lines (the filter box's tooltip, the CLI's help).
  static const char* syntaxHelp();
  /// A config.yaml's values as dotted keys (nested maps joined with '.'; lists as "[1, 2]").
  /// Empty with `error` naming the file when it cannot be read. `keepDefaults` false leaves out
  /// the values equal to the schema's default (matches() reads a missing key as its default).
  static std::map<std::string, std::string> readConfigValues(const std::string& path,
                                                             std::string* error = nullptr,
                                                             bool keepDefaults = true);
  /// The same for config text already read (a PySlowFast checkpoint's cfg.dump()); `where`
  /// names it in `error`.
  static std::map<std::string, std::string> configValuesFromText(const std::string& text,
                                                                 const std::string& where,
                                                                 std::string* error = nullptr,
                                                                 bool keepDefaults = true);

 private:
  enum class Op { Text, Contains, Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual };
  struct Term {
    std::string key;    ///< lower case for run fields, upper case for config keys
    std::string value;  ///< as typed (the text of a Text term, lower case)
    Op op = Op::Text;
    bool negated = false;
    bool broken = false;  ///< could not be read: matches nothing
    double number = 0;    ///< the value, for < <= > >=
  };
  bool termHolds(const Term& t, const RunFilterRow& row) const;
  void addTerm(const std::string& token);
  std::vector<Term> terms_;
  std::vector<std::string> problems_;
  bool needsConfig_ = false;
};

}  // namespace amp::runlog
