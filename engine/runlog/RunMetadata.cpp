#include "runlog/RunMetadata.h"

#include <algorithm>
#include <cmath>

#include "util/BoundedInput.h"

namespace amp::runlog {
namespace {
const char* const kKnown[] = {
    "format",      "format_version", "name",          "status",   "error",      "device",
    "precision",   "model",          "config_source", "host",     "pid",        "created_at",
    "started_at",  "ended_at",       "updated_at",    "versions", "world_size", "dist_backend",
    "multi_label", "note",           "tags"};
// A note is a few lines and a run a handful of tags; more is not a person's annotation.
constexpr std::size_t kMaxNoteBytes = 64 * 1024;
constexpr std::size_t kMaxTags = 256;
}  // namespace

bool RunMetadata::isKnownField(const std::string& key) {
  return std::find(std::begin(kKnown), std::end(kKnown), key) != std::end(kKnown);
}

bool RunMetadata::isPersonField(const std::string& key) {
  return key == "note" || key == "tags";
}

const char* toString(RunStatus s) {
  switch (s) {
    case RunStatus::Running:
      return "running";
    case RunStatus::Finished:
      return "finished";
    case RunStatus::Stopped:
      return "stopped";
    case RunStatus::Failed:
      return "failed";
  }
  return "unknown";
}

std::optional<RunStatus> runStatusFromString(const std::string& s) {
  for (auto st : {RunStatus::Running, RunStatus::Finished, RunStatus::Stopped, RunStatus::Failed})
    if (s == toString(st)) return st;
  return std::nullopt;
}

nlohmann::json RunMetadata::toJson() const {
  nlohmann::json j = extra.is_object() ? extra : nlohmann::json::object();
  j["format"] = "ampstudio-run";
  j["format_version"] = kRunFormatVersion;
  j["name"] = name;
  j["status"] = toString(status);
  if (!error.empty())
    j["error"] = error;
  else
    j.erase("error");
  j["device"] = device;
  j["precision"] = precision;
  j["model"] = model;
  j["config_source"] = configSource;
  j["host"] = host;
  j["pid"] = pid;
  j["created_at"] = createdAt;
  j["started_at"] = startedAt;
  j["ended_at"] = endedAt;
  j["updated_at"] = updatedAt;
  j["versions"] = versions;
  j["world_size"] = worldSize;
  if (!distBackend.empty())
    j["dist_backend"] = distBackend;
  else
    j.erase("dist_backend");
  // Only when true: a single-label run's run.json reads as before this field existed.
  if (multiLabel)
    j["multi_label"] = true;
  else
    j.erase("multi_label");
  if (!note.empty())
    j["note"] = note;
  else
    j.erase("note");
  if (!tags.empty())
    j["tags"] = tags;
  else
    j.erase("tags");
  return j;
}

std::optional<RunMetadata> RunMetadata::fromJson(const nlohmann::json& j, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<RunMetadata> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!j.is_object()) return fail("run.json is not a JSON object");
  // Unknown fields are copied into `extra` and written back: nlohmann's copy and dump recurse
  // once per level, so a value nested 100,000 deep would overflow the stack.
  if (util::jsonDeeperThan(j, util::kJsonMaxDepth))
    return fail("run.json nests more than " + std::to_string(util::kJsonMaxDepth) +
                " levels deep (a run.json nests 3); is it a run.json?");
  // Every field is read by type: a field of another type counts as absent (json's value() would
  // throw, which ended `runs list` and the studio on one odd run.json; found by fuzzing).
  auto str = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  auto num = [&](const char* k) {
    return j.contains(k) && j[k].is_number() ? j[k].get<double>() : 0.0;
  };
  // An integer field within [lo, hi] (a double outside an integer's range must not be cast).
  auto integer = [&](const char* k, double lo, double hi, double fallback) {
    const double v = num(k);
    return std::isfinite(v) && v >= lo && v <= hi ? v : fallback;
  };
  if (str("format") != "ampstudio-run") return fail("run.json lacks \"format\": \"ampstudio-run\"");
  RunMetadata m;
  m.name = str("name");
  const std::string status = str("status");
  auto st = runStatusFromString(status);
  if (!st) return fail("run.json has unknown status '" + status + "'");
  m.status = *st;
  m.error = str("error");
  m.device = str("device");
  m.precision = str("precision");
  m.model = str("model");
  m.configSource = str("config_source");
  m.host = str("host");
  m.pid = static_cast<std::int64_t>(integer("pid", 0, 4194304.0 * 1024, 0));
  m.createdAt = num("created_at");
  m.startedAt = num("started_at");
  m.endedAt = num("ended_at");
  m.updatedAt = num("updated_at");
  if (j.contains("versions") && j["versions"].is_object()) m.versions = j["versions"];
  m.worldSize = static_cast<int>(integer("world_size", 1, 1 << 24, 1));
  m.distBackend = str("dist_backend");
  m.multiLabel =
      j.contains("multi_label") && j["multi_label"].is_boolean() && j["multi_label"].get<bool>();
  m.note = str("note").substr(0, kMaxNoteBytes);
  // Tags of another type are dropped one by one: a list with a number in it keeps its words.
  if (j.contains("tags") && j["tags"].is_array())
    for (const auto& t : j["tags"])
      if (t.is_string() && !t.get_ref<const std::string&>().empty() && m.tags.size() < kMaxTags)
        m.tags.push_back(t.get<std::string>());
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!isKnownField(it.key())) m.extra[it.key()] = it.value();
  return m;
}

}  // namespace amp::runlog
