#include "config/Config.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "config/ValueFormat.h"

namespace amp::config {
namespace {

std::optional<Value> coerceLevel(const TypeSpec& type, size_t level, const Value& raw,
                                 std::string* problem) {
  using Kind = TypeSpec::Kind;
  const Kind kind = level < type.levels.size() ? type.levels[level] : Kind::Any;
  if (raw.is_null()) {
    if (level == 0 && type.nullable) return raw;
    if (kind == Kind::Any) return raw;
    *problem = "is empty (null)";
    return std::nullopt;
  }
  switch (kind) {
    case Kind::Any:
      return raw;
    case Kind::Bool:
      if (raw.is_boolean()) return raw;
      break;
    case Kind::Int:
      if (raw.is_number_integer()) return raw;
      break;
    case Kind::Float:
      if (raw.is_number() && !raw.is_boolean()) return Value(raw.get<double>());
      break;
    case Kind::Str:
      if (raw.is_string()) return raw;
      break;
    case Kind::List: {
      if (!raw.is_array()) break;
      Value out = Value::array();
      for (size_t i = 0; i < raw.size(); ++i) {
        std::string inner;
        auto v = coerceLevel(type, level + 1, raw[i], &inner);
        if (!v) {
          *problem = "item " + std::to_string(i) + " " + inner;
          return std::nullopt;
        }
        out.push_back(std::move(*v));
      }
      return out;
    }
  }
  TypeSpec rest;
  rest.levels.assign(type.levels.begin() + static_cast<long>(level), type.levels.end());
  rest.nullable = level == 0 && type.nullable;
  *problem = "is " + formatValueForMessage(raw) + "; expected " + rest.describe();
  if (kind == Kind::Str && (raw.is_number() || raw.is_boolean()))
    *problem += " (quote it: \"" + (raw.is_string() ? raw.get<std::string>() : raw.dump()) + "\")";
  if (kind == Kind::Int && raw.is_number_float() &&
      std::floor(raw.get<double>()) == raw.get<double>())
    *problem += " (write it without the decimal point)";
  return std::nullopt;
}

[[noreturn]] void wrongType(std::string_view key, const char* what) {
  throw std::invalid_argument("config key " + std::string(key) + " is not " + what);
}

}  // namespace

std::optional<Value> coerceValue(const TypeSpec& type, const Value& raw, std::string* problem) {
  std::string local;
  return coerceLevel(type, 0, raw, problem ? problem : &local);
}

Config::Config(std::shared_ptr<const KeySchema> schema) : schema_(std::move(schema)) {
  for (const auto& k : schema_->keys()) values_.emplace(k.key, k.defaultValue);
}

const Value& Config::get(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::out_of_range("unknown config key " + std::string(key));
  return it->second;
}

bool Config::getBool(std::string_view key) const {
  const Value& v = get(key);
  if (!v.is_boolean()) wrongType(key, "a boolean");
  return v.get<bool>();
}

std::int64_t Config::getInt(std::string_view key) const {
  const Value& v = get(key);
  if (!v.is_number_integer()) wrongType(key, "an integer");
  return v.get<std::int64_t>();
}

double Config::getFloat(std::string_view key) const {
  const Value& v = get(key);
  if (!v.is_number()) wrongType(key, "a number");
  return v.get<double>();
}

std::string Config::getString(std::string_view key) const {
  const Value& v = get(key);
  if (!v.is_string()) wrongType(key, "a string");
  return v.get<std::string>();
}

std::optional<double> Config::getOptionalFloat(std::string_view key) const {
  const Value& v = get(key);
  if (v.is_null()) return std::nullopt;
  return getFloat(key);
}

std::vector<std::int64_t> Config::getIntList(std::string_view key) const {
  const Value& v = get(key);
  std::vector<std::int64_t> out;
  if (!v.is_array()) wrongType(key, "a list");
  for (const auto& x : v) {
    if (!x.is_number_integer()) wrongType(key, "a list of integers");
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

std::vector<double> Config::getFloatList(std::string_view key) const {
  const Value& v = get(key);
  std::vector<double> out;
  if (!v.is_array()) wrongType(key, "a list");
  for (const auto& x : v) {
    if (!x.is_number()) wrongType(key, "a list of numbers");
    out.push_back(x.get<double>());
  }
  return out;
}

std::vector<std::string> Config::getStringList(std::string_view key) const {
  const Value& v = get(key);
  std::vector<std::string> out;
  if (!v.is_array()) wrongType(key, "a list");
  for (const auto& x : v) {
    if (!x.is_string()) wrongType(key, "a list of strings");
    out.push_back(x.get<std::string>());
  }
  return out;
}

std::optional<std::string> Config::set(std::string_view key, const Value& raw, Origin origin) {
  const KeyDef* def = schema_->find(key);
  if (!def) return "is not a config key";
  std::string problem;
  std::optional<Value> v;
  const auto& choices = def->constraint.choices;
  const bool onOff = std::find(choices.begin(), choices.end(), Value("on")) != choices.end() &&
                     std::find(choices.begin(), choices.end(), Value("off")) != choices.end();
  if (raw.is_null() && !def->type.nullable && def->status != KeyStatus::Active) {
    v = raw;  // PySlowFast accepts None for any key; harmless for keys the studio does not act on
  } else if (raw.is_boolean() && onOff) {
    v = Value(raw.get<bool>() ? "on" : "off");  // YAML 1.1 reads a bare on/off as a boolean
  } else {
    v = coerceValue(def->type, raw, &problem);
  }
  if (!v) {
    if (raw.is_null())
      problem += "; PySlowFast would accept None here, but AMP Studio acts on this key and needs " +
                 def->type.describe();
    return problem;
  }
  values_[def->key] = std::move(*v);
  origins_[def->key] = std::move(origin);
  return std::nullopt;
}

void Config::setOrThrow(std::string_view key, const Value& raw) {
  if (const auto problem = set(key, raw))
    throw std::invalid_argument(std::string(key) + ": " + *problem);
}

void Config::reset(std::string_view key) {
  const KeyDef* def = schema_->find(key);
  if (!def) throw std::out_of_range("unknown config key " + std::string(key));
  values_[def->key] = def->defaultValue;
  origins_.erase(def->key);
}

const Origin* Config::origin(std::string_view key) const {
  auto it = origins_.find(key);
  return it == origins_.end() ? nullptr : &it->second;
}

bool Config::isDefault(std::string_view key) const {
  const KeyDef* def = schema_->find(key);
  return def && get(key) == def->defaultValue;
}

std::vector<std::string> Config::changedKeys() const {
  std::vector<std::string> out;
  for (const auto& k : schema_->keys())
    if (values_.at(k.key) != k.defaultValue) out.push_back(k.key);
  return out;
}

}  // namespace amp::config
