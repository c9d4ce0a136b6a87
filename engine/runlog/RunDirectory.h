#pragma once
// A run directory (OUTPUT_DIR): the contract between engine, CLI, GUI and other machines.
// Layout and formats: docs/run-format.md.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "runlog/RunMetadata.h"

namespace amp::runlog {

class RunDirectory {
 public:
  static constexpr const char* kMetadataFile = "run.json";
  static constexpr const char* kConfigFile = "config.yaml";
  static constexpr const char* kMetricsFile = "metrics.jsonl";
  static constexpr const char* kLogFile = "log.txt";
  static constexpr const char* kCheckpointsDir = "checkpoints";
  /// The largest run.json read: ours are about 1 KB (a few extra fields from other versions do
  /// not change that); a bigger one is not a run.json, and is refused by name.
  static constexpr std::size_t kMaxMetadataBytes = std::size_t(1) << 20;

  explicit RunDirectory(std::string dir) : dir_(std::move(dir)) {}

  /// Creates the folder and checkpoints/ if missing. False with `error` naming the folder.
  [[nodiscard]] bool ensureExists(std::string* error) const;
  /// True when the folder holds a run.json, or is a PySlowFast OUTPUT_DIR (isPySlowFast).
  bool exists() const;
  /// A PySlowFast OUTPUT_DIR (json_stats.log, or stdout.log with json_stats lines; no run.json):
  /// opened read-only, metricsPath() is its stats file and readMetadata() what its files tell.
  bool isPySlowFast() const;
  /// A folder of TensorBoard event files (runlog/TensorBoardRun; no run.json, not PySlowFast's
  /// OUTPUT_DIR): opened read-only, metricsPath() is the folder itself (MetricsReader reads its
  /// event files) and readMetadata() what the files' names and times tell.
  bool isTensorBoard() const;

  const std::string& dir() const { return dir_; }
  std::string metadataPath() const;
  std::string configPath() const;
  std::string metricsPath() const;
  std::string logPath() const;
  std::string checkpointsDir() const;

  /// Reads run.json; nullopt with `error` naming the file when missing or malformed.
  [[nodiscard]] std::optional<RunMetadata> readMetadata(std::string* error = nullptr) const;
  /// Rewrites run.json atomically. False with `error` naming the file. A read-modify-write under
  /// a short lock on the folder: the note and tags on disk are kept (a person may have set them
  /// while the run was written), as are fields `m` does not know that appeared since it was read.
  [[nodiscard]] bool writeMetadata(const RunMetadata& m, std::string* error) const;
  /// Sets the run's note and tags in run.json, keeping every other field as the disk has it (the
  /// trainer may be rewriting it: both take the same lock). False with `error` for a run without
  /// a run.json of ours (an imported PySlowFast or TensorBoard run is read-only).
  [[nodiscard]] bool setNoteAndTags(const std::string& note, const std::vector<std::string>& tags,
                                    std::string* error) const;
  /// Appends a line to log.txt (prefixed with the local time). False with `error` naming it.
  [[nodiscard]] bool appendLog(const std::string& line, std::string* error) const;

  /// A run whose run.json says running but whose writer is gone (same host, process dead).
  static bool isAbandoned(const RunMetadata& m);
  /// Run directories at `root` itself and one level below it, sorted by path.
  static std::vector<std::string> findRuns(const std::string& root);

 private:
  std::string dir_;
};

/// This machine's host name.
std::string hostName();
/// Seconds since 1970 with sub-second precision.
double unixTimeNow();

}  // namespace amp::runlog
