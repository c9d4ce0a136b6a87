#pragma once
// Where a run directory's checkpoints are (docs/run-format.md): checkpoints/checkpoint_epoch_*.pyth,
// whose names sort in time order. Torch-free (the studio lists them; train/Checkpoint.h reads them).
#include <string>
#include <vector>

namespace amp::runlog {

/// Every checkpoint of a run directory, oldest first.
std::vector<std::string> listCheckpointFiles(const std::string& runDir);
/// The newest checkpoint of a run directory ("" when there is none).
std::string latestCheckpointFile(const std::string& runDir);

}  // namespace amp::runlog
