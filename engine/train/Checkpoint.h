#pragma once
// Training checkpoints as PySlowFast writes them, readable by Python's torch.load: a plain dict
// with model_state, optimizer_state (PyTorch's layout: state by parameter index, param_groups),
// epoch, scaler_state (GradScaler's keys) and cfg (the YAML text), plus what exact resumption
// needs: global_step, iter_in_epoch, rng_state. Written to a temporary file and renamed.
// Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "amp/GradScaler.h"

namespace amp::train {

struct CheckpointInfo {
  int epochs_done = 0;             ///< completed epochs (PySlowFast stores "epoch" = epochs_done - 1)
  std::int64_t global_step = 0;    ///< optimizer steps taken
  std::int64_t iter_in_epoch = 0;  ///< optimizer steps into the next epoch (a stop mid-epoch)
  double best_top1_err = 100.0;    ///< best validation top-1 error so far
  std::string cfg_yaml;
  std::string path;
};

/// checkpoints/checkpoint_epoch_00003.pyth after 3 epochs (PySlowFast's name), or
/// checkpoint_epoch_00003_step_00000123.pyth for a stop inside epoch 4: names sort in time order.
std::string checkpointFileName(const CheckpointInfo& info);
/// The newest checkpoint of a run directory ("" when there is none).
std::string latestCheckpoint(const std::string& runDir);
/// Every checkpoint of a run directory, oldest first.
std::vector<std::string> listCheckpoints(const std::string& runDir);

/// Saves atomically to runDir/checkpoints/<name>; returns the path, or throws std::runtime_error.
std::string saveCheckpoint(const std::string& runDir, torch::nn::Module& net, const torch::optim::Optimizer* optimizer,
                           const precision::GradScaler* scaler, CheckpointInfo info);

/// What to restore from a checkpoint file.
struct LoadTargets {
  torch::nn::Module* net = nullptr;
  torch::optim::Optimizer* optimizer = nullptr;  ///< null: weights only
  precision::GradScaler* scaler = nullptr;
  bool rng = false;                              ///< restore the CPU generator
  std::vector<std::string> clear_name_prefixes;  ///< TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN
};

/// Loads; throws std::runtime_error naming the file and the first mismatching entries.
CheckpointInfo loadCheckpoint(const std::string& path, const LoadTargets& targets);

}  // namespace amp::train
