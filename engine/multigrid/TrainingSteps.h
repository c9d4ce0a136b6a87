#pragma once
// The optimizer steps a run takes, grouped by the shape they train at: the plain run (the
// config's clip shape for SOLVER.MAX_EPOCH epochs) and a multigrid run (each long-cycle phase,
// and inside it the short-cycle shapes in ShortCycleBatchSampler's order). With a step time per
// shape (measured by `ampstudio-cli bench multigrid-time`) this gives what the run's training
// steps cost, which is how multigrid's wall-time saving on a device is estimated without training
// the run. Torch-free.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "config/Config.h"
#include "multigrid/Schedule.h"

namespace amp::multigrid {

/// What one training step computes on one process: its clips, their frames and crop, and the
/// batch norm the model is built with.
struct StepShape {
  std::int64_t clips = 0;  ///< clips per process and step (the per-process batch x clips per video)
  std::int64_t frames = 0;  ///< DATA.NUM_FRAMES
  std::int64_t crop = 0;    ///< DATA.TRAIN_CROP_SIZE (the short-cycle crop where there is one)
  std::string norm_type = "batchnorm";  ///< BN.NORM_TYPE
  std::int64_t bn_count =
      1;  ///< BN.NUM_SPLITS (sub_batchnorm) or BN.NUM_SYNC_DEVICES (sync_batchnorm), else 1

  bool operator==(const StepShape& o) const;
  bool operator<(const StepShape& o) const;
  /// "64 x 2 x 45, sub_batchnorm 8"
  std::string text() const;
};

/// Steps at one shape in one epoch.
struct ShapeSteps {
  StepShape shape;
  std::int64_t steps = 0;
};

/// A stretch of epochs trained the same way: the plain run, or one multigrid phase.
struct PhaseSteps {
  int phase = -1;  ///< the schedule's phase index; -1 for the plain run
  std::int64_t start_epoch = 0, end_epoch = 0;
  /// One epoch's steps per shape, in the order they first occur (one entry without short
  /// cycles; equal shapes of a short cycle are merged).
  std::vector<ShapeSteps> per_epoch;
  std::int64_t stepsPerEpoch() const;
  std::int64_t epochs() const { return end_epoch - start_epoch; }
};

struct RunSteps {
  std::int64_t samples_per_process = 0;  ///< training clips (videos) one process sees per epoch
  std::vector<PhaseSteps> phases;        ///< phases that train at least one epoch
  std::int64_t totalSteps() const;
  /// The run's training steps priced by `stepSeconds` (seconds per step of a shape).
  double seconds(const std::function<double(const StepShape&)>& stepSeconds) const;
  /// Seconds of one phase (an entry of `phases`) priced the same way.
  static double phaseSeconds(const PhaseSteps& p,
                             const std::function<double(const StepShape&)>& stepSeconds);
};

/// Clips one process trains on per epoch out of `samples` training videos over `world`
/// processes: DistributedSampler pads the shuffled list to a multiple of the world size.
std::int64_t samplesPerProcess(std::int64_t samples, int world);

/// The plain run of `c` (multigrid keys ignored): SOLVER.MAX_EPOCH epochs at the config's shape,
/// TRAIN.BATCH_SIZE split over the processes of a machine, BN.NORM_TYPE as configured; whole
/// batches only (the training loader drops the last partial one, as PySlowFast's).
RunSteps plainRunSteps(const config::Config& c, std::int64_t samples);

/// The multigrid run of schedule `s` built from `c`: per phase its epochs and, per epoch, the
/// whole batches of each short-cycle shape in cycle order (the loader's count, not the mean
/// batch of ShortCycleBatchSampler's len()). Batch norm as the phase chooses it (a sync group
/// larger than the machine's processes: plain, as phaseConfig); with short cycles alone, as
/// configured. A phase too short for one batch is kept with no steps (the trainer refuses it).
RunSteps multigridRunSteps(const config::Config& c, const Schedule& s, std::int64_t samples);

/// Every shape either run trains at, each once, sorted.
std::vector<StepShape> distinctShapes(const std::vector<const RunSteps*>& runs);

}  // namespace amp::multigrid
