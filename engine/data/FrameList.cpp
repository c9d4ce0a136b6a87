#include "data/FrameList.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "util/BoundedInput.h"

namespace amp::data {
namespace {

// A line is five short fields: 64 KiB is far beyond any of them (PATH_MAX is 4 KiB).
constexpr std::size_t kMaxLineBytes = std::size_t(64) << 10;
constexpr std::string_view kHeader = "original_vido_id";

// The ASCII characters Python's str.split() splits at (it also splits at Unicode spaces such as
// U+00A0, which no frame list of PySlowFast's datasets holds).
bool isPySpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

// Splits `line` at whitespace runs into at most 5 fields and returns how many there are (counted
// past 5 without storing them, so a line of a million fields costs no memory).
std::size_t splitFields(std::string_view line, std::string_view (&fields)[5]) {
  std::size_t n = 0;
  for (std::size_t at = 0;;) {
    while (at < line.size() && isPySpace(line[at])) ++at;
    if (at == line.size()) return n;
    const std::size_t start = at;
    while (at < line.size() && !isPySpace(line[at])) ++at;
    if (n < 5) fields[n] = line.substr(start, at - start);
    ++n;
  }
}

// The labels field as PySlowFast reads it: '"' removed, then "" (no label) or comma-separated
// ints. Returns the problem, or "" when `labels` was filled.
std::string parseLabels(std::string_view field, std::vector<int>& labels) {
  std::string text;
  for (char c : field)
    if (c != '"') text += c;
  labels.clear();
  if (text.empty()) return "";
  for (std::size_t from = 0;;) {
    const std::size_t comma = text.find(',', from);
    const std::string item =
        text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    // int() accepts a sign; a negative class index is refused all the same.
    std::size_t digits = item.empty() || (item[0] != '+' && item[0] != '-') ? 0 : 1;
    const bool negative = !item.empty() && item[0] == '-';
    std::int64_t value = 0;
    bool ok = digits < item.size();
    for (; ok && digits < item.size(); ++digits) {
      const char c = item[digits];
      ok = c >= '0' && c <= '9' && value <= std::numeric_limits<int>::max();
      value = value * 10 + (c - '0');
    }
    if (!ok || value > std::numeric_limits<int>::max())
      return "label '" + util::excerpt(item) + "' in '" + util::excerpt(text) +
             "' is not a class index (labels are comma-separated integers >= 0, e.g. \"1,5\")";
    if (negative && value != 0) return "label " + item + " is negative; class indices start at 0";
    labels.push_back(static_cast<int>(value));
    if (comma == std::string::npos) return "";
    from = comma + 1;
  }
}

}  // namespace

std::string joinPathPrefix(const std::string& prefix, const std::string& path) {
  if (prefix.empty() || (!path.empty() && path[0] == '/')) return path;
  return prefix.back() == '/' ? prefix + path : prefix + "/" + path;
}

bool readFrameList(const std::string& file, const std::string& pathPrefix, FrameList& out,
                   std::string* error) {
  out = FrameList{};
  out.path = file;
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  // Bounded lines from a regular file only: a list is a stranger's file, and a line of a
  // gigabyte, or a list linked to /dev/zero, must be refused rather than read.
  util::LineReader in(kMaxLineBytes);
  std::string cannot;
  if (!in.open(file, &cannot)) return fail(cannot);

  std::string line;
  const auto first = in.next(line);
  if (first == util::LineReader::Result::End)
    return fail(in.error().empty() ? file + ": empty; a frame list starts with the header line '" +
                                         std::string(kHeader) + " video_id frame_id path labels'"
                                   : in.error());
  if (first == util::LineReader::Result::TooLong ||
      std::string_view(line).substr(0, kHeader.size()) != kHeader) {
    const bool bom = line.rfind("\xEF\xBB\xBF", 0) == 0;
    return fail(file + ":1: expected the header line '" + std::string(kHeader) +
                " video_id frame_id path labels' (PySlowFast's spelling), got '" +
                util::excerpt(line) + "'" +
                (bom ? " (the file starts with a UTF-8 byte-order mark, which PySlowFast reads "
                       "as part of the header: save it without one)"
                     : ""));
  }

  std::unordered_map<std::string, std::size_t> videoIndex;
  std::string firstProblem;
  std::int64_t problems = 0;  // a file of 2^31 bad lines must not overflow it
  std::vector<int> labels;
  for (util::LineReader::Result r; (r = in.next(line)) != util::LineReader::Result::End;) {
    const std::uint64_t lineNo = in.lineNumber();
    auto bad = [&](const std::string& why) {
      if (problems++ == 0) firstProblem = file + ":" + std::to_string(lineNo) + ": " + why;
    };
    if (r == util::LineReader::Result::TooLong) {
      bad("too long (more than " + std::to_string(kMaxLineBytes) +
          " bytes; a line is 'original_vido_id video_id frame_id path labels'): is this a frame "
          "list?");
      continue;
    }
    std::string_view fields[5];
    const std::size_t n = splitFields(line, fields);
    // PySlowFast asserts on a blank line (it splits into no fields); it says nothing about the
    // data, so it is skipped rather than refused.
    if (n == 0) continue;
    if (n != 5) {
      bad("got " + std::to_string(n) +
          " fields, expected 5: 'original_vido_id video_id frame_id path labels' separated by "
          "whitespace (an empty label field is written \"\"), got '" +
          util::excerpt(line) + "'");
      continue;
    }
    const std::string problem = parseLabels(fields[4], labels);
    if (!problem.empty()) {
      bad(problem);
      continue;
    }
    const std::string name(fields[0]);
    auto [it, added] = videoIndex.emplace(name, out.videos.size());
    if (added) {
      FrameVideo v;
      v.name = name;
      v.line = static_cast<int>(std::min<std::uint64_t>(lineNo, std::numeric_limits<int>::max()));
      out.videos.push_back(std::move(v));
    }
    FrameVideo& video = out.videos[it->second];
    video.frames.push_back(joinPathPrefix(pathPrefix, std::string(fields[3])));
    for (int label : labels) out.maxLabel = std::max(out.maxLabel, label);
    video.frame_labels.push_back(labels);
  }
  if (!in.error().empty()) return fail(in.error());
  if (problems)
    return fail(
        firstProblem +
        (problems > 1 ? " (and " + std::to_string(problems - 1) + " more malformed lines)" : ""));
  if (out.videos.empty()) return fail(file + ": lists no frames (only the header line)");
  return true;
}

}  // namespace amp::data
