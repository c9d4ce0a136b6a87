#include "config/PyLiteral.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace amp::config {
namespace {

// CPython's tokenizer refuses more than 200 nested brackets ("too many nested parentheses", a
// SyntaxError), which fvcore's config loader catches and keeps the text as a string; so does
// this parser, and its recursion stays shallow on a hostile value of 50,000 brackets.
constexpr int kMaxNesting = 200;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::optional<nlohmann::json> parseAll() {
    auto v = parseValue();
    skipSpace();
    if (!v || pos_ != text_.size()) return std::nullopt;
    return v;
  }

 private:
  std::optional<nlohmann::json> parseValue() {
    skipSpace();
    if (pos_ >= text_.size()) return std::nullopt;
    const char c = text_[pos_];
    if (c == '[') return parseSequence(']');
    if (c == '(') return parseSequence(')');
    if (c == '\'' || c == '"') return parseString();
    if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c)))
      return parseNumber();
    if (consumeWord("True")) return nlohmann::json(true);
    if (consumeWord("False")) return nlohmann::json(false);
    if (consumeWord("None")) return nlohmann::json(nullptr);
    return std::nullopt;
  }

  bool consumeWord(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    const size_t end = pos_ + w.size();
    if (end < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }

  // A Python list or tuple. "(x)" without a comma is just x, as in Python.
  std::optional<nlohmann::json> parseSequence(char close) {
    if (++depth_ > kMaxNesting) return std::nullopt;
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    ++pos_;
    nlohmann::json arr = nlohmann::json::array();
    bool sawComma = false;
    skipSpace();
    if (peek() == close) {
      ++pos_;
      return arr;
    }
    while (true) {
      auto item = parseValue();
      if (!item) return std::nullopt;
      arr.push_back(std::move(*item));
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        sawComma = true;
        skipSpace();
        if (peek() == close) {
          ++pos_;
          break;
        }
        continue;
      }
      if (peek() == close) {
        ++pos_;
        break;
      }
      return std::nullopt;
    }
    if (close == ')' && !sawComma && arr.size() == 1) return arr[0];
    return arr;
  }

  std::optional<nlohmann::json> parseString() {
    const char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == quote) return nlohmann::json(out);
      if (c == '\\' && pos_ < text_.size()) {
        char e = text_[pos_++];
        switch (e) {
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case '0':
            out += '\0';
            break;
          case '\\':
            out += '\\';
            break;
          case '\'':
            out += '\'';
            break;
          case '"':
            out += '"';
            break;
          default:
            out += '\\';
            out += e;
            break;
        }
        continue;
      }
      if (c == '\n') return std::nullopt;
      out += c;
    }
    return std::nullopt;
  }

  // Python int (decimal with '_', 0x, 0o, 0b) or float (1.5, .5, 5., 1e-4, 1_0.5).
  std::optional<nlohmann::json> parseNumber() {
    const size_t start = pos_;
    bool negative = false;
    while (peek() == '-' || peek() == '+') {
      if (peek() == '-') negative = !negative;
      ++pos_;
      skipSpace();
    }
    std::string digits;
    if (peek() == '0' && pos_ + 1 < text_.size() &&
        std::string_view("xXoObB").find(text_[pos_ + 1]) != std::string_view::npos) {
      const char kind =
          static_cast<char>(std::tolower(static_cast<unsigned char>(text_[pos_ + 1])));
      pos_ += 2;
      const int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
      while (pos_ < text_.size() &&
             (std::isxdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        if (text_[pos_] != '_') digits += text_[pos_];
        ++pos_;
      }
      if (digits.empty()) return std::nullopt;
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(digits.c_str(), &end, base);
      if (errno != 0 || *end != '\0') return std::nullopt;
      return nlohmann::json(static_cast<std::int64_t>(negative ? -v : v));
    }
    bool isFloat = false;
    auto takeDigits = [&] {
      size_t n = 0;
      while (pos_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        if (text_[pos_] != '_') digits += text_[pos_];
        ++pos_;
        ++n;
      }
      return n;
    };
    size_t intDigits = takeDigits();
    size_t fracDigits = 0;
    if (peek() == '.') {
      isFloat = true;
      digits += '.';
      ++pos_;
      fracDigits = takeDigits();
    }
    if (intDigits + fracDigits == 0) {
      pos_ = start;
      return std::nullopt;
    }
    if (peek() == 'e' || peek() == 'E') {
      isFloat = true;
      digits += 'e';
      ++pos_;
      if (peek() == '+' || peek() == '-') digits += text_[pos_++];
      if (takeDigits() == 0) return std::nullopt;
    }
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      return std::nullopt;  // e.g. "12abc", "1j"
    if (!isFloat) {
      // Python forbids leading zeros in decimal ints ("010"), except for zero itself.
      if (digits.size() > 1 && digits[0] == '0' &&
          digits.find_first_not_of('0') != std::string::npos)
        return std::nullopt;
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(digits.c_str(), &end, 10);
      if (errno == 0 && *end == '\0')
        return nlohmann::json(static_cast<std::int64_t>(negative ? -v : v));
      isFloat = true;  // too large for int64: keep it as a float rather than fail
    }
    char* end = nullptr;
    double v = std::strtod(digits.c_str(), &end);
    if (*end != '\0') return std::nullopt;
    return nlohmann::json(negative ? -v : v);
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;  // brackets open at pos_
};

}  // namespace

std::optional<nlohmann::json> parsePythonLiteral(std::string_view text) {
  return Parser(text).parseAll();
}

}  // namespace amp::config
