#pragma once
// Starts the worker processes of a data-parallel run on this machine, as PySlowFast's
// launch_job and torchrun do: one process per GPU (or per DIST.CPU_PROCESSES on the CPU), each
// the same `ampstudio-cli train` command with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and
// AMPSTUDIO_INIT_METHOD in its environment. Waits for them; when one fails, the others get a
// grace period to fail on their own (a dead peer breaks their next collective), then SIGTERM,
// then SIGKILL, so no process is left behind. Ctrl-C / SIGTERM reach every worker.
#include <string>
#include <vector>

namespace amp::cli {

struct LaunchPlan {
  std::vector<std::string> worker_args;  ///< argv of each worker after the executable
  int processes = 1;                     ///< on this machine
  int shard_id = 0;                      ///< this machine
  int num_shards = 1;
  std::string init_method = "tcp://localhost:9999";
  int grace_s = 5;     ///< after a worker fails, before the others are terminated
  bool quiet = false;  ///< no "launching ..." line (benchmarks)
};

/// Runs the plan and returns the exit code: 0 when every worker finished, 130 when the run was
/// stopped, 1 when a worker failed (named on stderr).
int launchWorkers(const LaunchPlan& plan);

}  // namespace amp::cli
