#include "util/AtomicFile.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "util/FaultInjection.h"

namespace amp::util {

bool writeFileAtomically(const std::string& path, const std::string& contents, std::string* error,
                         const char* faultSite) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot write '" + path + "': " + std::strerror(errno));
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
    return fail("cannot write '" + path + "': " + std::strerror(writeErrno));
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail("cannot write '" + path + "': " + why);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return fail("cannot replace '" + path + "': " + why);
  }
  // Make the rename itself durable.
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

bool readFile(const std::string& path, std::string& contents, std::string* error,
              std::size_t maxBytes) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "cannot read '" + path + "': " + why;
    return false;
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer that never comes.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(
        "not a regular file (a FIFO, device or folder is never read whole); point it at a file");
  }
  auto tooBig = [&] {
    ::close(fd);
    return fail("larger than the " + std::to_string(maxBytes) +
                " bytes this file may have; is it the right file?");
  };
  if (static_cast<std::uint64_t>(st.st_size) > maxBytes) return tooBig();
  std::string out;
  try {  // a file of gigabytes (a checkpoint, whose callers pass no cap) may not fit in memory
    out.reserve(static_cast<std::size_t>(st.st_size));
  } catch (const std::exception&) {
    ::close(fd);
    return fail("not enough memory for its " + std::to_string(st.st_size) + " bytes");
  }
  // The file may grow while it is read (or say size 0, as /proc does): read to its end, never
  // past the cap.
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return fail(why);
    }
    if (n == 0) break;
    if (static_cast<std::size_t>(n) > maxBytes - out.size()) return tooBig();
    try {
      out.append(buf, static_cast<std::size_t>(n));
    } catch (const std::exception&) {  // it grew past what fits while it was read
      ::close(fd);
      return fail("not enough memory to read it whole");
    }
  }
  ::close(fd);
  contents = std::move(out);
  return true;
}

}  // namespace amp::util
