#pragma once
// The hyperparameter view's table (W&B's and TensorBoard's HParams): one row per run, a column for
// each config key whose value differs between the runs (as the config diff finds them, schema
// order) and one for each result the runs have (best and final validation accuracy or mAP, final
// loss, throughput, peak memory, skipped steps). Keys whose every value is a number can be
// plotted: a scatter of a result against the key, a parallel-coordinates axis; a key whose values
// are all positive and span two decades or more (learning rates, weight decays) asks for a log
// axis. Torch-free and Qt-free; the studio's HParamsView draws it.
//
//   std::vector<runlog::HParamInput> in = {{"lr-0.1", &cfgA, summaryA}, {"lr-0.01", &cfgB,
//   summaryB}}; const auto t = runlog::HParamTable::build(in); t.keys();                  //
//   {"SOLVER.BASE_LR"} t.number(1, 0);            // 0.01 t.metricValue(0,
//   t.metricIndex("best_top1"));
#include <optional>
#include <string>
#include <vector>

#include "runlog/RunRecord.h"

namespace amp::config {
class Config;
}

namespace amp::runlog {

struct HParamInput {
  std::string name;
  const config::Config* config = nullptr;  ///< nullptr: the run's config cannot be read
  RunSummary summary;
};

/// A result column: its id ("best_top1"), header, unit and which way is better.
struct HParamMetric {
  std::string id, title, unit;
  bool higherIsBetter = true;
};

class HParamTable {
 public:
  /// The table of `runs` (every config must come from the same schema, as loaded configs do). A
  /// run without a config shows "" under each key.
  static HParamTable build(const std::vector<HParamInput>& runs);

  int runCount() const { return static_cast<int>(names_.size()); }
  const std::string& runName(int run) const { return names_[run]; }

  /// The config keys whose values differ, in schema order.
  const std::vector<std::string>& keys() const { return keys_; }
  /// The value as the config shows it ("0.1", "True", "[8, 8]"); "" when the run has no config.
  const std::string& value(int run, int key) const { return values_[run][key]; }
  /// The value as a number: numbers as written, True/False as 1/0; nullopt otherwise.
  std::optional<double> number(int run, int key) const { return numbers_[run][key]; }
  /// Every run that has a config holds a number under `key`.
  bool numericKey(int key) const { return numeric_[key]; }
  /// A numeric key whose values are all positive and span at least two decades (max/min >= 100).
  bool logScaleKey(int key) const { return log_[key]; }

  /// The results at least one run has, in a fixed order.
  const std::vector<HParamMetric>& metrics() const { return metrics_; }
  /// The index of the result with this id, -1 when no run has it.
  int metricIndex(const std::string& id) const;
  std::optional<double> metricValue(int run, int metric) const {
    return metricValues_[run][metric];
  }

 private:
  std::vector<std::string> names_, keys_;
  std::vector<std::vector<std::string>> values_;
  std::vector<std::vector<std::optional<double>>> numbers_;
  std::vector<bool> numeric_, log_;
  std::vector<HParamMetric> metrics_;
  std::vector<std::vector<std::optional<double>>> metricValues_;
};

/// A config value as a number: a plain or scientific number ("1e-4", "0.1", "-3"), True/False as
/// 1/0; nullopt for anything else (lists, strings, "").
std::optional<double> hparamNumber(const std::string& shown);

}  // namespace amp::runlog
