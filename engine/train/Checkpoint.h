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
  int epochs_done = 0;           ///< completed epochs (PySlowFast stores "epoch" = epochs_done - 1)
  std::int64_t global_step = 0;  ///< optimizer steps taken
  std::int64_t iter_in_epoch = 0;  ///< optimizer steps into the next epoch (a stop mid-epoch)
  double best_top1_err = 100.0;    ///< best validation top-1 error so far
  std::string cfg_yaml;
  std::string path;
  /// Saving: the config's TASK, which names the file ("" for classification).
  std::string task;
  /// Saving: each optimizer group's SOLVER.LAYER_DECAY multiplier, written as PySlowFast's
  /// param_groups "layer_decay" (empty: 1.0 for every group).
  std::vector<double> layer_decay;
  /// What loading left out or changed, one line each (PySlowFast's "not loaded" / "not used" /
  /// "renaming" lines), for the run log.
  std::vector<std::string> notes;
};

/// checkpoints/checkpoint_epoch_00003.pyth after 3 epochs (PySlowFast's name), or
/// checkpoint_epoch_00003_step_00000123.pyth for a stop inside epoch 4: names sort in time order.
/// With a TASK, PySlowFast's "<task>_" goes first: ssl_eval_k400_checkpoint_epoch_00003.pyth.
std::string checkpointFileName(const CheckpointInfo& info);
/// The newest checkpoint of TASK `task` in a run directory ("" when there is none).
std::string latestCheckpoint(const std::string& runDir, const std::string& task = "");
/// Every checkpoint of TASK `task` in a run directory, oldest first.
std::vector<std::string> listCheckpoints(const std::string& runDir, const std::string& task = "");

/// Saves atomically to runDir/checkpoints/<name>; returns the path, or throws std::runtime_error.
std::string saveCheckpoint(const std::string& runDir, torch::nn::Module& net,
                           const torch::optim::Optimizer* optimizer,
                           const precision::GradScaler* scaler, CheckpointInfo info);

/// What to restore from a checkpoint file.
struct LoadTargets {
  torch::nn::Module* net = nullptr;
  torch::optim::Optimizer* optimizer = nullptr;  ///< null: weights only
  precision::GradScaler* scaler = nullptr;
  bool rng = false;  ///< restore the CPU generator
  /// TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN: each pattern's first occurrence anywhere in a name is
  /// removed, in order, as PySlowFast's load_checkpoint does.
  std::vector<std::string> clear_name_patterns;
  /// PySlowFast's semantics for an initial checkpoint: load the entries whose name and shape fit,
  /// keep the rest of the model as initialised, and report both sides in CheckpointInfo::notes
  /// (fine-tuning 400-class weights on 8 classes). false: every entry must fit (resume, test).
  bool subset = false;
  /// TRAIN.CHECKPOINT_INFLATE (with subset): 2D convolution weights of the file become 3D ones
  /// here, repeated over time and divided by its length, as PySlowFast's inflate_weight.
  bool inflate = false;
  /// TRAIN/TEST.CHECKPOINT_TYPE caffe2: a model-zoo .pkl of NumPy arrays by Caffe2 names, loaded as
  /// PySlowFast's convert_from_caffe2 does (names converted, shapes expanded, epoch -1, no
  /// optimizer); what does not fit is reported in notes.
  bool caffe2 = false;
};

/// PySlowFast's Caffe2 -> PyTorch parameter name conversion (c2_model_loading's rules, in order).
std::string convertCaffe2Name(const std::string& name);

/// Loads a checkpoint written by us or by PySlowFast (torch.save's zip or legacy format, through
/// checkpoint/TorchFile: nothing in the file is ever run). Throws std::runtime_error naming the
/// file and the first mismatching entries.
CheckpointInfo loadCheckpoint(const std::string& path, const LoadTargets& targets);

}  // namespace amp::train
