#include "util/AppendOnlyFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace amp::util {

AppendOnlyFile::~AppendOnlyFile() {
  close();
}

bool AppendOnlyFile::open(const std::string& path, bool createNew, std::string* error) {
  close();
  path_ = path;
  const int flags = O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | (createNew ? O_EXCL : 0);
  fd_ = ::open(path.c_str(), flags, 0644);
  if (fd_ < 0) {
    if (error) *error = std::strerror(errno);
    return false;
  }
  return true;
}

bool AppendOnlyFile::endsInsideALine() const {
  struct stat st {};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0 || st.st_size == 0) return false;
  char last = '\n';
  return ::pread(fd_, &last, 1, st.st_size - 1) == 1 && last != '\n';
}

bool AppendOnlyFile::append(const std::string& bytes, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "cannot append to '" + path_ + "': " + why;
    return false;
  };
  if (fd_ < 0) return fail("it is not open");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(n < 0 ? std::strerror(errno) : "nothing was written");
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void AppendOnlyFile::sync() {
  if (fd_ >= 0) ::fdatasync(fd_);
}

void AppendOnlyFile::close() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
}

}  // namespace amp::util
