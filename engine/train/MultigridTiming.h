#pragma once
// What the training steps of a run cost on this device without and with multigrid, without
// training it (`ampstudio-cli bench multigrid-time`): every shape either schedule trains at is
// timed on random clips (the step benchmark: forward, loss, backward, optimizer; median of a few
// steps) in each precision, the shapes one after another in each of several rounds, so that the
// machine's drift spreads over all of them rather than landing on the shapes timed early or late.
// A shape's step time is the median of its rounds' medians; RunSteps::seconds prices a run with it.
// Internal to the engine.
//
//   train::MultigridTimingOptions o;  // iterations, warm-up, rounds, precisions
//   train::MultigridTiming t;
//   std::string error;
//   if (!train::timeMultigridShapes(plainCfg, mgCfg, plainSteps, mgSteps, o, t, &error))
//   fail(error); const double mgSeconds = mgSteps.seconds(t.stepSeconds(0));  // in the first
//   precision
#include <functional>
#include <string>
#include <vector>

#include "multigrid/TrainingSteps.h"
#include "train/StepBenchmark.h"

namespace amp::config {
class Config;
}

namespace amp::train {

struct MultigridTimingOptions {
  int iterations = 5;
  int warmup = 2;
  int rounds = 3;
  std::vector<std::string> precisions{"fp32", "amp"};
  /// Before a shape is timed in a round (progress for the CLI); may be empty.
  std::function<void(int round, const multigrid::StepShape& shape)> on_shape;
  /// After it, with that round's results per precision; may be empty.
  std::function<void(const std::vector<StepBenchResult>& results)> on_shape_timed;
};

struct MultigridTiming {
  std::vector<multigrid::StepShape> shapes;  ///< both runs' distinct shapes
  std::vector<std::string> labels;  ///< the dtype each precision ran as (amp: fp16 on CUDA)
  std::string device;               ///< "cpu" or "cuda:0"
  /// [shape][precision]: the first round's result with the median over the rounds and the
  /// largest peak memory of any round.
  std::vector<std::vector<StepBenchResult>> timed;
  std::vector<std::vector<std::vector<double>>> round_seconds;  ///< [shape][precision][round]

  /// A shape's step seconds in precision `k`, for RunSteps::seconds.
  std::function<double(const multigrid::StepShape&)> stepSeconds(std::size_t k) const;
};

/// Times every shape of `plainSteps` and `mgSteps`: a shape the multigrid run trains at with the
/// multigrid config (its head pools globally, as PySlowFast's heads do with multigrid), any other
/// with the plain one; sync_batchnorm shapes with plain batch norm (one device has nothing to
/// synchronise with). False with `error` naming the shape and what failed (a non-finite loss
/// too).
[[nodiscard]] bool timeMultigridShapes(const config::Config& plain, const config::Config& mg,
                                       const multigrid::RunSteps& plainSteps,
                                       const multigrid::RunSteps& mgSteps,
                                       const MultigridTimingOptions& options, MultigridTiming& out,
                                       std::string* error);

}  // namespace amp::train
