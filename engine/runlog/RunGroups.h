#pragma once
// Which runs of a sweep belong together: the keys a comparison can group its runs by (the run
// fields and the config keys whose values differ between the runs, as ConfigDiff finds them) and
// the groups one or more such keys make. Researchers compare learning rate x precision x model
// with several seeds each; grouped by BASE_LR and precision, the seeds of one setting become one
// group, drawn as its mean with a band. Torch-free and Qt-free, so it is tested as plain data.
//
//   std::vector<runlog::GroupableRun> runs = {{&metaA, &cfgA}, {&metaB, &cfgB}, {&metaC, nullptr}};
//   const auto keys = runlog::groupKeys(runs);  // {"precision", "SOLVER.BASE_LR", "RNG_SEED"}
//   for (const runlog::RunGroup& g : runlog::groupRuns(runs, {"SOLVER.BASE_LR", "precision"}))
//     draw(g.label, g.members);  // "BASE_LR=0.1, precision=bf16" with runs {0, 2}
#include <cstddef>
#include <string>
#include <vector>

#include "config/Config.h"
#include "runlog/RunMetadata.h"

namespace amp::runlog {

/// What a run is grouped by: its run.json and its config, either possibly missing (nullptr).
struct GroupableRun {
  const RunMetadata* meta = nullptr;
  const config::Config* config = nullptr;
};

/// The run fields (run.json) a comparison can group by, before any config key.
const std::vector<std::string>& groupRunFields();

/// The keys worth grouping these runs by, in this order: the run fields whose values differ
/// between the runs, then the config keys that differ (schema order, diffConfigs over the runs
/// with a config). Empty for fewer than two runs.
std::vector<std::string> groupKeys(const std::vector<GroupableRun>& runs);

/// True for a run field or a key of the config schema (whether or not its values differ).
bool isGroupKey(const std::vector<GroupableRun>& runs, const std::string& key);

/// The run's value of `key` as shown ("bf16", "0.1"); "(none)" when the run has no run.json or
/// no config to say it, or the key is unknown.
std::string groupValue(const GroupableRun& run, const std::string& key);

/// One group: the runs whose values of the grouping keys are `values`.
struct RunGroup {
  std::vector<std::string> values;   ///< one per grouping key
  std::vector<std::size_t> members;  ///< indices into the runs, ascending
  std::string label;                 ///< "BASE_LR=0.1, precision=bf16" (a config key's last part)
};

/// The runs grouped by the values of `keys` (one group per distinct combination), groups
/// ordered by their values (numbers as numbers: 0.05 before 0.1 before 0.4, not as text).
/// No keys: one group of every run.
std::vector<RunGroup> groupRuns(const std::vector<GroupableRun>& runs,
                                const std::vector<std::string>& keys);

}  // namespace amp::runlog
