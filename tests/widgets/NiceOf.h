#pragma once
// The nice value of a running process (field 19 of /proc/<pid>/stat), for tests of panels that
// run ampstudio-cli at lower priority beside a training run.
#include <sys/resource.h>
#include <QtGlobal>

#include <algorithm>

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

/// The nice value a process or thread started `by` steps nicer than this test gets (19 at most):
/// the test may itself run niced (nice ctest).
inline int nicerThanThisTest(int by) {
  return std::min(19, ::getpriority(PRIO_PROCESS, 0) + by);
}

}  // namespace amp::testing
