#include "runlog/RunGroups.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "config/ConfigDiff.h"
#include "config/KeySchema.h"
#include "config/ValueFormat.h"

namespace amp::runlog {

namespace {

constexpr const char* kNoValue = "(none)";

// "SOLVER.BASE_LR" -> "BASE_LR": the labels stay short enough for a legend.
std::string shortKey(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

// A value that reads whole as a number compares as one.
bool asNumber(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

bool valueLess(const std::string& a, const std::string& b) {
  double x = 0, y = 0;
  const bool na = asNumber(a, &x), nb = asNumber(b, &y);
  if (na && nb && x != y) return x < y;
  if (na != nb) return na;  // numbers before words ("(none)" last among them)
  return a < b;
}

}  // namespace

const std::vector<std::string>& groupRunFields() {
  static const std::vector<std::string> fields = {"precision", "model", "status", "device"};
  return fields;
}

std::string groupValue(const GroupableRun& run, const std::string& key) {
  if (key == "precision")
    return run.meta && !run.meta->precision.empty() ? run.meta->precision : kNoValue;
  if (key == "model") return run.meta && !run.meta->model.empty() ? run.meta->model : kNoValue;
  if (key == "status") return run.meta ? toString(run.meta->status) : kNoValue;
  if (key == "device") return run.meta && !run.meta->device.empty() ? run.meta->device : kNoValue;
  if (!run.config || !run.config->schema().find(key)) return kNoValue;
  return config::formatValue(run.config->get(key));
}

bool isGroupKey(const std::vector<GroupableRun>& runs, const std::string& key) {
  const auto& fields = groupRunFields();
  if (std::find(fields.begin(), fields.end(), key) != fields.end()) return true;
  return std::any_of(runs.begin(), runs.end(), [&key](const GroupableRun& r) {
    return r.config && r.config->schema().find(key);
  });
}

std::vector<std::string> groupKeys(const std::vector<GroupableRun>& runs) {
  std::vector<std::string> keys;
  if (runs.size() < 2) return keys;
  for (const std::string& field : groupRunFields()) {
    std::set<std::string> values;
    for (const GroupableRun& r : runs) values.insert(groupValue(r, field));
    if (values.size() > 1) keys.push_back(field);
  }
  std::vector<const config::Config*> configs;
  for (const GroupableRun& r : runs)
    if (r.config) configs.push_back(r.config);
  for (const config::KeyDifference& d : config::diffConfigs(configs)) keys.push_back(d.key);
  return keys;
}

std::vector<RunGroup> groupRuns(const std::vector<GroupableRun>& runs,
                                const std::vector<std::string>& keys) {
  const auto less = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), valueLess);
  };
  std::map<std::vector<std::string>, std::vector<std::size_t>, decltype(less)> byValues(less);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::vector<std::string> values;
    for (const std::string& key : keys) values.push_back(groupValue(runs[i], key));
    byValues[values].push_back(i);
  }
  std::vector<RunGroup> groups;
  for (auto& [values, members] : byValues) {
    RunGroup g{values, members, {}};
    for (std::size_t k = 0; k < keys.size(); ++k)
      g.label += (k ? ", " : "") + shortKey(keys[k]) + "=" + values[k];
    if (keys.empty()) g.label = "all runs";
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace amp::runlog
