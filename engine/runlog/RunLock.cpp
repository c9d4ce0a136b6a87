#include "runlog/RunLock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "runlog/RunDirectory.h"

namespace amp::runlog {
namespace {

std::string lockPath(const std::string& dir) {
  return (std::filesystem::path(dir) / RunLock::kLockFile).string();
}

// The holder's line written into the lock file: "pid 4242 on host gpu1, since 2026-12-01 08:00:00".
std::string describeSelf() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  return "pid " + std::to_string(::getpid()) + " on host " + hostName() + ", since " + stamp;
}

std::string readHolder(int fd) {
  char buf[256] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "a process that has not yet written its name" : s;
}

}  // namespace

RunLock::RunLock(RunLock&& other) noexcept : fd_(other.fd_) {
  other.fd_ = -1;
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

bool RunLock::acquire(const std::string& dir, std::string* error) {
  release();
  const std::string path = lockPath(dir);
  // O_CLOEXEC: worker processes started by this one must not inherit (and so keep) the lock.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (error)
      *error = "OUTPUT_DIR: cannot open the lock file '" + path + "': " + std::strerror(errno);
    return false;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (error) {
      if (err == EWOULDBLOCK)
        *error = "OUTPUT_DIR '" + dir + "' is being written by another trainer (" + readHolder(fd) +
                 "); stop that run first, or choose another OUTPUT_DIR";
      else
        *error = "OUTPUT_DIR: cannot lock '" + path + "': " + std::strerror(err);
    }
    ::close(fd);
    return false;
  }
  const std::string self = describeSelf() + "\n";
  // On a full disk the name may not be written: the lock is ours all the same.
  [[maybe_unused]] const bool named =
      ::ftruncate(fd, 0) == 0 &&
      ::pwrite(fd, self.data(), self.size(), 0) == static_cast<ssize_t>(self.size());
  fd_ = fd;
  return true;
}

std::optional<std::string> RunLock::probe(const std::string& dir) {
  const std::string path = lockPath(dir);
  // Read-only and never O_CREAT: a check writes nothing. flock works on a read-only descriptor.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> busy;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      busy = "OUTPUT_DIR '" + dir + "' is being written by another trainer (" + readHolder(fd) +
             "); stop that run first, or choose another OUTPUT_DIR";
  } else {
    ::flock(fd, LOCK_UN);
  }
  ::close(fd);
  return busy;
}

void RunLock::release() {
  if (fd_ < 0) return;
  // An empty file says "nobody"; a killed holder leaves its name, but the kernel frees its lock.
  [[maybe_unused]] const int rc = ::ftruncate(fd_, 0);
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace amp::runlog
