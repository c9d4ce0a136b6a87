#include "runlog/MetricsWriter.h"

#include <signal.h>

#include "util/FaultInjection.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace amp::runlog {

MetricsWriter::~MetricsWriter() {
  close();
}

bool MetricsWriter::open(const std::string& path, std::string* error) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string why;
  if (!file_.open(path, /*createNew=*/false, &why)) {
    if (error) *error = "cannot open metrics log '" + path + "': " + why;
    return false;
  }
  return !file_.endsInsideALine() || writeRaw("\n", error);
}

bool MetricsWriter::write(const MetricEvent& event, std::string* error) {
  std::string line = toJsonLine(event);
  line += '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto fault = util::injectedFault("metrics");
      fault != util::FaultAction::None) {  // drills: a torn line
    (void)writeRaw(line.substr(0, line.size() / 2), nullptr);
    if (fault == util::FaultAction::Kill) ::kill(::getpid(), SIGKILL);
    if (error) *error = "cannot append to '" + file_.path() + "': " + std::strerror(ENOSPC);
    return false;
  }
  return writeRaw(line, error);
}

bool MetricsWriter::writeRaw(const std::string& bytes, std::string* error) {
  if (!file_.isOpen()) {
    if (error) *error = "metrics log is not open";
    return false;
  }
  return file_.append(bytes, error);
}

void MetricsWriter::sync() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_.sync();
}

void MetricsWriter::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_.sync();  // a finished run's records are on disk
  file_.close();
}

}  // namespace amp::runlog
