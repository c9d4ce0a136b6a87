#include "runlog/RunDirectory.h"

#include "runlog/PySlowFastLog.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "util/AppendOnlyFile.h"
#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

namespace fs = std::filesystem;

namespace amp::runlog {

bool RunDirectory::ensureExists(std::string* error) const {
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / kCheckpointsDir, ec);
  if (ec && error) *error = "cannot create run directory '" + dir_ + "': " + ec.message();
  return !ec;
}

bool RunDirectory::exists() const {
  return fs::is_regular_file(metadataPath()) || isPySlowFast();
}

bool RunDirectory::isPySlowFast() const {
  return !pySlowFastStatsFile(dir_).empty();
}

std::string RunDirectory::metadataPath() const {
  return (fs::path(dir_) / kMetadataFile).string();
}
std::string RunDirectory::configPath() const {
  return (fs::path(dir_) / kConfigFile).string();
}
std::string RunDirectory::metricsPath() const {
  if (const std::string theirs = pySlowFastStatsFile(dir_); !theirs.empty()) return theirs;
  return (fs::path(dir_) / kMetricsFile).string();
}
std::string RunDirectory::logPath() const {
  return (fs::path(dir_) / kLogFile).string();
}
std::string RunDirectory::checkpointsDir() const {
  return (fs::path(dir_) / kCheckpointsDir).string();
}

std::optional<RunMetadata> RunDirectory::readMetadata(std::string* error) const {
  if (const std::string theirs = pySlowFastStatsFile(dir_); !theirs.empty()) {
    // A PySlowFast OUTPUT_DIR: what its files tell; read-only, never written to.
    RunMetadata m;
    m.name = fs::path(dir_).filename().string();
    if (m.name.empty()) m.name = fs::path(dir_).parent_path().filename().string();
    m.status = RunStatus::Finished;
    m.model = "PySlowFast run";
    m.configSource = theirs;
    // The stats file's mtime from stat(): a copied folder may carry any timestamp, and
    // std::filesystem's clock cannot hold some (last_write_time fails with EOVERFLOW for 2400).
    struct stat st {};
    if (::stat(theirs.c_str(), &st) == 0) {
      m.updatedAt = m.endedAt =
          static_cast<double>(st.st_mtim.tv_sec) + 1e-9 * static_cast<double>(st.st_mtim.tv_nsec);
      m.createdAt = m.startedAt = m.endedAt;
    }
    m.extra["source_format"] = "pyslowfast";  // "format" is run.json's own key
    return m;
  }
  std::string text;
  // Bounded in size and depth: the run list reads every run.json at each 2-s refresh on the GUI
  // thread, and a run.json linked to /dev/zero or nesting 100,000 brackets must be refused there.
  if (!util::readFile(metadataPath(), text, error, kMaxMetadataBytes)) return std::nullopt;
  std::string why;
  const auto j = util::parseJson(text, &why);
  if (!j) {
    if (error)
      *error =
          metadataPath() + ": " + why + "; a run.json is a JSON object nested 3 deep: is this one?";
    return std::nullopt;
  }
  auto m = RunMetadata::fromJson(*j, &why);
  if (!m && error) *error = metadataPath() + ": " + why;
  return m;
}

bool RunDirectory::writeMetadata(const RunMetadata& m, std::string* error) const {
  return util::writeFileAtomically(metadataPath(), m.toJson().dump(2) + "\n", error);
}

bool RunDirectory::appendLog(const std::string& line, std::string* error) const {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "[%Y-%m-%d %H:%M:%S] ", &tm);
  std::string text = stamp + line;
  if (text.empty() || text.back() != '\n') text += '\n';
  util::AppendOnlyFile log;
  std::string why;
  if (!log.open(logPath(), /*createNew=*/false, &why)) {
    if (error) *error = "cannot append to '" + logPath() + "': " + why;
    return false;
  }
  return log.append(text, error);  // a human's log: not synced line by line
}

bool RunDirectory::isAbandoned(const RunMetadata& m) {
  if (m.status != RunStatus::Running || m.pid <= 0 || m.host != hostName()) return false;
  return ::kill(static_cast<pid_t>(m.pid), 0) != 0 && errno == ESRCH;
}

std::vector<std::string> RunDirectory::findRuns(const std::string& root) {
  std::vector<std::string> out;
  std::error_code ec;
  if (RunDirectory(root).exists()) out.push_back(root);
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && RunDirectory(it->path().string()).exists())
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string hostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

double unixTimeNow() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace amp::runlog
