#include "config/ValueFormat.h"

#include <charconv>
#include <cmath>

namespace amp::config {

std::string formatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string formatValue(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "None";
    case nlohmann::json::value_t::boolean:
      return v.get<bool>() ? "True" : "False";
    case nlohmann::json::value_t::number_float:
      return formatNumber(v.get<double>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return v.dump();
    case nlohmann::json::value_t::string:
      return "'" + v.get<std::string>() + "'";
    case nlohmann::json::value_t::array: {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + formatValue(v[i]);
      return s + "]";
    }
    default:
      return v.dump();
  }
}

std::string formatValueForMessage(const nlohmann::json& v, std::size_t maxChars) {
  std::string s = formatValue(v);
  if (s.size() <= maxChars) return s;
  const std::size_t n = s.size();
  s.resize(maxChars);
  return s + "... (" + std::to_string(n) + " characters)";
}

}  // namespace amp::config
