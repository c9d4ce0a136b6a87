#include <stdlib.h>

#include <unistd.h>
#include <cstdlib>

#include <filesystem>
#include <string>

#include "FuzzTarget.h"

namespace amp::fuzz {

std::string scratchDir() {
  static const std::string dir = [] {
    // /dev/shm when there is one: the fuzz loop writes a file per input.
    std::string base = std::filesystem::is_directory("/dev/shm")
                           ? "/dev/shm"
                           : std::filesystem::temp_directory_path().string();
    std::string templ = base + "/ampstudio-fuzz-XXXXXX";
    if (!::mkdtemp(templ.data())) return base;
    static const std::string made = templ;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(made, ec);
    });
    return templ;
  }();
  return dir;
}

}  // namespace amp::fuzz
