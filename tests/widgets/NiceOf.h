#pragma once
// The nice value of a running process (field 19 of /proc/<pid>/stat), for tests of panels that
// run ampstudio-cli at lower priority beside a training run.
#include <QtGlobal>

#include <fstream>
#include <sstream>
#include <string>

namespace amp::testing {

inline int niceOf(qint64 pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return -100;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 19; ++i) rest >> field;
  return std::stoi(field);
}

}  // namespace amp::testing
