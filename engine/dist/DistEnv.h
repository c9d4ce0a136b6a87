#pragma once
// Where this process stands in a data-parallel job: its rank, the world, and how the ranks meet.
// Read from the launcher's worker environment, from torchrun's (RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR, MASTER_PORT) or from Slurm's (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID and the
// first host of the node list), and checked against the config, which stays the source of
// truth for the layout (NUM_GPUS or DIST.CPU_PROCESSES per machine, NUM_SHARDS machines).
// No LibTorch here: parsing is tested without it.
#include <functional>
#include <optional>
#include <string>

namespace amp::config {
class Config;
}

namespace amp::dist {

struct DistEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;        ///< the process's index on its machine: its CUDA device
  int local_world_size = 1;  ///< processes on this machine
  /// How the ranks meet: "tcp://HOST:PORT" (rank 0 serves a TCPStore) or "file:///PATH".
  std::string init_method;
  /// Who started this process: "single", "launcher" (ampstudio-cli), "torchrun" or "slurm".
  std::string origin = "single";
  /// torchrun's agent already serves the TCPStore at MASTER_PORT
  /// (TORCHELASTIC_USE_AGENT_STORE=True): every rank is a client, its keys under
  /// "/worker/attempt_<TORCHELASTIC_RESTART_COUNT>", as PyTorch's env:// rendezvous does. Empty:
  /// rank 0 serves the store.
  std::string agent_store_prefix;

  bool distributed() const { return world_size > 1; }
  /// "rank 1 of 4 (local 1 of 2, torchrun, tcp://node1:29500)"
  std::string describe() const;
};

/// Reads one environment variable; nullptr when unset (std::getenv in the product, a map in tests).
using EnvLookup = std::function<const char*(const char*)>;

/// The launcher's variables (AMPSTUDIO_INIT_METHOD with RANK, WORLD_SIZE, LOCAL_RANK,
/// LOCAL_WORLD_SIZE), torchrun's or Slurm's, in that order of precedence; nullopt when none is set
/// (a single process). Malformed values are an error naming the variable.
[[nodiscard]] std::optional<DistEnv> distEnvFromEnvironment(const EnvLookup& env,
                                                            std::string* error);
/// The first host of a Slurm node list: "gpu[03-05,09],cpu1" -> "gpu03", "a,b" -> "a".
std::string firstSlurmHost(const std::string& nodelist);
/// Tasks on node `node` of a Slurm tasks-per-node list: "2(x3),1" -> 2, 2, 2, 1 for nodes 0-3;
/// 0 when the list is malformed or shorter.
int slurmTasksOnNode(const std::string& tasksPerNode, int node);
/// The CUDA device of local rank `localRank` when `visibleDevices` devices are visible: the
/// local rank, or 0 when the process sees one device (Slurm's --gpus-per-task, a
/// CUDA_VISIBLE_DEVICES per rank), as `torch.cuda.set_device(local_rank % device_count)`.
int cudaDeviceOfLocalRank(int localRank, int visibleDevices);
/// Splits "tcp://HOST:PORT" into host and port. False with `error` naming the text otherwise.
[[nodiscard]] bool parseTcpInitMethod(const std::string& method, std::string& host, int& port,
                                      std::string* error);

/// Why `env` does not fit the config's layout, naming the keys to change; nullopt when it fits.
std::optional<std::string> checkAgainstConfig(const DistEnv& env, const config::Config& c);

}  // namespace amp::dist
