#include "runlog/CheckpointFiles.h"

#include <algorithm>
#include <filesystem>

#include "runlog/RunDirectory.h"

namespace amp::runlog {

namespace {

// The files of runDir/checkpoints whose names `keep` accepts, sorted by name.
template <typename Keep>
std::vector<std::filesystem::path> checkpointEntries(const std::string& runDir, Keep keep) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(
           std::filesystem::path(runDir) / RunDirectory::kCheckpointsDir, ec))
    if (keep(e.path().filename().string()) && (e.is_regular_file(ec) || e.is_symlink(ec)))
      out.push_back(
          e.path());  // not a FIFO or folder named like one; a link is checked by its reader
  std::sort(out.begin(), out.end());
  return out;
}

bool endsWith(const std::string& name, const std::string& suffix) {
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string checkpointNamePrefix(const std::string& task) {
  return task.empty() ? std::string("checkpoint_epoch_") : task + "_checkpoint_epoch_";
}

std::vector<std::string> listCheckpointFiles(const std::string& runDir, const std::string& task) {
  const std::string prefix = checkpointNamePrefix(task);
  std::vector<std::string> out;
  for (const auto& p : checkpointEntries(runDir, [&](const std::string& n) {
         return n.rfind(prefix, 0) == 0 && n.size() > prefix.size() && endsWith(n, ".pyth");
       }))
    out.push_back(p.string());
  return out;
}

std::string latestCheckpointFile(const std::string& runDir, const std::string& task) {
  const auto all = listCheckpointFiles(runDir, task);
  return all.empty() ? std::string() : all.back();
}

bool hasAnyCheckpointFile(const std::string& runDir) {
  return !checkpointEntries(runDir, [](const std::string& n) {
            return n.find("checkpoint") != std::string::npos;
          }).empty();
}

std::vector<std::string> removeUnfinishedCheckpoints(const std::string& runDir) {
  std::vector<std::string> removed;
  for (const auto& p : checkpointEntries(runDir, [](const std::string& n) {
         return n.find("checkpoint_epoch_") != std::string::npos &&
                n.find(".pyth.tmp-") != std::string::npos;
       })) {
    std::error_code ec;
    if (std::filesystem::remove(p, ec)) removed.push_back(p.filename().string());
  }
  return removed;
}

}  // namespace amp::runlog
