#include "runlog/RunRecorder.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "configfile/ConfigWriter.h"
#include "runlog/MetricsReader.h"

namespace amp::runlog {

RunRecorder::RunRecorder(const std::string& runDir, bool writes,
                         std::function<void(const runlog::MetricEvent&)> sink)
    : dir_(runDir), writes_(writes), sink_(std::move(sink)) {}

bool RunRecorder::open(const config::Config& userConfig) {
  if (!writes_) return false;
  std::string why;
  if (!dir_.writeMetadata(meta, &why)) throw std::runtime_error(why);
  if (!config::saveConfigFile(userConfig, dir_.configPath(), &why)) throw std::runtime_error(why);
  std::error_code sizeError;
  const bool earlierLog =
      std::filesystem::file_size(dir_.metricsPath(), sizeError) > 0 && !sizeError;
  // `time` counts the run's seconds across its starts: this start continues from the last.
  if (earlierLog)
    for (const auto& e : runlog::MetricsReader(dir_.metricsPath()).pollFinal())
      timeOffset_ = std::max(timeOffset_, e.time_s);
  if (!writer_.open(dir_.metricsPath(), &why)) throw std::runtime_error(why);
  return earlierLog;
}

void RunRecorder::writeMetadata() {
  meta.updatedAt = runlog::unixTimeNow();
  // Best effort: run.json is rewritten whole at every update, the next one replaces a failed one,
  // and the metrics log (checked by checkLog) holds what matters.
  if (writes_) (void)dir_.writeMetadata(meta, nullptr);
}

void RunRecorder::record(runlog::MetricEvent e) {
  e.time_s = timeOffset_ +
             std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  e.unix_time_s = runlog::unixTimeNow();
  if (writes_ && logError_.empty()) (void)writer_.write(e, &logError_);  // checkLog reports it
  if (sink_) sink_(e);
}

void RunRecorder::recordPerClass(runlog::PerClassValues values, std::int64_t step, double epoch) {
  if (values.classes.empty()) return;
  runlog::MetricEvent e;
  e.kind = runlog::kind::kPerClass;
  e.step = step;
  e.epoch = epoch;
  e.perClass = std::move(values);
  record(std::move(e));
}

void RunRecorder::checkLog() const {
  if (!logError_.empty())
    throw std::runtime_error(logError_ +
                             " (free space or fix the folder, then start the run again: it resumes "
                             "from its last checkpoint)");
}

void RunRecorder::log(const std::string& line) {
  if (writes_) (void)dir_.appendLog(line, nullptr);  // the text log is for people; best effort
}

void RunRecorder::event(const std::string& name, const std::string& message, std::int64_t step,
                        double epoch, std::map<std::string, double> values,
                        const std::string& layer) {
  runlog::MetricEvent e;
  e.kind = runlog::kind::kEvent;
  e.name = name;
  e.message = message;
  e.layer = layer;
  e.step = step;
  e.epoch = epoch;
  e.values = std::move(values);
  record(e);
  log(name + ": " + message);
}

void RunRecorder::openTensorBoard(const config::Config& userConfig, bool wanted) {
  const auto unsupported = runlog::tensorBoardSupport();
  if (userConfig.getBool("TENSORBOARD.ENABLE") && unsupported)
    event("tensorboard", "TENSORBOARD.ENABLE: no event files are written: " + *unsupported, 0, 0);
  if (!wanted || !writes_ || unsupported) return;
  const std::string tbDir = runlog::tensorBoardLogDir(userConfig.getString("OUTPUT_DIR"),
                                                      userConfig.getString("TENSORBOARD.LOG_DIR"),
                                                      userConfig.getString("TRAIN.DATASET"));
  if (tensorBoard_.open(tbDir, runlog::unixTimeNow(), &tensorBoardError_))
    log("TensorBoard event file " + tensorBoard_.path() + " (tensorboard --logdir " + tbDir + ")");
  else
    event("tensorboard", "TENSORBOARD.ENABLE: no event files are written: " + tensorBoardError_, 0,
          0);
}

void RunRecorder::toTensorBoard(const std::vector<runlog::TensorBoardScalar>& scalars,
                                std::int64_t tbStep, std::int64_t step, double epoch) {
  if (!tensorBoard_.isOpen() || !tensorBoardError_.empty()) return;
  if (!tensorBoard_.add(scalars, tbStep, runlog::unixTimeNow(), &tensorBoardError_))
    event("tensorboard",
          "TENSORBOARD.ENABLE: event file writing stopped: " + tensorBoardError_ +
              " (metrics.jsonl goes on)",
          step, epoch);
}

void RunRecorder::imagesToTensorBoard(const std::vector<runlog::TensorBoardImage>& images,
                                      std::int64_t tbStep, std::int64_t step, double epoch) {
  if (!tensorBoardOpen() || images.empty()) return;
  if (!tensorBoard_.addImages(images, tbStep, runlog::unixTimeNow(), &tensorBoardError_))
    event("tensorboard",
          "TENSORBOARD.ENABLE: event file writing stopped: " + tensorBoardError_ +
              " (metrics.jsonl goes on)",
          step, epoch);
}

void RunRecorder::close(runlog::RunStatus status, const std::string& error, const char* stateName) {
  meta.status = status;
  meta.error = error;
  meta.endedAt = meta.updatedAt = runlog::unixTimeNow();
  if (writes_) (void)dir_.writeMetadata(meta, nullptr);  // best effort, as above
  if (!error.empty()) log("error: " + error);
  log(std::string("run ") + stateName);
  writer_.close();
  tensorBoard_.close();
}

}  // namespace amp::runlog
