#pragma once
// The cost of data-parallel synchronisation, measured inside one worker of a bench run: the
// config's model trained on random clips through the same TrainStep and gradient reducer as the
// trainer, timing each step, the wait for all-reduces after backward, and (after the timed
// steps) the same all-reduces alone, so the share hidden behind backward can be told.
// ampstudio-cli bench ddp starts the workers: one process with every core, then N processes
// sharing the cores, on the same global batch. Torch-free header for the CLI.
#include <string>

#include "dist/DistEnv.h"

namespace amp::config {
class Config;
}

namespace amp::train {

struct DdpBenchOptions {
  int global_batch = 2;  ///< clips per step over all ranks
  int iterations = 5;
  int warmup = 1;
  /// Synchronise through a process group even with one rank (bench ddp --processes 1): what the
  /// reducer and the backend cost by themselves, e.g. NCCL at world size 1 on one GPU.
  bool group_of_one = false;
};

struct DdpBenchResult {
  int world_size = 1;
  int threads = 1;  ///< LibTorch CPU threads of this process
  std::string precision, device;
  int batch_per_rank = 0;
  double median_step_s = 0;       ///< one optimizer step, synchronisation included
  double median_sync_wait_s = 0;  ///< of which waiting for all-reduces once backward was done
  double allreduce_alone_s = 0;   ///< the step's gradient all-reduces with nothing to overlap
  int buckets = 0;
  int buckets_in_backward = 0;  ///< launched before backward ended (median step)
  double gradient_bytes = 0;
  double last_loss = 0;
};

/// Runs this process's share. False with `error` naming the problem.
[[nodiscard]] bool benchmarkDataParallelWorker(const config::Config& cfg, const dist::DistEnv& env,
                                               const DdpBenchOptions& options, DdpBenchResult& out,
                                               std::string* error);

}  // namespace amp::train
