#include "data/KineticsCsv.h"

#include <filesystem>
#include <fstream>
#include <vector>

namespace fs = std::filesystem;

namespace amp::data {

bool readKineticsList(const std::string& dataDir, const std::string& split, const std::string& separator,
                      const std::string& pathPrefix, int skipRows, KineticsList& out, std::string* error) {
  out = KineticsList{};
  out.csvPath = (fs::path(dataDir) / (split + ".csv")).string();
  std::ifstream in(out.csvPath);
  if (!in) {
    if (error)
      *error = out.csvPath + ": cannot read the " + split + " list" +
               (fs::exists(dataDir) ? std::string(" (the folder has no ") + split + ".csv)"
                                    : " (DATA.PATH_TO_DATA_DIR '" + dataDir + "' does not exist)");
    return false;
  }
  std::string line, firstProblem;
  int lineNo = 0, problems = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (lineNo <= skipRows) continue;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    auto bad = [&](const std::string& why) {
      if (problems++ == 0) firstProblem = out.csvPath + ":" + std::to_string(lineNo) + ": " + why;
    };
    std::vector<std::string> fields;
    for (size_t from = 0;;) {
      const size_t at = separator.empty() ? std::string::npos : line.find(separator, from);
      fields.push_back(line.substr(from, at == std::string::npos ? std::string::npos : at - from));
      if (at == std::string::npos) break;
      from = at + separator.size();
    }
    if (fields.size() > 3 || fields[0].empty()) {
      const std::string sepName = separator == " " ? std::string("<space>") : separator;
      bad("expected 'path" + sepName + "label', 'path" + sepName + "fn" + sepName + "label' or 'path', got '" + line + "'");
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
      bad("label '" + labelText + "' is not a class index (an integer >= 0)");
      continue;
    }
    VideoEntry e;
    e.path = pathPrefix.empty() ? path : (fs::path(pathPrefix) / path).string();
    e.label = label;
    e.line = lineNo;
    out.maxLabel = std::max(out.maxLabel, label);
    out.videos.push_back(std::move(e));
  }
  if (problems) {
    if (error) *error = firstProblem + (problems > 1 ? " (and " + std::to_string(problems - 1) + " more malformed lines)" : "");
    return false;
  }
  if (out.videos.empty()) {
    if (error) *error = out.csvPath + ": lists no videos";
    return false;
  }
  return true;
}

}  // namespace amp::data
