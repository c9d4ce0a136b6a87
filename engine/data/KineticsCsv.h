#pragma once
// PySlowFast's Kinetics dataset lists: {PATH_TO_DATA_DIR}/{train,val,test}.csv, one
// "path<SEPARATOR>label" per line, paths joined to PATH_PREFIX.
#include <string>

#include "data/Dataset.h"

namespace amp::data {

/// Reads `{dataDir}/{split}.csv` as PySlowFast's Kinetics dataset does: each line split at every
/// separator; `path label`, `path fn label` (the path is the first field) or `path` alone (label
/// 0). Returns false with `error` as "file:line: what is wrong" for the first malformed line (and
/// says how many more there are). Blank lines are skipped (PySlowFast would read them as an empty
/// path); `skipRows` leading rows are ignored (PySlowFast's DATA.SKIP_ROWS applies only to its
/// chunked loading, so the engine passes 0).
[[nodiscard]] bool readKineticsList(const std::string& dataDir, const std::string& split,
                                    const std::string& separator, const std::string& pathPrefix,
                                    int skipRows, SampleList& out, std::string* error);

}  // namespace amp::data
