#pragma once
// PySlowFast's multigrid schedule (slowfast/utils/multigrid.py, Wu et al., CVPR 2020) as plain
// arithmetic over the config: the long-cycle phases with their shapes, batch sizes and learning
// rates, the short-cycle shapes inside each phase, and the rewritten SOLVER.STEPS / SOLVER.LRS /
// SOLVER.MAX_EPOCH. Torch-free; the trainer asks it which shape to train at.
#include <cstdint>
#include <string>
#include <vector>

#include "config/Config.h"

namespace amp::multigrid {

/// The batch-norm layer a phase trains with (PySlowFast's update_long_cycle): clips per device
/// over MULTIGRID.BN_BASE_SIZE above 1 splits the batch (sub_batchnorm), below 1 pools the
/// statistics of several devices (sync_batchnorm), exactly 1 is plain batchnorm.
struct BnChoice {
  std::string norm_type = "batchnorm";  ///< batchnorm | sub_batchnorm | sync_batchnorm
  std::int64_t num_splits = 1;          ///< BN.NUM_SPLITS for sub_batchnorm
  std::int64_t num_sync_devices = 1;    ///< BN.NUM_SYNC_DEVICES for sync_batchnorm
  double factor = 1.0;  ///< clips per device / BN_BASE_SIZE (0 when not decided here)
};

/// One of the three short-cycle shapes of a phase, in ShortCycleBatchSampler's cycle order.
struct ShortCycleShape {
  std::int64_t crop =
      0;  ///< crop size the dataset uses (round(factor x DEFAULT_S); the phase's S last)
  std::int64_t batch_mult =
      1;  ///< multiplier of the phase's per-device batch: round((S / (factor x DEFAULT_S))^2)
  std::int64_t schedule_b =
      1;  ///< B of this shape in get_long_cycle_schedule: round(T0 x S0^2 / (T x s^2))
  std::int64_t jitter_min_scale = 0;  ///< DATA.TRAIN_JITTER_SCALES[0] scaled by crop / DEFAULT_S
};

/// A stretch of epochs at one relative learning rate (a SOLVER.LRS entry).
struct LrSegment {
  double from_epoch = 0;
  double relative_lr = 1.0;
};

/// One long-cycle phase: a base shape trained for [start_epoch, end_epoch). Without long cycles
/// there is one phase at the config's shape over the whole run.
struct Phase {
  int index = 0;
  int lr_stage = 0;  ///< index of the original SOLVER.STEPS stage (PySlowFast's "long cycle index")
  bool fine_tune = false;  ///< the last phase after the original schedule, at the full shape
  std::int64_t b = 1;      ///< batch multiplier relative to TRAIN.BATCH_SIZE
  std::int64_t t = 0;      ///< DATA.NUM_FRAMES
  std::int64_t s = 0;      ///< DATA.TRAIN_CROP_SIZE
  std::int64_t start_epoch = 0, end_epoch = 0;  ///< may be equal: a phase rounding left empty
  std::int64_t batch_size = 0;        ///< TRAIN.BATCH_SIZE in this phase: b x the configured one
  std::int64_t per_device_batch = 0;  ///< batch_size / processes per machine (int, at least 1)
  std::int64_t sampling_rate = 0;     ///< DATA.SAMPLING_RATE
  std::int64_t long_cycle_sampling_rate =
      0;  ///< SAMPLING_RATE x (T0 // T); clips draw a rate in [SAMPLING_RATE, this]; 0: none
  std::int64_t jitter_min_scale =
      0;               ///< DATA.TRAIN_JITTER_SCALES[0] as the dataset scales it for crop s
  double avg_b = 1.0;  ///< mean B over the short-cycle shapes (B without short cycles)
  BnChoice bn;
  std::vector<LrSegment>
      lrs;  ///< relative rates within the phase (empty unless steps_with_relative_lrs)
  std::vector<ShortCycleShape> short_cycle;  ///< three shapes with short cycles, else empty
};

/// The whole schedule and the solver keys as PySlowFast's init_multigrid rewrites them.
struct Schedule {
  bool long_cycle = false, short_cycle = false;
  std::int64_t default_b = 0, default_t = 0,
               default_s = 0;  ///< TRAIN.BATCH_SIZE, NUM_FRAMES, TRAIN_CROP_SIZE
  std::vector<Phase> phases;
  std::vector<double> steps, lrs;  ///< rewritten SOLVER.STEPS and SOLVER.LRS
  std::int64_t max_epoch = 0;      ///< rewritten SOLVER.MAX_EPOCH
  std::int64_t original_max_epoch = 0;
  /// get_long_cycle_schedule's iter_saving: STEPS[-1] over the iterations the long cycles take
  /// for the same epochs (in default-batch epoch units), before EPOCH_FACTOR. 1 without long
  /// cycles.
  double iter_saving = 1.0;
  /// Over the whole run: iterations of the plain schedule (original MAX_EPOCH epochs at
  /// TRAIN.BATCH_SIZE) / iterations of this schedule (each phase's epochs / its avg_b).
  double overall_saving = 1.0;
  double multigrid_iterations_epochs = 0;  ///< the denominator above, in default-batch epochs
  std::vector<std::string> notes;          ///< deviations and caveats worth printing
};

/// Builds the schedule from MULTIGRID.*, SOLVER.*, DATA.*, TRAIN.BATCH_SIZE, NUM_GPUS and BN.*.
/// Throws std::invalid_argument naming the key for inputs the arithmetic cannot use.
Schedule buildSchedule(const config::Config& c);

/// The phase training is in at `epoch` (get_current_long_cycle_shape: the first phase that ends
/// after it; the last phase from MAX_EPOCH on).
const Phase& phaseAtEpoch(const Schedule& s, std::int64_t epoch);

/// The batch of iteration `iteration` of an epoch (ShortCycleBatchSampler restarts every epoch).
struct ShortCycleStep {
  int cycle_index = 2;  ///< 0, 1: the short-cycle crops; 2: the phase's own shape
  std::int64_t crop = 0;
  std::int64_t per_device_batch = 0;
  std::int64_t jitter_min_scale = 0;
};
ShortCycleStep shortCycleStep(const Phase& p, std::int64_t iteration);

/// Iterations of one epoch over `samples` clips of one process (ShortCycleBatchSampler's len:
/// samples / mean batch, floored with drop_last, else rounded up).
std::int64_t iterationsPerEpoch(const Phase& p, std::int64_t samples, bool drop_last);

/// PySlowFast's is_eval_epoch / is_checkpoint_epoch with the multigrid schedule: the last epoch,
/// and with long cycles MULTIGRID.EVAL_FREQ times per phase counted back from its end; otherwise
/// every `period` epochs (TRAIN.EVAL_PERIOD or TRAIN.CHECKPOINT_PERIOD).
bool isPhaseEvalEpoch(const Schedule& s, std::int64_t epoch, std::int64_t eval_freq,
                      std::int64_t period);

/// The config training runs with in phase `p`, as PySlowFast's init_multigrid and
/// update_long_cycle rewrite it: MULTIGRID.DEFAULT_B/T/S and the rewritten SOLVER.STEPS, LRS and
/// MAX_EPOCH always; with long cycles also the phase's DATA.NUM_FRAMES, DATA.TRAIN_CROP_SIZE,
/// TRAIN.BATCH_SIZE, MULTIGRID.LONG_CYCLE_SAMPLING_RATE and batch norm (BN.NORM_TYPE,
/// BN.NUM_SPLITS, BN.NUM_SYNC_DEVICES). `processes` is this machine's number of training
/// processes: a sync_batchnorm group larger than it falls back to plain batch norm (PySlowFast
/// asserts there); the fallback is reported in `note`.
config::Config phaseConfig(const config::Config& base, const Schedule& s, const Phase& p,
                           int processes, std::string* note = nullptr);

/// Python's int(round(x)): halves go to the even neighbour. Throws std::invalid_argument
/// (naming MULTIGRID.LONG_CYCLE_FACTORS) for a value no schedule can hold (inf, NaN, >= 9e15).
std::int64_t pyRound(double x);

}  // namespace amp::multigrid
