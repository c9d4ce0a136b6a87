#pragma once
// run.json: what a run is and how it stands (docs/run-format.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace amp::runlog {

enum class RunStatus { Running, Finished, Stopped, Failed };
const char* toString(RunStatus s);
std::optional<RunStatus> runStatusFromString(const std::string& s);

constexpr int kRunFormatVersion = 1;

struct RunMetadata {
  std::string name;
  RunStatus status = RunStatus::Running;
  std::string error;  ///< why it failed (status Failed)
  std::string
      device;  ///< e.g. "cpu (2 threads)", "cuda:0 NVIDIA H200", "2 x cpu (1 core each, ...)"
  int worldSize = 1;         ///< processes of a data-parallel run (1: one process)
  std::string distBackend;   ///< "gloo" or "nccl" when worldSize > 1
  std::string precision;     ///< "fp32", "fp16", "bf16"
  std::string model;         ///< e.g. "SlowFast R50"
  std::string configSource;  ///< the YAML the run was started from
  std::string host;
  std::int64_t pid = 0;
  double createdAt = 0;  ///< unix seconds
  double startedAt = 0;
  double endedAt = 0;    ///< 0 while running
  double updatedAt = 0;  ///< heartbeat: last time the writer touched run.json
  nlohmann::json versions = nlohmann::json::object();  ///< component -> version
  nlohmann::json extra = nlohmann::json::object();     ///< fields this version does not know, kept
  /// DATA.MULTI_LABEL (Charades): the run is judged by mean average precision ("map" in its val
  /// and test events), not top-1; run.json's "multi_label", written only when true.
  bool multiLabel = false;
  /// The person's words about the run ("note", "tags" in run.json; written only when set). They
  /// belong to whoever looks at the run, not to its writer: RunDirectory::writeMetadata keeps the
  /// ones on disk, RunDirectory::setNoteAndTags changes them.
  std::string note;
  std::vector<std::string> tags;

  nlohmann::json toJson() const;
  /// Whether `key` is a run.json field this version reads into a member (the rest go to `extra`).
  static bool isKnownField(const std::string& key);
  /// The fields a run's writer never owns (note, tags): the copy on disk wins when it rewrites.
  static bool isPersonField(const std::string& key);
  /// Parses run.json; nullopt with `error` set when it is not a run metadata object.
  [[nodiscard]] static std::optional<RunMetadata> fromJson(const nlohmann::json& j,
                                                           std::string* error);
};

}  // namespace amp::runlog
