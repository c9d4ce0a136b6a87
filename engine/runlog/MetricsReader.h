#pragma once
// Reads a run's metrics log, once or following it while another process appends to it.
#include <cstdint>
#include <string>
#include <vector>

#include "runlog/MetricEvent.h"
#include "runlog/PySlowFastLog.h"

namespace amp::runlog {

/// Incremental reader: each poll() returns the complete lines appended since the last poll.
/// A path named json_stats.log or stdout.log is read as PySlowFast's log (runlog/PySlowFastLog);
/// a folder of TensorBoard event files is read whole at the first poll (runlog/TensorBoardRun).
/// A line without its newline yet is kept back until it is completed (the writer may be
/// mid-write); lines that are not JSON are skipped and counted. A line longer than kMaxLineBytes
/// is skipped to its newline and named in problems(): the reader never holds more than that of
/// a line, reads in 64 KiB chunks, and does not read the holes of a sparse file.
class MetricsReader {
 public:
  /// Our lines are under 1 KB (a per_class line of 157 Charades classes about 10 KB) and
  /// PySlowFast's json_stats lines a few KB; a longer line is damage or not a metrics log at all.
  static constexpr std::size_t kMaxLineBytes = std::size_t(1) << 20;

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
  /// Applies the resume rule to events already read (in file order); linear in their count.
  static void applyResumes(std::vector<MetricEvent>& events);

 private:
  std::vector<MetricEvent> readNew(bool final);
  void consume(const char* data, std::size_t size, std::vector<MetricEvent>& out);
  void handleLine(const std::string& line, std::vector<MetricEvent>& out);
  void problem(std::uint64_t line, const std::string& why);
  std::string path_;
  std::uint64_t offset_ = 0;
  std::uint64_t lineNo_ = 0;
  std::uint64_t inode_ = 0;
  std::string pending_;       ///< the line being read, at most kMaxLineBytes
  bool skipping_ = false;     ///< inside a line longer than kMaxLineBytes: dropped to its newline
  bool refusedType_ = false;  ///< said once that the path is not a regular file
  std::size_t skipped_ = 0;
  std::vector<std::string> problems_;
  bool restarted_ = false;
  bool pyslowfast_ = false;  ///< json_stats.log / stdout.log of a PySlowFast run
  PySlowFastLogState pyslowfastState_;
  bool tensorboard_ = false;      ///< a folder of event files (RunDirectory::isTensorBoard)
  bool tensorboardRead_ = false;  ///< read once: later polls find nothing new
};

}  // namespace amp::runlog
