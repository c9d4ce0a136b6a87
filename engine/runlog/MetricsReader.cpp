#include "runlog/MetricsReader.h"

#include "runlog/PySlowFastLog.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>

namespace amp::runlog {

MetricsReader::MetricsReader(std::string path) : path_(std::move(path)), pyslowfast_(isPySlowFastStatsPath(path_)) {}

std::vector<MetricEvent> MetricsReader::poll() { return readNew(false); }
std::vector<MetricEvent> MetricsReader::pollFinal() { return readNew(true); }

std::vector<MetricEvent> MetricsReader::readNew(bool final) {
  std::vector<MetricEvent> out;
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return out;
  const auto size = static_cast<std::uint64_t>(st.st_size);
  const auto inode = static_cast<std::uint64_t>(st.st_ino);
  if ((inode_ != 0 && inode != inode_) || size < offset_) {
    offset_ = 0;  // replaced or truncated: start over
    lineNo_ = 0;
    pending_.clear();
    pyslowfastState_ = {};
    restarted_ = true;
  }
  inode_ = inode;
  if (size > offset_) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return out;
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string chunk(size - offset_, '\0');
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<size_t>(in.gcount()));
    offset_ += chunk.size();
    pending_ += chunk;
  }
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1) {
    ++lineNo_;
    const std::string line = pending_.substr(start, nl - start);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (pyslowfast_) {  // PySlowFast's log: the json_stats lines are the records, the rest is its text
      if (auto e = parsePySlowFastStats(line, pyslowfastState_)) out.push_back(std::move(*e));
    } else if (auto e = parseJsonLine(line)) {
      out.push_back(std::move(*e));
    } else {
      ++skipped_;
      if (problems_.size() < 20)
        problems_.push_back(path_ + ":" + std::to_string(lineNo_) + ": not a JSON object (torn or damaged line), skipped");
    }
  }
  pending_.erase(0, start);
  if (final && !pending_.empty()) {
    ++lineNo_;
    if (!pyslowfast_) {
      ++skipped_;
      if (problems_.size() < 20)
        problems_.push_back(path_ + ":" + std::to_string(lineNo_) + ": last line is incomplete (the writer stopped mid-line), skipped");
    }
    pending_.clear();
  }
  return out;
}

void MetricsReader::applyResumes(std::vector<MetricEvent>& events) {
  std::vector<MetricEvent> kept;
  kept.reserve(events.size());
  for (auto& e : events) {
    if (e.kind == kind::kEvent && e.name == "resumed") {
      const std::int64_t step = e.step;
      kept.erase(std::remove_if(kept.begin(), kept.end(),
                                [step](const MetricEvent& k) { return k.kind != kind::kEvent && k.step > step; }),
                 kept.end());
    }
    kept.push_back(std::move(e));
  }
  events = std::move(kept);
}

std::vector<MetricEvent> MetricsReader::readAll(const std::string& path, ReadStats* stats) {
  MetricsReader r(path);
  auto events = r.pollFinal();
  applyResumes(events);
  if (stats) *stats = ReadStats{r.skippedLines(), r.problems()};
  return events;
}

}  // namespace amp::runlog
