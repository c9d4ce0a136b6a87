#include "runlog/CheckpointFiles.h"

#include <algorithm>
#include <filesystem>

#include "runlog/RunDirectory.h"

namespace amp::runlog {

namespace {

// The files of runDir/checkpoints whose names `keep` accepts, sorted by name.
std::vector<std::filesystem::path> checkpointEntries(const std::string& runDir,
                                                     bool (*keep)(const std::string& name)) {
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

bool hasCheckpointPrefix(const std::string& name) {
  return name.rfind("checkpoint_epoch_", 0) == 0;
}

}  // namespace

std::vector<std::string> listCheckpointFiles(const std::string& runDir) {
  std::vector<std::string> out;
  for (const auto& p : checkpointEntries(runDir, [](const std::string& n) {
         return hasCheckpointPrefix(n) && n.size() > 5 && n.compare(n.size() - 5, 5, ".pyth") == 0;
       }))
    out.push_back(p.string());
  return out;
}

std::string latestCheckpointFile(const std::string& runDir) {
  const auto all = listCheckpointFiles(runDir);
  return all.empty() ? std::string() : all.back();
}

std::vector<std::string> removeUnfinishedCheckpoints(const std::string& runDir) {
  std::vector<std::string> removed;
  for (const auto& p : checkpointEntries(runDir, [](const std::string& n) {
         return hasCheckpointPrefix(n) && n.find(".pyth.tmp-") != std::string::npos;
       })) {
    std::error_code ec;
    if (std::filesystem::remove(p, ec)) removed.push_back(p.filename().string());
  }
  return removed;
}

}  // namespace amp::runlog
