#include "data/AvaBoxes.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "util/BoundedInput.h"

namespace amp::data {
namespace {

// A row is eight short fields; 64 KiB is far beyond any real one.
constexpr std::size_t kMaxLineBytes = std::size_t(64) << 10;

// The ASCII whitespace Python's str.strip(), int() and float() remove.
bool isPySpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

std::string_view strip(std::string_view s) {
  while (!s.empty() && isPySpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isPySpace(s.back())) s.remove_suffix(1);
  return s;
}

// Python's int(text) for plain decimal text: surrounding whitespace, an optional sign.
bool parseInt(std::string_view text, int& out) {
  text = strip(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Python's float(text) for decimal text (with inf and nan): from_chars is locale-free, unlike
// strtod, so a host that sets LC_NUMERIC to "de_DE" still reads "0.5".
bool parseFloat(std::string_view text, double& out) {
  text = strip(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Splits at every ',' as str.split(",") does (empty fields kept).
std::vector<std::string_view> splitCommas(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t from = 0;;) {
    const std::size_t comma = line.find(',', from);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(from));
      return fields;
    }
    fields.push_back(line.substr(from, comma - from));
    from = comma + 1;
  }
}

}  // namespace

const AvaVideoBoxes* AvaBoxTable::find(const std::string& name) const {
  for (const AvaVideoBoxes& v : videos)
    if (v.name == name) return &v;
  return nullptr;
}

bool readAvaBoxes(const std::vector<AvaBoxFile>& files, const AvaBoxOptions& options,
                  AvaBoxTable& out, std::string* error) {
  out = AvaBoxTable{};
  std::unordered_map<std::string, std::size_t> videoIndex;
  // Which box of its second each (video, second, coordinates) is, so a person's later rows
  // find it in constant time.
  std::unordered_map<std::string, std::size_t> boxIndex;
  std::string firstProblem;
  std::int64_t problems = 0;
  const int sampleRate = options.seconds_sample_rate > 0 ? options.seconds_sample_rate : 1;

  for (const AvaBoxFile& file : files) {
    util::LineReader in(kMaxLineBytes);
    std::string cannot;
    if (!in.open(file.path, &cannot)) {
      if (error) *error = cannot;
      return false;
    }
    std::string line;
    for (util::LineReader::Result r; (r = in.next(line)) != util::LineReader::Result::End;) {
      const std::string where = file.path + ":" + std::to_string(in.lineNumber()) + ": ";
      auto bad = [&](const std::string& why) {
        if (problems++ == 0) firstProblem = where + why;
      };
      if (r == util::LineReader::Result::TooLong) {
        bad("too long (more than " + std::to_string(kMaxLineBytes) +
            " bytes; a row is 'video_id,second,x1,y1,x2,y2,action_id[,score]'): is this an AVA "
            "box list?");
        continue;
      }
      const std::string_view stripped = strip(line);
      // PySlowFast fails on a blank line (its fields are missing); it says nothing about boxes,
      // so it is skipped rather than refused.
      if (stripped.empty()) continue;
      const std::vector<std::string_view> row = splitCommas(stripped);
      const std::size_t need = file.ground_truth ? 7 : 8;
      if (row.size() < need) {
        bad("got " + std::to_string(row.size()) + " comma-separated fields, expected " +
            (file.ground_truth ? std::string("7: 'video_id,second,x1,y1,x2,y2,action_id'")
                               : std::string("8 in a predicted-box list: "
                                             "'video_id,second,x1,y1,x2,y2,action_id,score'")) +
            ", got '" + util::excerpt(stripped) + "'");
        continue;
      }
      if (!file.ground_truth) {
        double score = 0;
        if (!parseFloat(row[7], score)) {
          bad("detection score '" + util::excerpt(row[7]) + "' (column 8) is not a number");
          continue;
        }
        // NaN is not below the threshold, so PySlowFast keeps it; so does this.
        if (score < options.detection_score_thresh) {
          ++out.below_score_thresh;
          continue;
        }
      }
      int second = 0;
      if (!parseInt(row[1], second)) {
        bad("second '" + util::excerpt(row[1]) + "' (column 2) is not an integer");
        continue;
      }
      // Python's % is a floor modulo: -3 % 4 is 1, so compare the non-negative remainder.
      if (((second % sampleRate) + sampleRate) % sampleRate != 0) continue;
      AvaBox box;
      bool coordinatesOk = true;
      for (int i = 0; i < 4 && coordinatesOk; ++i) {
        const std::string_view field = row[static_cast<std::size_t>(2 + i)];
        if (!parseFloat(field, box.box[static_cast<std::size_t>(i)]) ||
            !std::isfinite(box.box[static_cast<std::size_t>(i)])) {
          bad("box coordinate '" + util::excerpt(field) + "' (column " + std::to_string(3 + i) +
              ") is not a finite number");
          coordinatesOk = false;
        }
      }
      if (!coordinatesOk) continue;
      int label = -1;
      if (!row[6].empty()) {
        if (!parseInt(row[6], label)) {
          bad("action id '" + util::excerpt(row[6]) + "' (column 7) is not an integer");
          continue;
        }
        // PySlowFast asserts 1 <= id <= 80 when it builds the clip's targets; refusing it here
        // names the row instead of stopping a run mid-epoch.
        if (label != -1 &&
            (label < 1 || (options.num_classes > 0 && label > options.num_classes))) {
          bad("action id " + std::to_string(label) + " (column 7) is outside 1 .. " +
              (options.num_classes > 0
                   ? std::to_string(options.num_classes) + " (MODEL.NUM_CLASSES)"
                   : std::string("the classes")) +
              "; AVA's action ids start at 1, and an empty field means no action");
          continue;
        }
      }

      const std::string videoName(row[0]);
      const auto [videoIt, added] = videoIndex.emplace(videoName, out.videos.size());
      if (added) out.videos.push_back(AvaVideoBoxes{videoName, {}});
      // PySlowFast keeps a dictionary of the valid seconds only and fails with a KeyError on
      // any other; here such a row is dropped and counted (its video still appears above).
      if (second < kAvaFirstSecond || second > kAvaLastSecond) {
        ++out.outside_valid_seconds;
        continue;
      }
      box.key = std::string(row[2]) + "," + std::string(row[3]) + "," + std::string(row[4]) + "," +
                std::string(row[5]);
      std::vector<AvaBox>& boxes = out.videos[videoIt->second].seconds[second];
      const std::string slotKey =
          std::to_string(videoIt->second) + "|" + std::to_string(second) + "|" + box.key;
      auto [slot, fresh] = boxIndex.emplace(slotKey, boxes.size());
      if (fresh) {
        boxes.push_back(std::move(box));
        ++out.unique_boxes;
      }
      boxes[slot->second].labels.push_back(label);
      if (label != -1) ++out.annotations;
    }
    if (!in.error().empty()) {
      if (error) *error = in.error();
      return false;
    }
  }
  if (problems) {
    if (error)
      *error =
          firstProblem +
          (problems > 1 ? " (and " + std::to_string(problems - 1) + " more malformed rows)" : "");
    return false;
  }
  return true;
}

}  // namespace amp::data
