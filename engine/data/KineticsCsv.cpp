#include "data/KineticsCsv.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <vector>

#include "util/BoundedInput.h"

namespace fs = std::filesystem;

namespace amp::data {
namespace {
// A line is a path and a label: 64 KiB is far beyond any path (PATH_MAX is 4 KiB).
constexpr std::size_t kMaxLineBytes = std::size_t(64) << 10;
}  // namespace

bool readKineticsList(const std::string& dataDir, const std::string& split,
                      const std::string& separator, const std::string& pathPrefix, int skipRows,
                      SampleList& out, std::string* error) {
  out = SampleList{};
  out.listPath = (fs::path(dataDir) / (split + ".csv")).string();
  // Bounded lines from a regular file only: a list is a stranger's file, and a line of a
  // gigabyte, or a train.csv linked to /dev/zero, must be refused rather than read.
  util::LineReader in(kMaxLineBytes);
  std::string cannot;
  if (!in.open(out.listPath, &cannot)) {
    std::error_code ec;
    if (error)
      *error = fs::exists(out.listPath, ec)
                   ? cannot
                   : out.listPath + ": cannot read the " + split + " list" +
                         (fs::exists(dataDir, ec)
                              ? std::string(" (the folder has no ") + split + ".csv)"
                              : " (DATA.PATH_TO_DATA_DIR '" + dataDir + "' does not exist)");
    return false;
  }
  std::string line, firstProblem;
  std::int64_t lineNo = 0, problems = 0;  // a file of 2^31 newlines must not overflow them
  for (util::LineReader::Result r; (r = in.next(line)) != util::LineReader::Result::End;) {
    ++lineNo;
    auto bad = [&](const std::string& why) {
      if (problems++ == 0) firstProblem = out.listPath + ":" + std::to_string(lineNo) + ": " + why;
    };
    if (lineNo <= skipRows) continue;
    if (r == util::LineReader::Result::TooLong) {
      bad("too long (more than " + std::to_string(kMaxLineBytes) +
          " bytes; a line is a path and a label): is this a " + split + " list?");
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    // At most 4 fields are split off: more than 3 is refused anyway, and a line of separators
    // must not become thousands of strings.
    std::vector<std::string> fields;
    for (size_t from = 0;;) {
      const size_t at =
          separator.empty() || fields.size() == 3 ? std::string::npos : line.find(separator, from);
      fields.push_back(line.substr(from, at == std::string::npos ? std::string::npos : at - from));
      if (at == std::string::npos) break;
      from = at + separator.size();
    }
    if (fields.size() > 3 || fields[0].empty()) {
      const std::string sepName = separator == " " ? std::string("<space>") : separator;
      bad("expected 'path" + sepName + "label', 'path" + sepName + "fn" + sepName +
          "label' or 'path', got '" + util::excerpt(line) + "'");
      continue;
    }
    const std::string path = fields[0];
    const std::string labelText = fields.size() == 1 ? "0" : fields.back();
    size_t used = 0;
    int label = -1;
    try {
      label = std::stoi(labelText, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != labelText.size() || label < 0) {
      bad("label '" + util::excerpt(labelText) + "' is not a class index (an integer >= 0)");
      continue;
    }
    Sample e;
    e.path = pathPrefix.empty() ? path : (fs::path(pathPrefix) / path).string();
    e.label = label;
    e.line = static_cast<int>(std::min<std::int64_t>(lineNo, std::numeric_limits<int>::max()));
    out.maxLabel = std::max(out.maxLabel, label);
    out.videos.push_back(std::move(e));
  }
  if (!in.error().empty()) {
    if (error) *error = in.error();
    return false;
  }
  if (problems) {
    if (error)
      *error =
          firstProblem +
          (problems > 1 ? " (and " + std::to_string(problems - 1) + " more malformed lines)" : "");
    return false;
  }
  if (out.videos.empty()) {
    if (error) *error = out.listPath + ": lists no videos";
    return false;
  }
  return true;
}

}  // namespace amp::data
