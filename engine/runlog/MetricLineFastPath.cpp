#include "runlog/MetricLineFastPath.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace amp::runlog {

namespace {

// A cursor over the line; every reader returns false when the text leaves the subset.
struct LineCursor {
  std::string_view s;
  std::size_t i = 0;

  void skipSpace() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
  }
  bool eat(char c) {
    skipSpace();
    if (i >= s.size() || s[i] != c) return false;
    ++i;
    return true;
  }
  bool peek(char c) {
    skipSpace();
    return i < s.size() && s[i] == c;
  }
  // A string without escapes, control characters or non-ASCII bytes (the full parser checks
  // those, UTF-8 included).
  bool string(std::string_view* out) {
    if (!eat('"')) return false;
    const std::size_t start = i;
    while (i < s.size() && s[i] != '"') {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++i;
    }
    if (i >= s.size()) return false;
    *out = s.substr(start, i - start);
    ++i;
    return true;
  }
  // A JSON number: its text, and whether it is an integer literal (no fraction or exponent).
  bool number(std::string_view* text, bool* integer) {
    skipSpace();
    const std::size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    if (s[i] == '0') {
      ++i;
    } else {
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    }
    *integer = true;
    if (i < s.size() && s[i] == '.') {
      *integer = false;
      ++i;
      const std::size_t digits = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      if (i == digits) return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      *integer = false;
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      const std::size_t digits = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
      if (i == digits) return false;
    }
    *text = s.substr(start, i - start);
    return true;
  }
};

// An integer literal as int64 (nullopt beyond its range: the full parser keeps it unsigned or
// as a double, which the fast path does not imitate). from_chars: no locale (a studio under a
// German locale reads "0.5" as the full parser does), correctly rounded as strtod.
std::optional<std::int64_t> toInt64(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<double> toDouble(std::string_view text, bool integer) {
  if (integer) {
    const auto v = toInt64(text);
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  // Out of a double's range (either way): left to the full parser.
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// Keys seen in one object, to leave duplicates to the full parser: a line has about ten, so a
// look through a small vector beats a tree's allocations.
class SeenKeys {
 public:
  bool insert(std::string_view key) {
    for (std::string_view k : keys_)
      if (k == key) return false;
    keys_.push_back(key);
    return true;
  }

 private:
  std::vector<std::string_view> keys_;
};

// A scalar value as decode() reads it: a number, or "nan" / "inf" / "-inf"; other strings are
// no value (nullopt in `out`). False when the value is outside the subset.
bool scalar(LineCursor& c, std::optional<double>* out, std::string_view* str, bool* isString,
            bool* integer, std::string_view* numberText) {
  *out = std::nullopt;
  *isString = false;
  if (c.peek('"')) {
    if (!c.string(str)) return false;
    *isString = true;
    if (*str == "nan") *out = std::numeric_limits<double>::quiet_NaN();
    if (*str == "inf") *out = std::numeric_limits<double>::infinity();
    if (*str == "-inf") *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (!c.number(numberText, integer)) return false;
  *out = toDouble(*numberText, *integer);
  return out->has_value();
}

bool valuesObject(LineCursor& c, std::map<std::string, double>& values) {
  if (!c.eat('{')) return false;
  if (c.eat('}')) return true;
  SeenKeys seen;
  do {
    std::string_view key, str, num;
    bool isString = false, integer = false;
    std::optional<double> v;
    if (!c.string(&key) || !seen.insert(key) || !c.eat(':') ||
        !scalar(c, &v, &str, &isString, &integer, &num))
      return false;
    if (v) values[std::string(key)] = *v;
  } while (c.eat(','));
  return c.eat('}');
}

}  // namespace

bool parseCommonMetricLine(std::string_view line, MetricEvent& out) {
  out = MetricEvent{};
  LineCursor c{line};
  if (!c.eat('{')) return false;
  SeenKeys seen;
  if (!c.eat('}')) {
    do {
      std::string_view key;
      if (!c.string(&key) || !seen.insert(key) || !c.eat(':')) return false;
      if (key == "values") {
        if (c.peek('{')) {
          if (!valuesObject(c, out.values)) return false;
          continue;
        }
      } else if (c.peek('{') || c.peek('[')) {
        return false;  // another nested value: the full parser
      }
      if (c.peek('[')) return false;
      std::optional<double> v;
      std::string_view str, num;
      bool isString = false, integer = false;
      if (!scalar(c, &v, &str, &isString, &integer, &num)) return false;
      if (key == "kind" && isString) {
        if (str == kind::kPerClass) return false;  // its lists need the full parser
        out.kind = std::string(str);
      } else if (key == "step" && !isString) {
        if (integer) {
          const auto s = toInt64(num);
          if (!s) return false;
          out.step = *s;
        } else if (std::abs(*v) < 9.0e18) {
          out.step = static_cast<std::int64_t>(*v);
        }
      } else if (key == "epoch" && v) {
        out.epoch = *v;
      } else if (key == "time" && v) {
        out.time_s = *v;
      } else if (key == "ts" && v) {
        out.unix_time_s = *v;
      } else if (key == "name" && isString) {
        out.name = std::string(str);
      } else if (key == "message" && isString) {
        out.message = std::string(str);
      } else if (key == "layer" && isString) {
        out.layer = std::string(str);
      }
    } while (c.eat(','));
    if (!c.eat('}')) return false;
  }
  c.skipSpace();
  return c.i == line.size();
}

}  // namespace amp::runlog
