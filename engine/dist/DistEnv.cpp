#include "dist/DistEnv.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "config/BatchLayout.h"
#include "config/Config.h"

namespace amp::dist {
namespace {

// A non-negative int from variable `name`; false with `error` when set but malformed.
bool readInt(const EnvLookup& env, const char* name, std::optional<int>& out, std::string* error) {
  const char* text = env(name);
  if (!text) return true;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < 0 || v > 1000000) {
    if (error)
      *error = std::string("environment variable ") + name + "='" + text +
               "' is not a non-negative whole number";
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

std::string str(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  return v ? std::string(v) : std::string();
}

bool finish(DistEnv& d, std::string* error) {
  if (d.world_size < 1) {
    if (error) *error = "the world size must be at least 1 (WORLD_SIZE / SLURM_NTASKS)";
    return false;
  }
  if (d.rank >= d.world_size) {
    if (error)
      *error = "rank " + std::to_string(d.rank) + " is not below the world size " +
               std::to_string(d.world_size);
    return false;
  }
  if (d.local_world_size < 1 || d.local_rank >= d.local_world_size) {
    if (error)
      *error = "local rank " + std::to_string(d.local_rank) +
               " is not below the local world size " + std::to_string(d.local_world_size) +
               " (LOCAL_RANK / LOCAL_WORLD_SIZE)";
    return false;
  }
  return true;
}

}  // namespace

std::string DistEnv::describe() const {
  return "rank " + std::to_string(rank) + " of " + std::to_string(world_size) + " (local " +
         std::to_string(local_rank) + " of " + std::to_string(local_world_size) + ", " + origin +
         (init_method.empty() ? "" : ", " + init_method) +
         (agent_store_prefix.empty() ? "" : ", torchrun's agent store") + ")";
}

std::optional<DistEnv> distEnvFromEnvironment(const EnvLookup& env, std::string* error) {
  DistEnv d;
  std::optional<int> rank, world, local, localWorld;
  const std::string port = str(env, "MASTER_PORT").empty() ? "29500" : str(env, "MASTER_PORT");
  if (env("RANK") || env("WORLD_SIZE")) {  // ampstudio-cli's workers and torchrun
    if (!readInt(env, "RANK", rank, error) || !readInt(env, "WORLD_SIZE", world, error) ||
        !readInt(env, "LOCAL_RANK", local, error) ||
        !readInt(env, "LOCAL_WORLD_SIZE", localWorld, error))
      return std::nullopt;
    if (!rank || !world) {
      if (error) *error = "RANK and WORLD_SIZE must be set together (as torchrun sets them)";
      return std::nullopt;
    }
    d.rank = *rank;
    d.world_size = *world;
    d.local_rank = local.value_or(0);
    d.local_world_size = localWorld.value_or(local ? *world : 1);
    if (const char* m = env("AMPSTUDIO_INIT_METHOD")) {
      d.init_method = m;
      d.origin = "launcher";
    } else {
      if (!env("MASTER_ADDR")) {
        if (error)
          *error =
              "RANK and WORLD_SIZE are set but MASTER_ADDR is not: set MASTER_ADDR and MASTER_PORT "
              "(torchrun does)";
        return std::nullopt;
      }
      d.init_method = "tcp://" + str(env, "MASTER_ADDR") + ":" + port;
      d.origin = "torchrun";
      if (str(env, "TORCHELASTIC_USE_AGENT_STORE") == "True") {
        std::optional<int> attempt;
        if (!readInt(env, "TORCHELASTIC_RESTART_COUNT", attempt, error)) return std::nullopt;
        d.agent_store_prefix = "/worker/attempt_" + std::to_string(attempt.value_or(0));
      }
    }
  } else if (env("SLURM_PROCID") && env("SLURM_NTASKS")) {  // srun
    if (!readInt(env, "SLURM_PROCID", rank, error) || !readInt(env, "SLURM_NTASKS", world, error) ||
        !readInt(env, "SLURM_LOCALID", local, error))
      return std::nullopt;
    d.rank = *rank;
    d.world_size = *world;
    d.local_rank = local.value_or(0);
    // SLURM_NTASKS_PER_NODE (set with --ntasks-per-node) may read "4(x2)": the leading number is
    // this layout. Without it, this node's entry of the step's (or job's) tasks per node, which
    // Slurm always sets ("2(x3),1", node SLURM_NODEID).
    const int n = std::atoi(str(env, "SLURM_NTASKS_PER_NODE").c_str());
    std::optional<int> node;
    if (!readInt(env, "SLURM_NODEID", node, error)) return std::nullopt;
    const std::string tasks = env("SLURM_STEP_TASKS_PER_NODE")
                                  ? str(env, "SLURM_STEP_TASKS_PER_NODE")
                                  : str(env, "SLURM_TASKS_PER_NODE");
    const int onNode = slurmTasksOnNode(tasks, node.value_or(0));
    d.local_world_size = n > 0 ? n : onNode > 0 ? onNode : *world;
    std::string host = str(env, "MASTER_ADDR");
    if (host.empty())
      host =
          firstSlurmHost(str(env, "SLURM_STEP_NODELIST").empty() ? str(env, "SLURM_JOB_NODELIST")
                                                                 : str(env, "SLURM_STEP_NODELIST"));
    if (host.empty()) {
      if (error)
        *error =
            "Slurm: neither MASTER_ADDR nor SLURM_STEP_NODELIST / SLURM_JOB_NODELIST names the "
            "first host";
      return std::nullopt;
    }
    d.init_method = "tcp://" + host + ":" + port;
    d.origin = "slurm";
  } else {
    return std::nullopt;
  }
  if (!finish(d, error)) return std::nullopt;
  return d;
}

std::string firstSlurmHost(const std::string& nodelist) {
  // The first entry up to a comma outside brackets; a bracket range takes its first number.
  std::string prefix;
  size_t i = 0;
  while (i < nodelist.size() && nodelist[i] != ',' && nodelist[i] != '[') prefix += nodelist[i++];
  if (i < nodelist.size() && nodelist[i] == '[') {
    ++i;
    std::string first;
    while (i < nodelist.size() && nodelist[i] != '-' && nodelist[i] != ',' && nodelist[i] != ']')
      first += nodelist[i++];
    return prefix + first;
  }
  return prefix;
}

int slurmTasksOnNode(const std::string& tasksPerNode, int node) {
  // Comma-separated entries "N" or "N(xR)": N tasks on each of R nodes.
  size_t i = 0;
  int first = 0;
  while (i < tasksPerNode.size()) {
    char* end = nullptr;
    const long tasks = std::strtol(tasksPerNode.c_str() + i, &end, 10);
    if (end == tasksPerNode.c_str() + i || tasks < 1) return 0;
    i = static_cast<size_t>(end - tasksPerNode.c_str());
    long repeat = 1;
    if (tasksPerNode.compare(i, 2, "(x") == 0) {
      repeat = std::strtol(tasksPerNode.c_str() + i + 2, &end, 10);
      if (end == tasksPerNode.c_str() + i + 2 || *end != ')' || repeat < 1) return 0;
      i = static_cast<size_t>(end - tasksPerNode.c_str()) + 1;
    }
    if (node < first + repeat) return static_cast<int>(tasks);
    first += static_cast<int>(repeat);
    if (i < tasksPerNode.size() && tasksPerNode[i++] != ',') return 0;
  }
  return 0;
}

int cudaDeviceOfLocalRank(int localRank, int visibleDevices) {
  return visibleDevices == 1 ? 0 : localRank;
}

bool parseTcpInitMethod(const std::string& method, std::string& host, int& port,
                        std::string* error) {
  const std::string scheme = "tcp://";
  const auto colon = method.rfind(':');
  if (method.rfind(scheme, 0) != 0 || colon == std::string::npos || colon < scheme.size()) {
    if (error) *error = "'" + method + "' is not tcp://HOST:PORT";
    return false;
  }
  host = method.substr(scheme.size(), colon - scheme.size());
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);  // [::1]
  char* end = nullptr;
  const std::string portText = method.substr(colon + 1);
  const long p = std::strtol(portText.c_str(), &end, 10);
  if (host.empty() || portText.empty() || *end != '\0' || p < 1 || p > 65535) {
    if (error) *error = "'" + method + "' is not tcp://HOST:PORT with a port from 1 to 65535";
    return false;
  }
  port = static_cast<int>(p);
  return true;
}

std::optional<std::string> checkAgainstConfig(const DistEnv& env, const config::Config& c) {
  const int perShard = config::processesPerShard(c);
  const std::string what = c.getInt("NUM_GPUS") > 0 ? "NUM_GPUS" : "DIST.CPU_PROCESSES";
  if (env.world_size != config::configuredWorldSize(c))
    return "this process is " + env.describe() + ", but the config asks for " + what + " " +
           std::to_string(perShard) + " x NUM_SHARDS " + std::to_string(c.getInt("NUM_SHARDS")) +
           " = " + std::to_string(config::configuredWorldSize(c)) + " processes; set " + what +
           " to the processes per machine and NUM_SHARDS to the machines";
  if (env.local_world_size != perShard)
    return "this machine runs " + std::to_string(env.local_world_size) +
           " processes (LOCAL_WORLD_SIZE), but " + what + " is " + std::to_string(perShard) +
           "; set " + what + " to the processes per machine";
  return std::nullopt;
}

}  // namespace amp::dist
