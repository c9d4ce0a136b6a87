#include "runlog/MetricEvent.h"

#include <cmath>
#include <limits>

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

}  // namespace

bool MetricEvent::operator==(const MetricEvent& o) const {
  if (kind != o.kind || step != o.step || epoch != o.epoch || time_s != o.time_s ||
      unix_time_s != o.unix_time_s || name != o.name || message != o.message || layer != o.layer ||
      values.size() != o.values.size())
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
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<MetricEvent> parseJsonLine(const std::string& line) {
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
  return e;
}

}  // namespace amp::runlog
