#pragma once
// Append-only JSONL writer for a run's metrics: one event per line, each written with a single
// write(2) as soon as it arrives, so a killed writer loses at most its last, torn line.
#include <mutex>
#include <string>

#include "runlog/MetricEvent.h"
#include "util/AppendOnlyFile.h"

namespace amp::runlog {

class MetricsWriter {
 public:
  MetricsWriter() = default;
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  /// Opens (creating or appending to) `path`. If an earlier writer died mid-line, the torn line
  /// is ended first so it stays isolated. False with `error` naming the path and the reason.
  [[nodiscard]] bool open(const std::string& path, std::string* error);
  bool isOpen() const { return file_.isOpen(); }
  /// Appends one event; thread-safe. False with `error` naming the path and the reason (e.g.
  /// disk full).
  [[nodiscard]] bool write(const MetricEvent& event, std::string* error);
  /// Forces written lines to disk (fdatasync); call at checkpoints and at the end.
  void sync();
  void close();
  const std::string& path() const { return file_.path(); }

 private:
  [[nodiscard]] bool writeRaw(const std::string& bytes, std::string* error);
  std::mutex mutex_;
  util::AppendOnlyFile file_;
};

}  // namespace amp::runlog
