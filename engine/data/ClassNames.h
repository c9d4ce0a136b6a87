#pragma once
// Class names for class indices: PySlowFast's demo label file (DEMO.LABEL_FILE_PATH), either its
// JSON ({"name": index, ...}) or one name per line (the line number is the index, as the demo
// dataset's classes.txt).
#include <map>
#include <string>

namespace amp::data {

/// Reads `path` into `names` (index -> name). False with `error` naming the file and the problem.
bool readClassNames(const std::string& path, std::map<int, std::string>& names, std::string& error);

}  // namespace amp::data
