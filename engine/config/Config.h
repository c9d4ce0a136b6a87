#pragma once
// A resolved config: one typed value per schema key, with where each value was set.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/Diagnostic.h"
#include "config/KeySchema.h"

namespace amp::config {

/// Converts a raw value (from YAML or a Python literal) to the key's type, the way PySlowFast's
/// loader does (lists and tuples interchange; ints widen to floats). Returns the problem text.
std::optional<Value> coerceValue(const TypeSpec& type, const Value& raw, std::string* problem);

/// The typed config tree. Copyable value; equality compares values only (not origins).
class Config {
 public:
  explicit Config(std::shared_ptr<const KeySchema> schema = KeySchema::builtin());

  const KeySchema& schema() const { return *schema_; }
  std::shared_ptr<const KeySchema> schemaPtr() const { return schema_; }

  /// The value of a key; throws std::out_of_range for a key the schema does not define.
  const Value& get(std::string_view key) const;
  bool getBool(std::string_view key) const;
  std::int64_t getInt(std::string_view key) const;
  double getFloat(std::string_view key) const;
  std::string getString(std::string_view key) const;
  std::optional<double> getOptionalFloat(std::string_view key) const;
  std::vector<std::int64_t> getIntList(std::string_view key) const;
  std::vector<double> getFloatList(std::string_view key) const;
  std::vector<std::string> getStringList(std::string_view key) const;

  /// Sets a key from a raw value, coercing it to the key's type. Returns the problem when the
  /// key is unknown or the value has the wrong type; the config is then unchanged.
  [[nodiscard]] std::optional<std::string> set(std::string_view key, const Value& raw,
                                               Origin origin = {});
  /// set() for values the program computes itself (a phase's frames, a benchmark's OUTPUT_DIR):
  /// a refusal is a bug, thrown as std::invalid_argument "KEY: problem".
  ///
  ///   c.setOrThrow("DATA.NUM_FRAMES", std::int64_t{16});
  void setOrThrow(std::string_view key, const Value& raw);
  /// Back to the schema default.
  void reset(std::string_view key);

  /// Where the key was last set; nullptr while it holds its default.
  const Origin* origin(std::string_view key) const;
  bool isDefault(std::string_view key) const;
  /// Keys whose value differs from the default, in schema order.
  std::vector<std::string> changedKeys() const;

  bool operator==(const Config& other) const { return values_ == other.values_; }
  bool operator!=(const Config& other) const { return !(*this == other); }

 private:
  std::shared_ptr<const KeySchema> schema_;
  std::map<std::string, Value, std::less<>> values_;
  std::map<std::string, Origin, std::less<>> origins_;
};

}  // namespace amp::config
