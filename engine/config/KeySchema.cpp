#include "config/KeySchema.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "config/ValueFormat.h"

namespace amp::embedded {
extern const char* const kSchemaTsv;
}

namespace amp::config {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(sep, start);
    out.push_back(
        s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::toupper(static_cast<unsigned char>(a[i - 1])) ==
                        std::toupper(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string_view leafOf(std::string_view key) {
  const size_t p = key.rfind('.');
  return p == std::string_view::npos ? key : key.substr(p + 1);
}

Value parseDefault(std::string_view text) {
  if (text == "Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  return Value::parse(text);
}

std::string bound(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::floor(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return formatNumber(v);
}

}  // namespace

std::optional<TypeSpec> TypeSpec::parse(std::string_view text) {
  TypeSpec t;
  text = trim(text);
  if (!text.empty() && text.back() == '?') {
    t.nullable = true;
    text.remove_suffix(1);
  }
  while (true) {
    if (text.rfind("list", 0) == 0 || text.rfind("tuple", 0) == 0) {
      const bool isTuple = text[0] == 't';
      if (t.levels.empty()) t.tuple = isTuple;
      t.levels.push_back(Kind::List);
      text.remove_prefix(isTuple ? 5 : 4);
      if (text.empty()) {
        t.levels.push_back(Kind::Any);
        return t;
      }
      if (text.front() != '[' || text.back() != ']') return std::nullopt;
      text = text.substr(1, text.size() - 2);
      continue;
    }
    if (text == "bool")
      t.levels.push_back(Kind::Bool);
    else if (text == "int")
      t.levels.push_back(Kind::Int);
    else if (text == "float")
      t.levels.push_back(Kind::Float);
    else if (text == "str")
      t.levels.push_back(Kind::Str);
    else if (text == "any") {
      t.levels.push_back(Kind::Any);
      t.nullable = true;
    } else
      return std::nullopt;
    return t;
  }
}

std::string TypeSpec::text() const {
  std::string s;
  size_t closes = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    switch (levels[i]) {
      case Kind::List:
        if (i + 1 < levels.size() && levels[i + 1] == Kind::Any && i + 2 == levels.size()) {
          s += (i == 0 && tuple) ? "tuple" : "list";
          return s + std::string(closes, ']') + (nullable ? "?" : "");
        }
        s += (i == 0 && tuple) ? "tuple[" : "list[";
        ++closes;
        break;
      case Kind::Bool:
        s += "bool";
        break;
      case Kind::Int:
        s += "int";
        break;
      case Kind::Float:
        s += "float";
        break;
      case Kind::Str:
        s += "str";
        break;
      case Kind::Any:
        return s + "any" + std::string(closes, ']');
    }
  }
  return s + std::string(closes, ']') + (nullable ? "?" : "");
}

std::string TypeSpec::describe() const {
  std::string s;
  for (size_t i = 0; i < levels.size(); ++i) {
    const bool plural = i > 0;
    switch (levels[i]) {
      case Kind::List:
        s += plural ? "lists of " : "a list of ";
        break;
      case Kind::Bool:
        s += plural ? "booleans" : "a boolean (True/False)";
        break;
      case Kind::Int:
        s += plural ? "integers" : "an integer";
        break;
      case Kind::Float:
        s += plural ? "numbers" : "a number";
        break;
      case Kind::Str:
        s += plural ? "strings" : "a string";
        break;
      case Kind::Any:
        s += plural ? "values" : "any value";
        break;
    }
  }
  if (nullable && outer() != Kind::Any) s += " or null";
  return s;
}

std::optional<Constraint> Constraint::parse(std::string_view text) {
  Constraint c;
  text = trim(text);
  if (text.empty() || text == "-") return c;
  if (text == "nonempty") {
    c.nonEmpty = true;
    return c;
  }
  auto number = [](std::string_view s) -> std::optional<double> {
    s = trim(s);
    if (s == "inf") return std::numeric_limits<double>::infinity();
    try {
      size_t used = 0;
      double v = std::stod(std::string(s), &used);
      if (used != s.size()) return std::nullopt;
      return v;
    } catch (...) {
      return std::nullopt;
    }
  };
  if (text.rfind(">=", 0) == 0 || text.rfind("<=", 0) == 0) {
    auto v = number(text.substr(2));
    if (!v) return std::nullopt;
    (text[0] == '>' ? c.min : c.max) = v;
    return c;
  }
  if (text[0] == '>' || text[0] == '<') {
    auto v = number(text.substr(1));
    if (!v) return std::nullopt;
    if (text[0] == '>')
      c.min = v, c.minExclusive = true;
    else
      c.max = v, c.maxExclusive = true;
    return c;
  }
  if (text.front() == '{' && text.back() == '}') {
    for (auto part : split(text.substr(1, text.size() - 2), ',')) {
      part = trim(part);
      if (auto v = number(part); v && std::floor(*v) == *v)
        c.choices.emplace_back(static_cast<std::int64_t>(*v));
      else
        c.choices.emplace_back(std::string(part));
    }
    return c;
  }
  if ((text.front() == '[' || text.front() == '(') && (text.back() == ']' || text.back() == ')')) {
    auto parts = split(text.substr(1, text.size() - 2), ',');
    if (parts.size() != 2) return std::nullopt;
    c.min = number(parts[0]);
    c.max = number(parts[1]);
    if (!c.min || !c.max) return std::nullopt;
    c.minExclusive = text.front() == '(';
    c.maxExclusive = text.back() == ')';
    return c;
  }
  return std::nullopt;
}

std::string Constraint::text() const {
  if (nonEmpty) return "not empty";
  if (!choices.empty()) {
    std::string s = "one of: ";
    for (size_t i = 0; i < choices.size(); ++i)
      s += (i ? ", " : "") +
           (choices[i].is_string() ? choices[i].get<std::string>() : choices[i].dump());
    return s;
  }
  if (min && max)
    return std::string("in ") + (minExclusive ? "(" : "[") + bound(*min) + ", " + bound(*max) +
           (maxExclusive ? ")" : "]");
  if (min) return std::string(minExclusive ? "> " : ">= ") + bound(*min);
  if (max) return std::string(maxExclusive ? "< " : "<= ") + bound(*max);
  return "any value";
}

std::optional<std::string> Constraint::check(const Value& v) const {
  if (v.is_null()) return std::nullopt;
  if (nonEmpty && v.is_string() && v.get<std::string>().empty()) return "must not be empty";
  if (!choices.empty()) {
    for (const auto& c : choices)
      if (c == v) return std::nullopt;
    return "is " + formatValueForMessage(v) + "; allowed: " + text().substr(8);
  }
  if (v.is_number() && (min || max)) {
    const double x = v.get<double>();
    const bool low = min && (minExclusive ? !(x > *min) : !(x >= *min));
    const bool high = max && (maxExclusive ? !(x < *max) : !(x <= *max));
    if (low || high || std::isnan(x))
      return "is " + formatValueForMessage(v) + "; it must be " + text();
  }
  return std::nullopt;
}

std::string KeyDef::group() const {
  const size_t p = key.rfind('.');
  return p == std::string::npos ? std::string() : key.substr(0, p);
}

std::shared_ptr<const KeySchema> KeySchema::builtin() {
  // Parsed once; immutable afterwards, so sharing it between threads is safe.
  static const std::shared_ptr<const KeySchema> schema = fromTsv(embedded::kSchemaTsv);
  return schema;
}

std::shared_ptr<const KeySchema> KeySchema::fromTsv(std::string_view text) {
  auto schema = std::make_shared<KeySchema>();
  int lineNo = 0;
  for (auto line : split(text, '\n')) {
    ++lineNo;
    if (trim(line).empty() || line.front() == '#') continue;
    auto cols = split(line, '\t');
    auto fail = [&](const std::string& what) {
      throw std::runtime_error("schema.tsv:" + std::to_string(lineNo) + ": " + what);
    };
    if (cols.size() != 6)
      fail("expected 6 tab-separated columns, got " + std::to_string(cols.size()));
    KeyDef def;
    def.key = std::string(cols[0]);
    auto type = TypeSpec::parse(cols[1]);
    if (!type) fail("bad type '" + std::string(cols[1]) + "'");
    def.type = *type;
    try {
      def.defaultValue = parseDefault(cols[2]);
    } catch (const std::exception& e) {
      fail("bad default: " + std::string(e.what()));
    }
    if (def.defaultValue.is_null()) def.type.nullable = true;
    auto constraint = Constraint::parse(cols[3]);
    if (!constraint) fail("bad constraint '" + std::string(cols[3]) + "'");
    def.constraint = *constraint;
    if (cols[4] == "active")
      def.status = KeyStatus::Active;
    else if (cols[4] == "inactive")
      def.status = KeyStatus::Inactive;
    else if (cols[4] == "deprecated")
      def.status = KeyStatus::Deprecated;
    else if (cols[4] == "refused")
      def.status = KeyStatus::Refused;
    else
      fail("bad status '" + std::string(cols[4]) + "'");
    def.doc = std::string(cols[5]);
    def.studioKey = def.key.rfind("AMP.", 0) == 0 || def.key.rfind("DIST.", 0) == 0 ||
                    def.key == "SOLVER.LR_SCALE" || def.key == "SOLVER.GRAD_ACCUM_STEPS";
    if (schema->index_.count(def.key)) fail("duplicate key " + def.key);
    schema->index_.emplace(def.key, schema->keys_.size());
    for (size_t p = def.key.find('.'); p != std::string::npos; p = def.key.find('.', p + 1))
      schema->groups_.emplace(def.key.substr(0, p), static_cast<int>(schema->groups_.size()));
    schema->keys_.push_back(std::move(def));
  }
  return schema;
}

const KeyDef* KeySchema::find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &keys_[it->second];
}

bool KeySchema::isGroup(std::string_view prefix) const {
  return groups_.find(prefix) != groups_.end();
}

std::vector<std::string> KeySchema::topLevelGroups() const {
  std::vector<std::string> out;
  for (const auto& k : keys_) {
    const size_t p = k.key.find('.');
    std::string g = p == std::string::npos ? std::string() : k.key.substr(0, p);
    if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  }
  return out;
}

std::vector<const KeyDef*> KeySchema::withPrefix(std::string_view prefix) const {
  std::vector<const KeyDef*> out;
  for (const auto& k : keys_)
    if (k.key.compare(0, prefix.size(), prefix) == 0) out.push_back(&k);
  return out;
}

std::vector<std::string> KeySchema::suggest(std::string_view unknownKey, size_t max) const {
  std::vector<std::pair<size_t, std::string>> scored;
  const std::string_view leaf = leafOf(unknownKey);
  const size_t dot = unknownKey.rfind('.');
  const std::string_view unknownGroup =
      dot == std::string_view::npos ? "" : unknownKey.substr(0, dot);
  const size_t limit = std::max<size_t>(2, leaf.size() / 3);
  for (const auto& k : keys_) {
    size_t d = editDistance(unknownKey, k.key);
    if (leafOf(k.key) == leaf)
      d = std::min<size_t>(d, 1);  // the right key in another group
    else if (k.group() == unknownGroup)
      d = std::min(d, editDistance(leaf, leafOf(k.key)));
    if (d <= limit) scored.emplace_back(d, k.key);
  }
  for (const auto& [group, order] : groups_) {
    const size_t d = editDistance(unknownKey, group);
    if (d <= limit && d > 0) scored.emplace_back(d, group);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& s : scored) {
    if (out.size() >= max) break;
    out.push_back(s.second);
  }
  return out;
}

}  // namespace amp::config
