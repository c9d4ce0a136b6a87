#include "metrics/AvaLabelMap.h"

#include <cstdint>

#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

namespace amp::metrics {
namespace {

// The pieces of protobuf's text format that a label map uses.
struct Token {
  enum Kind { Ident, String, Number, Symbol, End } kind = End;
  std::string text;
  int line = 1;
};

bool isIdentStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // False with `why` on a string that does not end on its line or a byte that starts no token.
  bool next(Token& t, std::string& why) {
    skipBlanks();
    t.line = line_;
    t.text.clear();
    if (at_ >= text_.size()) {
      t.kind = Token::End;
      return true;
    }
    const char c = text_[at_];
    if (c == '"' || c == '\'') return readString(t, why);
    if (isIdentStart(c)) {
      t.kind = Token::Ident;
      while (at_ < text_.size() && (isIdentStart(text_[at_]) || isDigit(text_[at_])))
        t.text += text_[at_++];
      return true;
    }
    if (isDigit(c) || c == '-' || c == '+' || c == '.') {
      // Whatever a number could be made of (1, -3, 0x1f, 1.5e3): the field decides what it takes.
      t.kind = Token::Number;
      while (at_ < text_.size() && (isIdentStart(text_[at_]) || isDigit(text_[at_]) ||
                                    text_[at_] == '.' || text_[at_] == '-' || text_[at_] == '+'))
        t.text += text_[at_++];
      return true;
    }
    static constexpr std::string_view kSymbols = "{}<>[]:,;";
    if (kSymbols.find(c) != std::string_view::npos) {
      t.kind = Token::Symbol;
      t.text = std::string(1, c);
      ++at_;
      return true;
    }
    why = "unexpected character '" + util::excerpt(text_.substr(at_, 1)) + "'";
    return false;
  }

 private:
  void skipBlanks() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\n') {
        ++line_, ++at_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
        ++at_;
      } else if (c == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else {
        return;
      }
    }
  }

  bool readString(Token& t, std::string& why) {
    const char quote = text_[at_++];
    t.kind = Token::String;
    while (at_ < text_.size() && text_[at_] != quote) {
      char c = text_[at_++];
      if (c == '\n') break;
      if (c == '\\' && at_ < text_.size() && text_[at_] != '\n') {
        c = text_[at_++];
        c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
      }
      t.text += c;
    }
    if (at_ >= text_.size() || text_[at_] != quote) {
      why = "a string that does not end on its line";
      return false;
    }
    ++at_;
    return true;
  }

  std::string_view text_;
  std::size_t at_ = 0;
  int line_ = 1;
};

// Python's int() of a decimal integer (the only kind read_labelmap reads), into `value` when it is
// within [-2^31, 2^31); false when it is no integer or out of that range.
bool parseId(const std::string& text, std::int64_t& value) {
  std::size_t at = text.empty() || (text[0] != '+' && text[0] != '-') ? 0 : 1;
  if (at >= text.size()) return false;
  value = 0;
  for (; at < text.size(); ++at) {
    if (!isDigit(text[at]) || value > (std::int64_t(1) << 31)) return false;
    value = value * 10 + (text[at] - '0');
  }
  if (text[0] == '-') value = -value;
  return true;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& source) : lex_(text), source_(source) {}

  std::optional<std::vector<AvaClass>> parse(std::string* error) {
    std::vector<AvaClass> classes;
    Token t;
    for (;;) {
      if (!advance(t)) return fail(error);
      if (t.kind == Token::End) break;
      if (t.kind != Token::Ident || (t.text != "item" && t.text != "label"))
        return failAt(t, "expected 'item {' or 'label {', got '" + util::excerpt(t.text) + "'",
                      error);
      AvaClass c;
      if (!readItem(t.line, c)) return fail(error);
      classes.push_back(std::move(c));
    }
    if (classes.empty()) {
      if (error)
        *error = source_ +
                 ": holds no class; a label map is a list of item { name: \"...\" id: N } "
                 "(or label { name: \"...\" label_id: N })";
      return std::nullopt;
    }
    return classes;
  }

 private:
  bool advance(Token& t) {
    std::string why;
    if (lex_.next(t, why)) return true;
    why_ = source_ + ":" + std::to_string(t.line) + ": " + why;
    return false;
  }
  bool problem(const Token& t, const std::string& why) {
    why_ = source_ + ":" + std::to_string(t.line) + ": " + why;
    return false;
  }
  std::optional<std::vector<AvaClass>> fail(std::string* error) const {
    if (error) *error = why_;
    return std::nullopt;
  }
  std::optional<std::vector<AvaClass>> failAt(const Token& t, const std::string& why,
                                              std::string* error) {
    (void)problem(t, why);
    return fail(error);
  }
  static bool isOpen(const Token& t) {
    return t.kind == Token::Symbol && (t.text == "{" || t.text == "<");
  }
  static bool isClose(const Token& t) {
    return t.kind == Token::Symbol && (t.text == "}" || t.text == ">");
  }

  // After 'item' or 'label': [':'] '{' fields '}'.
  bool readItem(int itemLine, AvaClass& out) {
    Token t;
    if (!advance(t)) return false;
    if (t.kind == Token::Symbol && t.text == ":" && !advance(t)) return false;
    if (!isOpen(t)) return problem(t, "expected '{' after the item's name");
    bool hasId = false, hasName = false;
    std::string displayName;
    for (;;) {
      if (!advance(t)) return false;
      if (t.kind == Token::End)
        return problem(t, "the item opened on line " + std::to_string(itemLine) + " never closes");
      if (isClose(t)) break;
      if (t.kind == Token::Symbol && (t.text == "," || t.text == ";")) continue;
      if (t.kind != Token::Ident)
        return problem(t, "expected a field name, got '" + util::excerpt(t.text) + "'");
      const std::string field = t.text;
      if (!advance(t)) return false;
      if (t.kind == Token::Symbol && t.text == ":") {
        if (!advance(t)) return false;
      } else if (!isOpen(t)) {
        return problem(t, "expected ':' after '" + field + "'");
      }
      if (isOpen(t) || (t.kind == Token::Symbol && t.text == "[")) {
        if (!skipNested(t)) return false;  // a sub-message or list no evaluator reads
        continue;
      }
      if (t.kind == Token::Symbol || t.kind == Token::End)
        return problem(t, "'" + field + "' has no value");
      if (field == "id" || field == "label_id") {
        std::int64_t id = 0;
        if (t.kind != Token::Number || !parseId(t.text, id))
          return problem(
              t, "'" + field + "' must be a whole number, got '" + util::excerpt(t.text) + "'");
        if (id < 1)
          return problem(t, "class id " + t.text +
                                ": ids start at 1 (ActivityNet's evaluator refuses lower ones: "
                                "\"Classes should be 1-indexed\")");
        if (id > kAvaMaxClassId)
          return problem(t, "class id " + t.text + " is larger than " +
                                std::to_string(kAvaMaxClassId) + " (AVA's largest is 80)");
        out.id = static_cast<int>(id);
        hasId = true;
      } else if (field == "name" || field == "display_name") {
        if (t.kind != Token::String)
          return problem(
              t, "'" + field + "' must be a quoted string, got '" + util::excerpt(t.text) + "'");
        if (field == "name") {
          out.name = t.text;
          hasName = true;
        } else {
          displayName = t.text;
        }
      }
      // Other fields (label_type: PERSON_MOVEMENT, ...) say nothing the evaluation uses.
    }
    if (!hasId)
      return problem(t, "the item opened on line " + std::to_string(itemLine) +
                            " has no 'id' (or 'label_id')");
    if (!hasName) out.name = displayName;
    return true;
  }

  // Skips a value that opened with `open` ('{', '<' or '['), nesting counted without recursion.
  bool skipNested(const Token& open) {
    int depth = 1;
    Token t;
    while (depth > 0) {
      if (!advance(t)) return false;
      if (t.kind == Token::End) return problem(open, "'" + open.text + "' is never closed");
      if (t.kind != Token::Symbol) continue;
      if (t.text == "{" || t.text == "<" || t.text == "[") ++depth;
      if (t.text == "}" || t.text == ">" || t.text == "]") --depth;
    }
    return true;
  }

  Lexer lex_;
  std::string source_;
  std::string why_;
};

}  // namespace

std::optional<std::vector<AvaClass>> parseAvaLabelMap(std::string_view text,
                                                      const std::string& source,
                                                      std::string* error) {
  return Parser(text, source).parse(error);
}

std::optional<std::vector<AvaClass>> readAvaLabelMap(const std::string& path, std::string* error) {
  // A label map is a few kilobytes; readFile refuses more than 16 MiB, FIFOs and devices.
  std::string text;
  if (!util::readFile(path, text, error)) return std::nullopt;
  return parseAvaLabelMap(text, path, error);
}

}  // namespace amp::metrics
