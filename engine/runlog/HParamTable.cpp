#include "runlog/HParamTable.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "config/Config.h"
#include "config/ConfigDiff.h"

namespace amp::runlog {

namespace {

struct MetricSource {
  HParamMetric metric;
  std::function<std::optional<double>(const RunSummary&)> read;
};

std::optional<double> percentOf(const std::optional<double>& fraction) {
  if (!fraction) return std::nullopt;
  return 100.0 * *fraction;
}

// Every result the table may show, in column order; a result no run has is left out.
const std::vector<MetricSource>& metricSources() {
  static const std::vector<MetricSource> sources = {
      {{"best_top1", "Best val top-1", "%", true},
       [](const RunSummary& s) { return s.bestValTop1; }},
      {{"final_top1", "Final val top-1", "%", true},
       [](const RunSummary& s) { return s.finalValTop1; }},
      {{"best_map", "Best val mAP", "%", true},
       [](const RunSummary& s) { return percentOf(s.bestValMap); }},
      {{"test_map", "Test mAP", "%", true},
       [](const RunSummary& s) { return percentOf(s.testMap); }},
      {{"final_loss", "Final train loss", "", false},
       [](const RunSummary& s) { return s.finalLoss; }},
      {{"clips_per_s", "Clips/s", "", true}, [](const RunSummary& s) { return s.clipsPerSecond; }},
      {{"peak_memory", "Peak memory", "GiB", false},
       [](const RunSummary& s) -> std::optional<double> {
         if (!s.peakMemoryBytes) return std::nullopt;
         return *s.peakMemoryBytes / (1024.0 * 1024.0 * 1024.0);
       }},
      {{"skipped_steps", "Skipped steps", "", false},
       [](const RunSummary& s) -> std::optional<double> {
         if (s.steps == 0) return std::nullopt;
         return static_cast<double>(s.skippedSteps);
       }},
  };
  return sources;
}

}  // namespace

std::optional<double> hparamNumber(const std::string& shown) {
  if (shown == "True") return 1.0;
  if (shown == "False") return 0.0;
  if (shown.empty()) return std::nullopt;
  const char* begin = shown.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (end != begin + shown.size() || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

HParamTable HParamTable::build(const std::vector<HParamInput>& runs) {
  HParamTable t;
  std::vector<const config::Config*> configs;
  std::vector<int> withConfig;  // the runs the diff covers, in its order
  for (std::size_t r = 0; r < runs.size(); ++r) {
    t.names_.push_back(runs[r].name);
    if (runs[r].config) {
      configs.push_back(runs[r].config);
      withConfig.push_back(static_cast<int>(r));
    }
  }
  const auto diff = config::diffConfigs(configs);
  t.values_.assign(runs.size(), std::vector<std::string>(diff.size()));
  t.numbers_.assign(runs.size(), std::vector<std::optional<double>>(diff.size()));
  for (std::size_t k = 0; k < diff.size(); ++k) {
    t.keys_.push_back(diff[k].key);
    bool numeric = !withConfig.empty(), positive = true;
    double lo = INFINITY, hi = -INFINITY;
    for (std::size_t i = 0; i < withConfig.size(); ++i) {
      const int r = withConfig[i];
      t.values_[r][k] = diff[k].values[i];
      t.numbers_[r][k] = hparamNumber(diff[k].values[i]);
      if (!t.numbers_[r][k]) {
        numeric = false;
        continue;
      }
      const double v = *t.numbers_[r][k];
      positive = positive && v > 0;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    t.numeric_.push_back(numeric);
    // Learning rates of a sweep (1e-4 .. 1e-1) read on a log axis; True/False never do.
    t.log_.push_back(numeric && positive && lo > 0 && hi / lo >= 100.0);
  }
  for (const auto& source : metricSources()) {
    std::vector<std::optional<double>> column;
    bool any = false;
    for (const auto& run : runs) {
      column.push_back(source.read(run.summary));
      any = any || column.back().has_value();
    }
    if (!any) continue;
    t.metrics_.push_back(source.metric);
    if (t.metricValues_.empty()) t.metricValues_.resize(runs.size());
    for (std::size_t r = 0; r < runs.size(); ++r) t.metricValues_[r].push_back(column[r]);
  }
  if (t.metricValues_.empty()) t.metricValues_.resize(runs.size());
  return t;
}

int HParamTable::metricIndex(const std::string& id) const {
  for (std::size_t m = 0; m < metrics_.size(); ++m)
    if (metrics_[m].id == id) return static_cast<int>(m);
  return -1;
}

}  // namespace amp::runlog
