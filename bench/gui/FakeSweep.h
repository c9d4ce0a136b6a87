#pragma once
// A sweep of finished fake runs written with the run writers (RunDirectory's run.json,
// MetricsWriter's metrics.jsonl, a config.yaml), for the Compare tab's scale benchmark and its
// screenshots: learning rates x precisions x seeds, each group a little apart from the others and
// its seeds scattered around it, so groups, bands and legends have something true to show.
//
//   amp::bench::SweepShape shape;
//   shape.learningRates = {0.2, 0.1, 0.05, 0.025, 0.0125};
//   shape.seeds = 10;  // 5 x 2 precisions x 10 = 100 runs
//   std::string error;
//   const std::vector<std::string> dirs = amp::bench::writeFakeSweep("/tmp/sweep", shape, &error);
#include <string>
#include <vector>

namespace amp::bench {

struct SweepShape {
  std::vector<double> learningRates = {0.2, 0.1, 0.05, 0.025, 0.0125};
  std::vector<std::string> precisions = {"fp32", "bf16"};
  int seeds = 5;
  int steps = 2000;
  int validations = 20;  ///< evenly spaced, the last at the last step
};

/// Writes one run folder per (learning rate, precision, seed) under `root` (kept when a sweep of
/// this shape was written there before: its marker file names the shape). Returns the run
/// folders; empty with `error` when something could not be written.
std::vector<std::string> writeFakeSweep(const std::string& root, const SweepShape& shape,
                                        std::string* error);

}  // namespace amp::bench
