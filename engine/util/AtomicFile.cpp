#include "util/AtomicFile.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/FaultInjection.h"

namespace amp::util {

std::string writeFileAtomically(const std::string& path, const std::string& contents, const char* faultSite) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot write '" + path + "': " + std::strerror(errno);
  // Fault drills: a crash or a full disk half-way through the temporary file.
  const FaultAction fault = faultSite ? injectedFault(faultSite) : FaultAction::None;
  const size_t end = fault == FaultAction::None ? contents.size() : contents.size() / 2;
  size_t done = 0;
  int writeErrno = 0;
  while (done < end) {
    const ssize_t n = ::write(fd, contents.data() + done, end - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      writeErrno = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (fault == FaultAction::Kill) ::kill(::getpid(), SIGKILL);
  if (fault == FaultAction::NoSpace && writeErrno == 0) writeErrno = ENOSPC;
  if (writeErrno != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return "cannot write '" + path + "': " + std::strerror(writeErrno);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return "cannot write '" + path + "': " + why;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return "cannot replace '" + path + "': " + why;
  }
  // Make the rename itself durable.
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return "";
}

bool readFile(const std::string& path, std::string& contents, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  contents = ss.str();
  return true;
}

}  // namespace amp::util
