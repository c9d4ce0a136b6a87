#pragma once
// What a training run leaves in its directory while the engine thread trains: run.json, the
// append-only metrics log, the text log and TensorBoard's event file, all written by global rank 0
// alone (`writes`); every rank's events also go to the event sink (the studio, the CLI's
// progress). Torch-free; used by the trainer's engine thread only.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/Config.h"
#include "runlog/MetricEvent.h"
#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"
#include "runlog/RunMetadata.h"
#include "runlog/TensorBoardWriter.h"

namespace amp::runlog {

class RunRecorder {
 public:
  RunRecorder(const std::string& runDir, bool writes,
              std::function<void(const runlog::MetricEvent&)> sink);
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  bool writes() const { return writes_; }
  runlog::RunDirectory& dir() { return dir_; }
  /// The run's run.json as it will be written next (writeMetadata()).
  runlog::RunMetadata meta;

  /// Rank 0: writes run.json and the user's config (config.yaml), then opens the metrics log for
  /// appending; `time` continues from the last line an earlier start of the run left. Returns
  /// whether there was such a line; throws with the file's message when something cannot be
  /// written.
  bool open(const config::Config& userConfig);
  /// Writes run.json now (rank 0); its error is ignored, as the run's last word must not throw.
  void writeMetadata();

  /// Stamps the event with the run's time and the wall clock, writes it (rank 0) and passes it on.
  void record(runlog::MetricEvent e);
  /// A `per_class` line: one evaluation's figure per class (record()'s rules: rank 0 writes it,
  /// every rank passes it on). An empty list writes nothing.
  void recordPerClass(runlog::PerClassValues values, std::int64_t step, double epoch);
  /// Throws once a metrics line could not be written (a full disk): the record must not silently
  /// end while the run goes on. Later lines are not attempted.
  void checkLog() const;
  /// A line of the run's text log (rank 0).
  void log(const std::string& line);
  /// An event record (kind "event") that is also a line of the text log.
  void event(const std::string& name, const std::string& message, std::int64_t step, double epoch,
             std::map<std::string, double> values = {}, const std::string& layer = {});

  /// TENSORBOARD.ENABLE: PySlowFast's scalars in OUTPUT_DIR/TENSORBOARD.LOG_DIR (default
  /// runs-<TRAIN.DATASET>). A build without it, or a file that cannot be written, is said once
  /// as an event and the run goes on: metrics.jsonl is the record.
  void openTensorBoard(const config::Config& userConfig, bool wanted);
  void toTensorBoard(const std::vector<runlog::TensorBoardScalar>& scalars, std::int64_t tbStep,
                     std::int64_t step, double epoch);
  /// PySlowFast's figures (images) at `tbStep`, under toTensorBoard's rules.
  void imagesToTensorBoard(const std::vector<runlog::TensorBoardImage>& images, std::int64_t tbStep,
                           std::int64_t step, double epoch);
  /// Whether event files are being written (TensorBoard wanted, this rank writes, no error yet):
  /// figures are only drawn then.
  bool tensorBoardOpen() const { return tensorBoard_.isOpen() && tensorBoardError_.empty(); }

  /// The run's last word: its status and error in run.json and the text log; the logs closed.
  void close(runlog::RunStatus status, const std::string& error, const char* stateName);

 private:
  runlog::RunDirectory dir_;
  bool writes_;
  std::function<void(const runlog::MetricEvent&)> sink_;
  runlog::MetricsWriter writer_;
  runlog::TensorBoardWriter tensorBoard_;
  std::string tensorBoardError_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  double timeOffset_ = 0;  // seconds the earlier starts of this run spent (its log's last time)
  std::string logError_;
};

}  // namespace amp::runlog
