#pragma once
// Reads a run's metrics log, once or following it while another process appends to it.
#include <cstdint>
#include <string>
#include <vector>

#include "runlog/MetricEvent.h"
#include "runlog/PySlowFastLog.h"

namespace amp::runlog {

/// Incremental reader: each poll() returns the complete lines appended since the last poll.
/// A path named json_stats.log or stdout.log is read as PySlowFast's log (runlog/PySlowFastLog).
/// A line without its newline yet is kept back until it is completed (the writer may be
/// mid-write); lines that are not JSON are skipped and counted.
class MetricsReader {
 public:
  explicit MetricsReader(std::string path);

  /// New complete events since the last call (empty when none or the file does not exist yet).
  std::vector<MetricEvent> poll();
  /// Like poll(), then treats a trailing partial line as torn (the writer is gone) and skips it.
  std::vector<MetricEvent> pollFinal();

  std::size_t skippedLines() const { return skipped_; }
  /// "path:line: reason" for each skipped line (at most the first 20).
  const std::vector<std::string>& problems() const { return problems_; }
  /// True once the file shrank or was replaced; reading restarted from its start.
  bool restarted() const { return restarted_; }
  const std::string& path() const { return path_; }

  /// Every event of a finished or abandoned log, with the resume rule applied: a "resumed"
  /// event at step S drops the earlier events after S (work lost when the run was killed).
  struct ReadStats {
    std::size_t skippedLines = 0;
    std::vector<std::string> problems;
  };
  static std::vector<MetricEvent> readAll(const std::string& path, ReadStats* stats = nullptr);
  /// Applies the resume rule to events already read (in file order).
  static void applyResumes(std::vector<MetricEvent>& events);

 private:
  std::vector<MetricEvent> readNew(bool final);
  std::string path_;
  std::uint64_t offset_ = 0;
  std::uint64_t lineNo_ = 0;
  std::uint64_t inode_ = 0;
  std::string pending_;
  std::size_t skipped_ = 0;
  std::vector<std::string> problems_;
  bool restarted_ = false;
  bool pyslowfast_ = false;  ///< json_stats.log / stdout.log of a PySlowFast run
  PySlowFastLogState pyslowfastState_;
};

}  // namespace amp::runlog
