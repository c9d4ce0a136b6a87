#include "runlog/CheckpointFiles.h"

#include <algorithm>
#include <filesystem>

#include "runlog/RunDirectory.h"

namespace amp::runlog {

std::vector<std::string> listCheckpointFiles(const std::string& runDir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(runDir) / RunDirectory::kCheckpointsDir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("checkpoint_epoch_", 0) == 0 && e.path().extension() == ".pyth") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string latestCheckpointFile(const std::string& runDir) {
  const auto all = listCheckpointFiles(runDir);
  return all.empty() ? std::string() : all.back();
}

std::vector<std::string> removeUnfinishedCheckpoints(const std::string& runDir) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(runDir) / RunDirectory::kCheckpointsDir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("checkpoint_epoch_", 0) == 0 && name.find(".pyth.tmp-") != std::string::npos && fs::remove(e.path(), ec))
      removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  return removed;
}

}  // namespace amp::runlog
