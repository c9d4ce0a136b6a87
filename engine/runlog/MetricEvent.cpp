#include "runlog/MetricEvent.h"

#include <cmath>
#include <limits>

#include "runlog/MetricLineFastPath.h"
#include "util/BoundedInput.h"

namespace amp::runlog {
namespace {

nlohmann::json encode(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::optional<double> decode(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

bool sameValue(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

// A per_class line's lists beside the common fields. The figures go to `class_values`, not
// `values`: `values` stays an object in every kind, so a tool that reads every line's values as
// name -> number keeps working on logs with these lines.
void encodePerClass(const PerClassValues& p, nlohmann::json& j) {
  j["split"] = p.split;
  j["metric"] = p.metric;
  j["classes"] = p.classes;
  if (!p.names.empty()) j["names"] = p.names;
  nlohmann::json vals = nlohmann::json::array();
  for (double v : p.values) vals.push_back(encode(v));
  j["class_values"] = std::move(vals);
  if (!p.positives.empty()) j["positives"] = p.positives;
}

// nullopt for lists that are missing, of the wrong types or of different lengths: the line is
// then read as a per_class line without figures (readers skip it), never half of them.
std::optional<PerClassValues> decodePerClass(const nlohmann::json& j) {
  PerClassValues p;
  const auto text = [&](const char* k, std::string& out) {
    if (auto it = j.find(k); it != j.end() && it->is_string()) out = it->get<std::string>();
  };
  text("split", p.split);
  text("metric", p.metric);
  const auto ints = [&](const char* k, std::vector<std::int64_t>& out) {
    const auto it = j.find(k);
    if (it == j.end()) return true;
    if (!it->is_array()) return false;
    for (const auto& v : *it) {
      if (!v.is_number_integer()) return false;
      out.push_back(v.get<std::int64_t>());
    }
    return true;
  };
  if (!ints("classes", p.classes) || !ints("positives", p.positives)) return std::nullopt;
  if (auto it = j.find("names"); it != j.end()) {
    if (!it->is_array()) return std::nullopt;
    for (const auto& v : *it) p.names.push_back(v.is_string() ? v.get<std::string>() : "");
  }
  const auto vals = j.find("class_values");
  if (vals == j.end() || !vals->is_array()) return std::nullopt;
  for (const auto& v : *vals) {
    const auto d = decode(v);
    if (!d) return std::nullopt;
    p.values.push_back(*d);
  }
  if (p.check()) return std::nullopt;
  return p;
}

}  // namespace

bool MetricEvent::operator==(const MetricEvent& o) const {
  if (kind != o.kind || step != o.step || epoch != o.epoch || time_s != o.time_s ||
      unix_time_s != o.unix_time_s || name != o.name || message != o.message || layer != o.layer ||
      values.size() != o.values.size() || !(perClass == o.perClass))
    return false;
  for (const auto& [k, v] : values) {
    auto it = o.values.find(k);
    if (it == o.values.end() || !sameValue(v, it->second)) return false;
  }
  return true;
}

std::string toJsonLine(const MetricEvent& e) {
  nlohmann::json j;
  j["v"] = kMetricsFormatVersion;
  j["kind"] = e.kind;
  j["step"] = e.step;
  j["epoch"] = e.epoch;
  j["time"] = e.time_s;
  j["ts"] = e.unix_time_s;
  if (!e.values.empty()) {
    nlohmann::json vals = nlohmann::json::object();
    for (const auto& [k, v] : e.values) vals[k] = encode(v);
    j["values"] = std::move(vals);
  }
  if (!e.name.empty()) j["name"] = e.name;
  if (!e.message.empty()) j["message"] = e.message;
  if (!e.layer.empty()) j["layer"] = e.layer;
  if (e.perClass) encodePerClass(*e.perClass, j);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<MetricEvent> parseJsonLine(const std::string& line) {
  // The common line without a JSON tree (MetricLineFastPath.h); the same event either way.
  if (MetricEvent fast; parseCommonMetricLine(line, fast)) return fast;
  return parseJsonLineFully(line);
}

std::optional<MetricEvent> parseJsonLineFully(const std::string& line) {
  // Depth-limited: a line of nested brackets must not build a deep value (util/BoundedInput.h).
  const auto parsed = util::parseJson(line);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const nlohmann::json& j = *parsed;
  MetricEvent e;
  auto str = [&](const char* k, std::string& out) {
    if (auto it = j.find(k); it != j.end() && it->is_string()) out = it->get<std::string>();
  };
  auto num = [&](const char* k, double& out) {
    if (auto it = j.find(k); it != j.end())
      if (auto v = decode(*it)) out = *v;
  };
  str("kind", e.kind);
  if (auto it = j.find("step"); it != j.end()) {
    // An integer, or a float an integer can hold (a float beyond that range, as a damaged or
    // foreign log may have, must not be cast: found by fuzzing).
    if (it->is_number_integer())
      e.step = it->get<std::int64_t>();
    else if (it->is_number_float() && std::abs(it->get<double>()) < 9.0e18)
      e.step = static_cast<std::int64_t>(it->get<double>());
  }
  num("epoch", e.epoch);
  num("time", e.time_s);
  num("ts", e.unix_time_s);
  str("name", e.name);
  str("message", e.message);
  str("layer", e.layer);
  if (auto it = j.find("values"); it != j.end() && it->is_object())
    for (auto v = it->begin(); v != it->end(); ++v)
      if (auto d = decode(v.value())) e.values[v.key()] = *d;
  if (e.kind == kind::kPerClass) e.perClass = decodePerClass(j);
  return e;
}

}  // namespace amp::runlog
