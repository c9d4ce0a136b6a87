#include "runlog/MetricsWriter.h"

#include <signal.h>

#include "util/FaultInjection.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace amp::runlog {

MetricsWriter::~MetricsWriter() {
  close();
}

std::string MetricsWriter::open(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) ::close(fd_);
  path_ = path;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) return "cannot open metrics log '" + path + "': " + std::strerror(errno);
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && st.st_size > 0) {
    char last = '\n';
    if (::pread(fd_, &last, 1, st.st_size - 1) == 1 && last != '\n') return writeRaw("\n");
  }
  return "";
}

std::string MetricsWriter::write(const MetricEvent& event) {
  std::string line = toJsonLine(event);
  line += '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto fault = util::injectedFault("metrics");
      fault != util::FaultAction::None) {  // drills: a torn line
    writeRaw(line.substr(0, line.size() / 2));
    if (fault == util::FaultAction::Kill) ::kill(::getpid(), SIGKILL);
    return "cannot append to '" + path_ + "': " + std::strerror(ENOSPC);
  }
  return writeRaw(line);
}

std::string MetricsWriter::writeRaw(const std::string& bytes) {
  if (fd_ < 0) return "metrics log is not open";
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "cannot append to '" + path_ + "': " + std::strerror(errno);
    done += static_cast<size_t>(n);
  }
  return "";
}

void MetricsWriter::sync() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) ::fdatasync(fd_);
}

void MetricsWriter::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fd_ >= 0) {
    ::fdatasync(fd_);
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace amp::runlog
