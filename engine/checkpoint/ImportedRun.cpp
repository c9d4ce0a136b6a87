#include "checkpoint/ImportedRun.h"

#include <filesystem>
#include <map>
#include <mutex>

#include "checkpoint/TorchFile.h"
#include "configfile/ConfigWriter.h"
#include "runlog/CheckpointFiles.h"
#include "runlog/RunDirectory.h"

namespace amp::checkpoint {
namespace fs = std::filesystem;

namespace {
struct CacheEntry {
  fs::file_time_type mtime;
  std::uintmax_t size = 0;
  std::optional<ImportedConfig> value;
  std::string error;
};
std::mutex cacheMutex;
std::map<std::string, CacheEntry> cache;

std::optional<ImportedConfig> readConfigOf(const std::string& file, std::string* error) {
  try {
    const c10::IValue top = loadTorchFileStructure(file);
    if (!top.isGenericDict()) {
      if (error)
        *error = file + ": not a PySlowFast checkpoint (a " + top.tagKind() + ", not a dict)";
      return std::nullopt;
    }
    for (const auto& item : top.toGenericDict()) {
      if (!item.key().isString() || item.key().toStringRef() != "cfg") continue;
      if (!item.value().isString()) {
        if (error) *error = file + ": its \"cfg\" is not a string";
        return std::nullopt;
      }
      ImportedConfig out;
      out.yaml = item.value().toStringRef();
      out.checkpoint = file;
      out.loaded = config::ConfigLoader().loadText(out.yaml, file + ":cfg",
                                                   fs::path(file).parent_path().string());
      return out;
    }
    if (error) *error = file + ": holds no \"cfg\" (not written by PySlowFast's save_checkpoint?)";
  } catch (const std::exception& e) {
    if (error) *error = e.what();
  }
  return std::nullopt;
}
}  // namespace

std::optional<ImportedConfig> readImportedRunConfig(const std::string& runDir, std::string* error) {
  const std::string file = runlog::latestCheckpointFile(runDir);
  if (file.empty()) {
    if (error)
      *error = runDir + ": no checkpoints/checkpoint_epoch_*.pyth to read the run's config from";
    return std::nullopt;
  }
  std::error_code ec;
  const auto mtime = fs::last_write_time(file, ec);
  const auto size = fs::file_size(file, ec);
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    const auto it = cache.find(file);
    if (it != cache.end() && it->second.mtime == mtime && it->second.size == size) {
      if (!it->second.value && error) *error = it->second.error;
      return it->second.value;
    }
  }
  CacheEntry entry{mtime, size, std::nullopt, {}};
  entry.value = readConfigOf(file, &entry.error);
  if (!entry.value && error) *error = entry.error;
  std::lock_guard<std::mutex> lock(cacheMutex);
  return (cache[file] = std::move(entry)).value;
}

void describeImportedRun(runlog::RunMetadata& m, const std::string& runDir) {
  if (!m.extra.contains("source_format") || m.extra["source_format"] != "pyslowfast") return;
  const auto imported = readImportedRunConfig(runDir);
  if (!imported) return;
  const config::Config& c = imported->loaded.config;
  m.model = c.getString("MODEL.MODEL_NAME") + " (" + c.getString("MODEL.ARCH") + ")";
  m.precision = c.getBool("TRAIN.MIXED_PRECISION") ? "fp16" : "fp32";
  m.extra["config_from"] = imported->checkpoint;
}

std::string runConfigFile(const std::string& runDir, const std::string& scratchDir,
                          std::string* error) {
  const runlog::RunDirectory dir(runDir);
  if (!dir.isPySlowFast()) {
    std::error_code ec;
    if (fs::exists(dir.configPath(), ec)) return dir.configPath();
    if (error) *error = runDir + ": the run has no " + runlog::RunDirectory::kConfigFile;
    return {};
  }
  const auto imported = readImportedRunConfig(runDir, error);
  if (!imported) return {};
  std::string name = fs::path(runDir).filename().string();
  if (name.empty()) name = fs::path(runDir).parent_path().filename().string();
  const std::string path = (fs::path(scratchDir) / (name + "-config.yaml")).string();
  if (!config::saveConfigFile(imported->loaded.config, path, error)) return {};
  return path;
}

}  // namespace amp::checkpoint
