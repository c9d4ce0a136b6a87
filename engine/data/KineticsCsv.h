#pragma once
// PySlowFast's Kinetics dataset lists: {PATH_TO_DATA_DIR}/{train,val,test}.csv, one
// "path<SEPARATOR>label" per line, paths joined to PATH_PREFIX.
#include <cstdint>
#include <string>
#include <vector>

namespace amp::data {

struct VideoEntry {
  std::string path;  ///< PATH_PREFIX joined with the listed path
  int label = 0;
  int line = 0;      ///< 1-based line in the CSV, for messages
};

struct KineticsList {
  std::string csvPath;
  std::vector<VideoEntry> videos;
  int maxLabel = -1;
};

/// Reads `{dataDir}/{split}.csv`. Returns false with `error` as "file:line: what is wrong" for
/// the first malformed line (and says how many more there are). Blank lines are skipped;
/// `skipRows` header rows are ignored (DATA.SKIP_ROWS).
bool readKineticsList(const std::string& dataDir, const std::string& split, const std::string& separator,
                      const std::string& pathPrefix, int skipRows, KineticsList& out, std::string* error);

}  // namespace amp::data
