#pragma once
// Where a run directory's checkpoints are (docs/run-format.md):
// checkpoints/checkpoint_epoch_*.pyth, whose names sort in time order. Torch-free (the studio lists
// them; train/Checkpoint.h reads them).
#include <string>
#include <vector>

namespace amp::runlog {

/// Every checkpoint of a run directory, oldest first.
std::vector<std::string> listCheckpointFiles(const std::string& runDir);
/// The newest checkpoint of a run directory ("" when there is none).
std::string latestCheckpointFile(const std::string& runDir);
/// Deletes checkpoints/*.pyth.tmp-<pid>: checkpoints whose writer died before renaming them into
/// place (util::writeFileAtomically). Only for the holder of the run's lock, so none is in
/// progress. Returns the names removed.
std::vector<std::string> removeUnfinishedCheckpoints(const std::string& runDir);

}  // namespace amp::runlog
