#include "runlog/RunDirectory.h"

#include "runlog/PySlowFastLog.h"
#include "runlog/TensorBoardRun.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
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

namespace {

// The folder's own flock(2), held for one read-modify-write of run.json: the trainer's rewrite
// and the studio's note edit then never interleave (no extra file in the run; run.lock is the
// trainer's for its whole life). Every holder keeps it for one small write, so waiting for it
// is short; polling with LOCK_NB instead starved the studio while a trainer rewrote in a loop.
// A file system without flock (some network mounts) still gets the atomic rename.
class MetadataEditLock {
 public:
  explicit MetadataEditLock(const std::string& dir)
      : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    while (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~MetadataEditLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  MetadataEditLock(const MetadataEditLock&) = delete;
  MetadataEditLock& operator=(const MetadataEditLock&) = delete;

 private:
  int fd_;
};

// run.json as it is on disk now, as JSON (nullopt when missing or not a JSON object).
std::optional<nlohmann::json> metadataOnDisk(const std::string& path) {
  std::string text;
  if (!util::readFile(path, text, nullptr, RunDirectory::kMaxMetadataBytes)) return std::nullopt;
  auto j = util::parseJson(text, nullptr);
  if (!j || !j->is_object()) return std::nullopt;  // parseJson bounds the depth
  return j;
}

}  // namespace

bool RunDirectory::ensureExists(std::string* error) const {
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / kCheckpointsDir, ec);
  if (ec && error) *error = "cannot create run directory '" + dir_ + "': " + ec.message();
  return !ec;
}

bool RunDirectory::exists() const {
  return fs::is_regular_file(metadataPath()) || isPySlowFast() || isTensorBoard();
}

bool RunDirectory::isTensorBoard() const {
  return TensorBoardRun::isRunFolder(dir_);
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
  if (isTensorBoard()) return dir_;
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
  if (isTensorBoard()) {
    // Event files: read-only, what their names and times tell (reading them is for the record).
    RunMetadata m;
    const fs::path p(dir_);
    m.name = p.filename().string();
    if (m.name.empty()) m.name = p.parent_path().filename().string();
    // Lightning's logdir/<name>/version_3: "version_3" alone tells runs apart poorly.
    if (m.name.rfind("version_", 0) == 0 && !p.parent_path().filename().empty())
      m.name = p.parent_path().filename().string() + "/" + m.name;
    m.status = RunStatus::Finished;
    m.model = "TensorBoard run";
    const auto files = TensorBoardRun::eventFiles(dir_);
    m.configSource = files.empty() ? dir_ : files.front();
    m.createdAt = m.startedAt = TensorBoardRun::startTimeOf(dir_, &m.host);
    for (const auto& f : files) {
      struct stat st {};
      if (::stat(f.c_str(), &st) == 0)
        m.endedAt = std::max(m.endedAt, static_cast<double>(st.st_mtim.tv_sec) +
                                            1e-9 * static_cast<double>(st.st_mtim.tv_nsec));
    }
    m.updatedAt = m.endedAt;
    if (m.startedAt == 0) m.createdAt = m.startedAt = m.endedAt;
    m.extra["source_format"] = "tensorboard";
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
  const MetadataEditLock lock(dir_);
  nlohmann::json out = m.toJson();
  if (const auto disk = metadataOnDisk(metadataPath())) {
    for (auto it = disk->begin(); it != disk->end(); ++it) {
      if (RunMetadata::isPersonField(it.key()))
        out[it.key()] = it.value();
      else if (!RunMetadata::isKnownField(it.key()) && !out.contains(it.key()))
        out[it.key()] = it.value();
    }
    // A note or tags removed on disk stay removed: the writer's copy may be older.
    for (const char* k : {"note", "tags"})
      if (!disk->contains(k)) out.erase(k);
  }
  return util::writeFileAtomically(metadataPath(), out.dump(2) + "\n", error);
}

bool RunDirectory::setNoteAndTags(const std::string& note, const std::vector<std::string>& tags,
                                  std::string* error) const {
  const MetadataEditLock lock(dir_);
  std::string why;
  if (!fs::is_regular_file(metadataPath())) {
    if (error)
      *error =
          dir_ + ": an imported run (no run.json) is read-only; its note and tags cannot be kept";
    return false;
  }
  auto disk = metadataOnDisk(metadataPath());
  if (!disk || !RunMetadata::fromJson(*disk, &why)) {
    if (error)
      *error = metadataPath() + ": not a readable run.json" + (why.empty() ? "" : ": " + why);
    return false;
  }
  RunMetadata words;  // toJson() writes the two fields the same way every writer does
  words.note = note;
  words.tags = tags;
  const nlohmann::json j = words.toJson();
  for (const char* k : {"note", "tags"}) {
    if (j.contains(k))
      (*disk)[k] = j[k];
    else
      disk->erase(k);
  }
  return util::writeFileAtomically(metadataPath(), disk->dump(2) + "\n", error);
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
