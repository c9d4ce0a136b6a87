#include "metrics/AvaCsv.h"

#include <locale.h>
#include <stdlib.h>

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

namespace amp::metrics {
namespace {

// The ASCII characters Python's str.strip() (and so int() and float()) takes for whitespace.
bool isPySpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view pyStrip(std::string_view s) {
  while (!s.empty() && isPySpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isPySpace(s.back())) s.remove_suffix(1);
  return s;
}

// `s` without the underscores Python allows between two digits ("1_000"); false when one is
// anywhere else, as int() and float() refuse it.
bool dropDigitUnderscores(std::string_view s, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '_') {
      out += s[i];
    } else if (i == 0 || i + 1 == s.size() || !isDigit(s[i - 1]) || !isDigit(s[i + 1])) {
      return false;
    }
  }
  return true;
}

// Python's int() of a decimal string. Values outside int64 are refused (Python's are unbounded;
// no AVA second or class id comes near).
bool parsePyInt(std::string_view field, std::int64_t& value) {
  std::string s;
  if (!dropDigitUnderscores(pyStrip(field), s)) return false;
  const bool negative = !s.empty() && s[0] == '-';
  const std::size_t from = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (from >= s.size()) return false;
  std::uint64_t magnitude = 0;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (!isDigit(s[i])) return false;
    if (magnitude > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return false;
    magnitude = magnitude * 10 + static_cast<std::uint64_t>(s[i] - '0');
  }
  if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return false;
  value = negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

// True when `s` (stripped, underscores gone) is a number Python's float() reads: a decimal with
// an optional exponent, or inf / infinity / nan in any case, each with an optional sign. Hex and
// "nan(...)", which strtod would also take, are refused as Python does.
bool isPyFloatSyntax(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (lower == "inf" || lower == "infinity" || lower == "nan") return true;
  std::size_t i = 0, digits = 0;
  while (i < s.size() && isDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && isDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t expDigits = 0;
    while (i < s.size() && isDigit(s[i])) ++i, ++expDigits;
    if (expDigits == 0) return false;
  }
  return i == s.size();
}

// Python's float(): correctly rounded, 1e999 is inf, 1e-999 is 0. strtod_l in the C locale: the
// studio's Qt sets the user's locale, where strtod would stop at the '.' of "0.5" in German.
bool parsePyFloat(std::string_view field, double& value) {
  std::string s;
  if (!dropDigitUnderscores(pyStrip(field), s) || !isPyFloatSyntax(s)) return false;
  static const locale_t cLocale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  value = strtod_l(s.c_str(), nullptr, cLocale);
  return true;
}

// One line as Python's csv.reader (excel dialect) splits it: ',' between fields, a field that
// starts with '"' is quoted ("" inside it is one "), a quote elsewhere is a plain character.
// False when a quoted field does not end on its line (csv would read on into the next one).
bool splitCsvLine(std::string_view line, std::vector<std::string>& fields) {
  fields.clear();
  std::size_t at = 0;
  for (;;) {
    std::string field;
    if (at < line.size() && line[at] == '"') {
      ++at;
      for (;;) {
        if (at >= line.size()) return false;
        if (line[at] != '"') {
          field += line[at++];
        } else if (at + 1 < line.size() && line[at + 1] == '"') {
          field += '"', at += 2;
        } else {
          ++at;
          break;
        }
      }
    }
    // Unquoted text, or what follows a closing quote (csv's non-strict mode keeps it).
    while (at < line.size() && line[at] != ',') field += line[at++];
    fields.push_back(std::move(field));
    if (at >= line.size()) return true;
    ++at;  // the ','
  }
}

enum class Kind { GroundTruth, Detections, Exclusions };

std::string columnsText(Kind kind) {
  switch (kind) {
    case Kind::GroundTruth:
      return "7 or 8 columns (video,second,x1,y1,x2,y2,action[,person_id])";
    case Kind::Detections:
      return "8 columns (video,second,x1,y1,x2,y2,action,score)";
    case Kind::Exclusions:
      break;
  }
  return "2 columns (video,second)";
}

// Reads `path` line by line; `row` gets each non-blank line's fields and returns the problem with
// it ("" when none). Stops at the first problem: "path:line: problem".
template <typename RowFn>
bool forEachRow(const std::string& path, std::string* error, RowFn&& row) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  if (path.empty()) return fail("no file named (an empty path)");
  util::LineReader in(kAvaMaxLineBytes);
  std::string cannot;
  if (!in.open(path, &cannot)) return fail(cannot);
  std::string line;
  std::vector<std::string> fields;
  std::int64_t rows = 0;
  for (util::LineReader::Result r; (r = in.next(line)) != util::LineReader::Result::End;) {
    const std::string at = path + ":" + std::to_string(in.lineNumber()) + ": ";
    if (r == util::LineReader::Result::TooLong)
      return fail(at + "longer than " + std::to_string(kAvaMaxLineBytes) +
                  " bytes (an AVA line is about 60): is this an AVA CSV file?");
    if (!line.empty() && line.back() == '\r') line.pop_back();  // Python reads "\r\n" as "\n"
    if (line.empty()) continue;
    if (++rows > kAvaMaxRows)
      return fail(at + "more than " + std::to_string(kAvaMaxRows) + " rows; refused");
    if (!splitCsvLine(line, fields))
      return fail(at + "a quoted field does not end on its line: '" + util::excerpt(line) + "'");
    const std::string problem = row(fields);
    if (!problem.empty()) return fail(at + problem + " in '" + util::excerpt(line) + "'");
  }
  if (!in.error().empty()) return fail(in.error());
  return true;
}

std::string notNumber(const char* column, const std::string& value, const char* kind) {
  return std::string(column) + " '" + util::excerpt(value, 40) + "' is not " + kind;
}

std::optional<std::vector<AvaImage>> readBoxes(const std::string& path, Kind kind,
                                               const std::set<int>& classes, std::string* error) {
  std::vector<AvaImage> images;
  std::unordered_map<std::string, std::size_t> index;
  const bool ok = forEachRow(path, error, [&](const std::vector<std::string>& f) -> std::string {
    // read_csv asserts 7 or 8 columns for both files; a detection's score is read later.
    if (f.size() != 7 && f.size() != 8)
      return "expected " + columnsText(kind) + ", found " + std::to_string(f.size());
    std::int64_t second = 0, action = 0;
    if (!parsePyInt(f[1], second)) return notNumber("second", f[1], "a whole number");
    AvaBox box;
    double* coords[4] = {&box.x1, &box.y1, &box.x2, &box.y2};
    static const char* const kNames[4] = {"x1", "y1", "x2", "y2"};
    for (int c = 0; c < 4; ++c)
      if (!parsePyFloat(f[2 + c], *coords[c])) return notNumber(kNames[c], f[2 + c], "a number");
    if (!parsePyInt(f[6], action)) return notNumber("action", f[6], "a whole number");
    if (!classes.empty() &&
        (action < std::numeric_limits<int>::min() || action > std::numeric_limits<int>::max() ||
         classes.count(static_cast<int>(action)) == 0))
      return "";  // not a class of the label map: skipped, as read_csv's class_whitelist does
    if (action < std::numeric_limits<int>::min() || action > std::numeric_limits<int>::max())
      return "action " + f[6] + " is out of range";
    box.action = static_cast<int>(action);
    if (kind == Kind::Detections) {
      if (f.size() != 8)
        return "expected " + columnsText(kind) + ", found 7 (no score) on a row of class " + f[6];
      if (!parsePyFloat(f[7], box.score)) return notNumber("score", f[7], "a number");
    }
    std::string key = avaImageKey(f[0], second);
    const auto [it, added] = index.emplace(key, images.size());
    if (added) images.push_back(AvaImage{std::move(key), {}});
    auto& boxes = images[it->second].boxes;
    if (boxes.size() >= kAvaMaxBoxesPerKeyframe)
      return "keyframe " + images[it->second].key + " has more than " +
             std::to_string(kAvaMaxBoxesPerKeyframe) + " boxes (AVA's have a few thousand at most)";
    boxes.push_back(box);
    return "";
  });
  if (!ok) return std::nullopt;
  return images;
}

// Python's "%.<digits>f" (locale-free, "nan" for any NaN).
void appendFixed(std::string& out, double v, int digits) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  char buf[512];  // 1e308 in fixed notation is 309 digits
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, digits);
  out.append(buf, r.ptr);
}

}  // namespace

std::string avaImageKey(std::string_view video, std::int64_t second) {
  char digits[32];
  std::snprintf(digits, sizeof digits, ",%04" PRId64, second);
  return std::string(video) + digits;
}

std::optional<std::vector<AvaImage>> readAvaGroundTruth(const std::string& path,
                                                        const std::set<int>& classes,
                                                        std::string* error) {
  return readBoxes(path, Kind::GroundTruth, classes, error);
}

std::optional<std::vector<AvaImage>> readAvaDetections(const std::string& path,
                                                       const std::set<int>& classes,
                                                       std::string* error) {
  return readBoxes(path, Kind::Detections, classes, error);
}

std::optional<std::set<std::string>> readAvaExclusions(const std::string& path,
                                                       std::string* error) {
  std::set<std::string> keys;
  const bool ok = forEachRow(path, error, [&](const std::vector<std::string>& f) -> std::string {
    if (f.size() != 2)
      return "expected " + columnsText(Kind::Exclusions) + ", found " + std::to_string(f.size());
    std::int64_t second = 0;
    if (!parsePyInt(f[1], second)) return notNumber("second", f[1], "a whole number");
    keys.insert(avaImageKey(f[0], second));
    return "";
  });
  if (!ok) return std::nullopt;
  return keys;
}

std::string formatAvaCsv(const std::vector<AvaImage>& images) {
  std::string out;
  for (const AvaImage& image : images) {
    for (const AvaBox& b : image.boxes) {
      out += image.key;
      for (double v : {b.x1, b.y1, b.x2, b.y2}) {
        out += ',';
        appendFixed(out, v, 3);
      }
      out += ',' + std::to_string(b.action) + ',';
      appendFixed(out, b.score, 4);
      out += '\n';
    }
  }
  return out;
}

bool writeAvaCsv(const std::string& path, const std::vector<AvaImage>& images, std::string* error) {
  return util::writeFileAtomically(path, formatAvaCsv(images), error);
}

}  // namespace amp::metrics
