#include "config/YamlEdit.h"

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "config/ValueFormat.h"

namespace amp::config {
namespace {

struct Line {
  std::string text;
  int indent = 0;
  bool content = false;  ///< not blank, not a comment
};

std::vector<Line> splitLines(const std::string& text) {
  std::vector<Line> lines;
  if (text.empty()) return lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    Line l{text.substr(start, end - start)};
    std::size_t i = 0;
    while (i < l.text.size() && l.text[i] == ' ') ++i;
    l.indent = static_cast<int>(i);
    l.content = i < l.text.size() && l.text[i] != '#' && l.text[i] != '\r';
    lines.push_back(std::move(l));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

/// "KEY:" at the start of a trimmed line: returns the position after the colon, or npos.
std::size_t matchKey(const Line& l, const std::string& key) {
  const std::string rest = l.text.substr(static_cast<std::size_t>(l.indent));
  if (rest.compare(0, key.size(), key) != 0) return std::string::npos;
  std::size_t p = key.size();
  while (p < rest.size() && rest[p] == ' ') ++p;  // "KEY :" is legal YAML
  if (p >= rest.size() || rest[p] != ':') return std::string::npos;
  if (p + 1 < rest.size() && rest[p + 1] != ' ' && rest[p + 1] != '\t' && rest[p + 1] != '\r')
    return std::string::npos;
  return static_cast<std::size_t>(l.indent) + p + 1;
}

/// The inline comment of a value part (" # ..."), outside quotes; empty when none.
std::string inlineComment(const std::string& valuePart) {
  char quote = 0;
  for (std::size_t i = 0; i < valuePart.size(); ++i) {
    const char c = valuePart[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || valuePart[i - 1] == ' ' || valuePart[i - 1] == '\t')) {
      std::size_t s = i;
      while (s > 0 && (valuePart[s - 1] == ' ' || valuePart[s - 1] == '\t')) --s;
      return valuePart.substr(s);
    }
  }
  return {};
}

bool plainStringIsSafe(const std::string& s) {
  if (s.empty()) return false;
  static const char* reserved[] = {"true", "false", "yes", "no", "on", "off",
                                   "null", "none",  "~",   "y",  "n"};
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* r : reserved)
    if (lower == r) return false;
  if (std::string("-?:,[]{}#&*!|>'\"%@`").find(s.front()) != std::string::npos) return false;
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos || s.back() == ' ' ||
      s.back() == ':')
    return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !(end && *end == '\0');  // "1e3" would read back as a number
}

}  // namespace

std::string yamlScalarText(const Value& v) {
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "null";
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) return formatNumber(v.get<double>());
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (plainStringIsSafe(s)) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + yamlScalarText(v[i]);
    return out + "]";
  }
  return v.dump();
}

std::optional<std::string> setYamlKey(const std::string& text, const std::string& dottedKey,
                                      const std::string& valueText, std::string* error) {
  std::vector<std::string> parts;
  std::stringstream ss(dottedKey);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  std::vector<Line> lines = splitLines(text);
  // An empty trailing element stands for the final newline.
  const bool finalNewline = !text.empty() && text.back() == '\n';
  if (finalNewline) lines.pop_back();

  std::size_t begin = 0, end = lines.size();
  int parentIndent = -1;
  std::size_t part = 0;
  for (; part < parts.size(); ++part) {
    int childIndent = -1;
    for (std::size_t i = begin; i < end && childIndent < 0; ++i)
      if (lines[i].content && lines[i].indent > parentIndent) childIndent = lines[i].indent;
    std::size_t found = end;
    std::size_t valuePos = std::string::npos;
    for (std::size_t i = begin; i < end; ++i)
      if (lines[i].content && lines[i].indent == childIndent &&
          (valuePos = matchKey(lines[i], parts[part])) != std::string::npos) {
        found = i;
        break;
      }
    if (found == end) break;
    const std::string after = lines[found].text.substr(valuePos);
    const std::string comment = inlineComment(after);
    std::string value = after.substr(0, after.size() - comment.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\r')) value.pop_back();
    if (part + 1 == parts.size()) {
      lines[found].text = lines[found].text.substr(0, valuePos) + " " + valueText + comment;
      std::string out;
      for (std::size_t i = 0; i < lines.size(); ++i)
        out += lines[i].text + (i + 1 < lines.size() || finalNewline ? "\n" : "");
      return out;
    }
    if (!value.empty()) {
      if (error)
        *error = value.front() == '{'
                     ? dottedKey + ": the section " + parts[part] +
                           " is a flow mapping ({...}); edit it in the text"
                     : dottedKey + ": " + parts[part] + " holds a value, not a section";
      return std::nullopt;
    }
    parentIndent = lines[found].indent;
    begin = found + 1;
    std::size_t stop = begin;
    while (stop < end && (!lines[stop].content || lines[stop].indent > parentIndent)) ++stop;
    end = stop;
  }
  // Add the missing parts after the last content line of the section reached.
  int indent = 0;
  for (std::size_t i = begin; i < end; ++i)
    if (lines[i].content && lines[i].indent > parentIndent) {
      indent = lines[i].indent;
      break;
    }
  if (parentIndent >= 0 && indent <= parentIndent) indent = parentIndent + 2;
  std::size_t insertAt = begin;
  for (std::size_t i = begin; i < end; ++i)
    if (lines[i].content) insertAt = i + 1;
  if (parentIndent < 0) insertAt = lines.size();
  std::vector<Line> added;
  for (std::size_t p = part; p < parts.size(); ++p) {
    const std::string pad(static_cast<std::size_t>(indent + 2 * static_cast<int>(p - part)), ' ');
    added.push_back(
        {pad + parts[p] + ":" + (p + 1 == parts.size() ? " " + valueText : std::string())});
  }
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(insertAt), added.begin(), added.end());
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i)
    out += lines[i].text + (i + 1 < lines.size() || finalNewline || added.size() ? "\n" : "");
  return out;
}

}  // namespace amp::config
