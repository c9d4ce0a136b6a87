#include "runlog/MetricsReader.h"

#include "runlog/PySlowFastLog.h"
#include "runlog/TensorBoardRun.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace amp::runlog {

MetricsReader::MetricsReader(std::string path)
    : path_(std::move(path)),
      pyslowfast_(isPySlowFastStatsPath(path_)),
      tensorboard_(TensorBoardRun::isRunFolder(path_)) {}

std::vector<MetricEvent> MetricsReader::poll() {
  return readNew(false);
}
std::vector<MetricEvent> MetricsReader::pollFinal() {
  return readNew(true);
}

std::vector<MetricEvent> MetricsReader::readNew(bool final) {
  std::vector<MetricEvent> out;
  if (tensorboard_) {
    // A folder of event files: read whole, once (an imported run is not followed).
    if (tensorboardRead_) return out;
    tensorboardRead_ = true;
    TensorBoardRunRead run = TensorBoardRun::read(path_);
    for (auto& p : run.problems)
      if (problems_.size() < 20) problems_.push_back(std::move(p));
    return std::move(run.events);
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer that never comes.
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return out;  // not there yet
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    if (!refusedType_ && problems_.size() < 20)
      problems_.push_back(path_ +
                          ": not a regular file (a FIFO, device or folder), not read; point it at "
                          "the run's metrics log");
    refusedType_ = true;
    return out;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const auto inode = static_cast<std::uint64_t>(st.st_ino);
  if ((inode_ != 0 && inode != inode_) || size < offset_) {
    offset_ = 0;  // replaced or truncated: start over
    lineNo_ = 0;
    pending_.clear();
    skipping_ = false;
    pyslowfastState_ = {};
    restarted_ = true;
  }
  inode_ = inode;
  // In chunks, up to the size seen now: memory stays a chunk and one line whatever the file's size.
  char buf[65536];
  while (offset_ < size) {
    if (skipping_) {
      // A hole of a sparse file holds no newline: jump over it rather than read its zeros.
      const off_t data = ::lseek(fd, static_cast<off_t>(offset_), SEEK_DATA);
      if (data < 0 && errno == ENXIO)
        offset_ = size;
      else if (data > 0 && static_cast<std::uint64_t>(data) > offset_)
        offset_ = std::min(size, static_cast<std::uint64_t>(data));
      if (offset_ >= size) break;
    }
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, size - offset_));
    const ssize_t n = ::pread(fd, buf, want, static_cast<off_t>(offset_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    offset_ += static_cast<std::uint64_t>(n);
    consume(buf, static_cast<std::size_t>(n), out);
  }
  ::close(fd);
  if (final && (!pending_.empty() || skipping_)) {
    ++lineNo_;
    if (!pyslowfast_ && !skipping_) {  // an over-long line was named when it was found
      ++skipped_;
      problem(lineNo_, "last line is incomplete (the writer stopped mid-line), skipped");
    }
    pending_.clear();
    skipping_ = false;
  }
  return out;
}

void MetricsReader::consume(const char* data, std::size_t size, std::vector<MetricEvent>& out) {
  std::size_t at = 0;
  while (at < size) {
    const auto* nl = static_cast<const char*>(std::memchr(data + at, '\n', size - at));
    const std::size_t take = nl ? static_cast<std::size_t>(nl - (data + at)) : size - at;
    if (!skipping_ && pending_.size() + take > kMaxLineBytes) {
      skipping_ = true;
      std::string().swap(pending_);  // gives the memory back
      ++skipped_;
      problem(
          lineNo_ + 1,
          "a line longer than " + std::to_string(kMaxLineBytes) +
              " bytes (metrics lines are under a few KB), skipped: is this the run's metrics log?");
    }
    if (!skipping_) pending_.append(data + at, take);
    at += take;
    if (!nl) break;
    ++at;
    ++lineNo_;
    if (!skipping_) handleLine(pending_, out);
    pending_.clear();
    skipping_ = false;
  }
}

void MetricsReader::handleLine(const std::string& line, std::vector<MetricEvent>& out) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  // PySlowFast's log: the json_stats lines are the records, the rest is its text.
  if (pyslowfast_) {
    if (auto e = parsePySlowFastStats(line, pyslowfastState_)) out.push_back(std::move(*e));
  } else if (auto e = parseJsonLine(line)) {
    out.push_back(std::move(*e));
  } else {
    ++skipped_;
    problem(lineNo_, "not a JSON object (torn or damaged line), skipped");
  }
}

void MetricsReader::problem(std::uint64_t line, const std::string& why) {
  if (problems_.size() < 20) problems_.push_back(path_ + ":" + std::to_string(line) + ": " + why);
}

void MetricsReader::applyResumes(std::vector<MetricEvent>& events) {
  // A line is lost work when a later "resumed" event has a smaller step. Walking backwards, the
  // smallest resume step seen so far decides, so this is linear (erasing at each resume was
  // quadratic in the count of resumes). Events of kind "event" are kept.
  std::int64_t minResume = std::numeric_limits<std::int64_t>::max();
  std::vector<bool> lost(events.size(), false);
  for (std::size_t i = events.size(); i-- > 0;) {
    const MetricEvent& e = events[i];
    if (e.kind == kind::kEvent) {
      if (e.name == "resumed") minResume = std::min(minResume, e.step);
    } else {
      lost[i] = e.step > minResume;
    }
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (!lost[i]) {
      if (kept != i) events[kept] = std::move(events[i]);
      ++kept;
    }
  events.resize(kept);
}

std::vector<MetricEvent> MetricsReader::readAll(const std::string& path, ReadStats* stats) {
  MetricsReader r(path);
  auto events = r.pollFinal();
  applyResumes(events);
  if (stats) *stats = ReadStats{r.skippedLines(), r.problems()};
  return events;
}

}  // namespace amp::runlog
