#pragma once
// Append-only JSONL writer for a run's metrics: one event per line, each written with a single
// write(2) as soon as it arrives, so a killed writer loses at most its last, torn line.
#include <mutex>
#include <string>

#include "runlog/MetricEvent.h"

namespace amp::runlog {

class MetricsWriter {
 public:
  MetricsWriter() = default;
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  /// Opens (creating or appending to) `path`. If an earlier writer died mid-line, the torn line
  /// is ended first so it stays isolated. Returns "" or the reason, naming the path.
  std::string open(const std::string& path);
  bool isOpen() const { return fd_ >= 0; }
  /// Appends one event; thread-safe. Returns "" or the reason (e.g. disk full).
  std::string write(const MetricEvent& event);
  /// Forces written lines to disk (fdatasync); call at checkpoints and at the end.
  void sync();
  void close();
  const std::string& path() const { return path_; }

 private:
  std::string writeRaw(const std::string& bytes);
  std::mutex mutex_;
  int fd_ = -1;
  std::string path_;
};

}  // namespace amp::runlog
