#pragma once
// A run's metrics in memory, as columns a chart or a table reads directly: one series per
// (kind, metric), the notable events, and the summary researchers quote. Fed event by event
// (live from the engine or a followed metrics.jsonl) or from a finished run directory.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runlog/MetricEvent.h"
#include "runlog/RunMetadata.h"

namespace amp::runlog {

/// One metric over a run: parallel columns, in step order.
struct Series {
  std::vector<double> step, epoch, time, value;
  std::size_t size() const { return value.size(); }
  /// Drops the points at the end with step > lastStep (points are appended in file order, so
  /// those are what an interrupted process wrote after it); costs what it removes.
  void truncateAfterStep(double lastStep);
};

/// One `per_class` line as a record keeps it: when it was evaluated and its figures.
struct PerClassEntry {
  std::int64_t step = 0;
  double epoch = 0;
  PerClassValues values;
};

/// The run's figures for the summary table; absent where the run has no such data yet.
/// A multi-label run (Charades: DATA.MULTI_LABEL) is judged by mean average precision, as
/// PySlowFast's json_stats "map", and has no top-1 figures; a single-label run has no mAP.
struct RunSummary {
  std::optional<double> bestValTop1;   ///< percent (100 - the lowest val top-1 error)
  std::optional<double> finalValTop1;  ///< percent, the last validation
  std::optional<double> bestValMap;    ///< fraction in [0, 1]: the highest finite val `map`
  std::optional<double> finalValMap;   ///< fraction, the last validation's `map`
  std::optional<double> testMap;       ///< fraction, the last multi-view test's `map`
  bool multiLabel = false;             ///< RunRecord::multiLabel()
  std::optional<double>
      finalLoss;  ///< the last epoch's mean training loss (else the mean of the last 20 steps)
  std::optional<double> peakMemoryBytes;   ///< CUDA peak allocated, else peak process RSS
  std::optional<double> itersPerSecond;    ///< steps / summed iteration time
  std::optional<double> clipsPerSecond;    ///< mean over steps
  std::optional<double> dataWaitFraction;  ///< summed data wait / summed iteration time
  std::int64_t steps = 0;
  std::int64_t skippedSteps = 0;
  double wallTimeSeconds = 0;  ///< time of the last event
};

class RunRecord {
 public:
  /// Distinct (kind, metric) series a record keeps: ours write about 40, PySlowFast's about 10.
  /// A log naming more (damaged or hostile) would make each resume and the CSV cost rows x names;
  /// the values of further names are left out and counted (droppedValues).
  static constexpr std::size_t kMaxSeries = 256;
  /// Events (checkpoints, scaler changes, decode failures ...) a record keeps: a real run writes
  /// a few per epoch; each resume filters them, so a hostile log of many is cut here and counted
  /// with droppedValues.
  static constexpr std::size_t kMaxNotableEvents = 10000;
  /// Per-class lines a record keeps per split: a run validates once or a few times per epoch, so
  /// a log of more is damaged or hostile; later ones are left out and counted with droppedValues.
  static constexpr std::size_t kMaxPerClassEntries = 5000;

  /// Adds one event; a "resumed" event at step S first drops everything after S (the work the
  /// interrupted process lost), as MetricsReader::applyResumes does.
  void add(const MetricEvent& e);
  void addAll(const std::vector<MetricEvent>& events);
  void clear();

  /// The series of `metric` in events of `kind`, or nullptr when the run has none.
  const Series* series(const std::string& kind, const std::string& metric) const;
  /// "kind/metric" names of every series, sorted.
  std::vector<std::string> seriesNames() const;
  /// Events of kind "event" (checkpoints, scaler changes, decode failures, errors ...).
  const std::vector<MetricEvent>& notableEvents() const { return notable_; }
  /// The newest per-class figures of `split` ("val": the last validation, "test": the last
  /// test), or nullptr when the run has none (a single-label run, or one recorded before
  /// per_class lines existed).
  const PerClassEntry* latestPerClass(const std::string& split) const;
  /// Every per-class line of `split` in file order (one per validation), resume rule applied.
  const std::vector<PerClassEntry>& perClassHistory(const std::string& split) const;

  /// Count of all events added (after resume truncation, the count kept).
  std::size_t eventCount() const { return count_; }
  /// Values left out because the run names more than kMaxSeries series, and events beyond
  /// kMaxNotableEvents; 0 for real runs.
  std::size_t droppedValues() const { return droppedValues_; }
  /// Bumped by every change that removes data (resume truncation, clear): views then rebuild.
  std::uint64_t generation() const { return generation_; }
  double lastStep() const { return lastStep_; }
  double lastEpoch() const { return lastEpoch_; }
  double lastTime() const { return lastTime_; }

  /// True when a val or test event carried `map`: a multi-label run, whose quality is mean
  /// average precision (its run.json may also say so: RunMetadata::multiLabel).
  bool multiLabel() const;

  RunSummary summary() const;

  /// Every event's values as CSV: kind, step, epoch, time_s, one column per metric name (at most
  /// kMaxSeries; linear in rows x columns). Text with a comma, quote or newline is quoted.
  std::string toCsv() const;

  /// Reads a run directory's metrics.jsonl (resume rule applied). False with `error`.
  [[nodiscard]] bool loadRunDirectory(const std::string& dir, std::string* error);
  /// What the last loadRunDirectory skipped, each naming the file and line (e.g. an over-long
  /// line): the run loaded, but not all of its log.
  const std::vector<std::string>& readProblems() const { return readProblems_; }

 private:
  std::map<std::string, Series> series_;  ///< key "kind/metric"
  std::vector<MetricEvent> notable_;
  std::vector<MetricEvent> rows_;                               ///< non-event lines, for CSV export
  std::map<std::string, std::vector<PerClassEntry>> perClass_;  ///< by split, in file order
  std::size_t perClassCount_ = 0;
  std::size_t count_ = 0;
  std::size_t droppedValues_ = 0;
  std::vector<std::string> readProblems_;
  std::uint64_t generation_ = 0;
  double lastStep_ = 0, lastEpoch_ = 0, lastTime_ = 0;
};

/// A summary figure against a baseline's: value / baseline, or nullopt when either is missing or
/// the baseline is zero.
std::optional<double> ratio(const std::optional<double>& value,
                            const std::optional<double>& baseline);

}  // namespace amp::runlog
