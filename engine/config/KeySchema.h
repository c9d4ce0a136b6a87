#pragma once
// The typed schema of every config key: PySlowFast's keys (slowfast/config/defaults.py) plus the
// studio's own (AMP.*, SOLVER.LR_SCALE). Front ends build their forms from it.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace amp::config {

using Value = nlohmann::json;

/// The type of a key's value: a scalar kind, or nested lists ending in a scalar kind.
struct TypeSpec {
  enum class Kind { Bool, Int, Float, Str, Any, List };
  std::vector<Kind> levels;  ///< outermost first, e.g. list[list[int]] = {List, List, Int}
  bool nullable = false;     ///< null is a valid value ("T?", or PySlowFast's None defaults)
  bool tuple = false;        ///< written as a tuple in PySlowFast (treated as a list)

  static std::optional<TypeSpec> parse(std::string_view text);
  std::string text() const;      ///< the schema spelling, e.g. "list[int]", "float?"
  std::string describe() const;  ///< for messages, e.g. "a list of integers"
  Kind outer() const { return levels.empty() ? Kind::Any : levels.front(); }
};

/// A value constraint: numeric range, a set of choices, or non-empty.
struct Constraint {
  std::optional<double> min, max;
  bool minExclusive = false, maxExclusive = false;
  std::vector<Value> choices;
  bool nonEmpty = false;

  static std::optional<Constraint> parse(std::string_view text);
  bool empty() const { return !min && !max && choices.empty() && !nonEmpty; }
  std::string text()
      const;  ///< e.g. ">= 0", "in (0, 1)", "one of: cosine, steps_with_relative_lrs"
  /// Checks a value already coerced to the key's type; returns the problem, or nullopt.
  std::optional<std::string> check(const Value& v) const;
};

enum class KeyStatus {
  Active,      ///< the studio acts on it
  Inactive,    ///< PySlowFast key the studio reads but does not act on yet (warned when set)
  Deprecated,  ///< removed from PySlowFast; accepted with a warning and ignored
  Refused,  ///< asks for a task or model variant the studio does not run: train and test refuse a
            ///< value other than the default (config/Refusals.h), the validator warns
};

struct KeyDef {
  std::string key;  ///< dotted, e.g. "SOLVER.BASE_LR"
  TypeSpec type;
  Value defaultValue;
  Constraint constraint;
  KeyStatus status = KeyStatus::Active;
  std::string doc;
  bool studioKey = false;     ///< defined by AMP Studio, not by PySlowFast
  std::string group() const;  ///< the prefix before the last dot ("" for top-level keys)
};

/// Immutable key schema. Lookup by dotted key; groups are the dotted prefixes.
class KeySchema {
 public:
  /// The built-in schema (engine/config/schema.tsv, embedded at build time).
  static std::shared_ptr<const KeySchema> builtin();
  /// Parses a schema table; throws std::runtime_error naming the line of a malformed row.
  static std::shared_ptr<const KeySchema> fromTsv(std::string_view text);

  const std::vector<KeyDef>& keys() const { return keys_; }
  const KeyDef* find(std::string_view key) const;
  /// True for "SOLVER", "MVIT.REV", "TENSORBOARD.MODEL_VIS" ...: prefixes of keys.
  bool isGroup(std::string_view prefix) const;
  /// Top-level groups in schema order ("" stands for the top-level keys).
  std::vector<std::string> topLevelGroups() const;
  /// Keys whose dotted name starts with `prefix` (all keys for "").
  std::vector<const KeyDef*> withPrefix(std::string_view prefix) const;
  /// Up to `max` known keys closest to an unknown one (edit distance, same leaf name first).
  std::vector<std::string> suggest(std::string_view unknownKey, size_t max = 3) const;

 private:
  std::vector<KeyDef> keys_;
  std::map<std::string, size_t, std::less<>> index_;
  std::map<std::string, int, std::less<>> groups_;
};

}  // namespace amp::config
