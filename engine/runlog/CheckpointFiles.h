#pragma once
// Where a run directory's checkpoints are (docs/run-format.md):
// checkpoints/checkpoint_epoch_*.pyth, or <TASK>_checkpoint_epoch_*.pyth for a config whose TASK is
// set (PySlowFast's get_path_to_checkpoint), whose names sort in time order. Torch-free (the studio
// lists them; train/Checkpoint.h reads them).
#include <string>
#include <vector>

namespace amp::runlog {

/// The name a checkpoint of TASK `task` starts with: "checkpoint_epoch_" for "" (classification),
/// else "<task>_checkpoint_epoch_" ("ssl_eval_k400_checkpoint_epoch_").
std::string checkpointNamePrefix(const std::string& task);
/// Every checkpoint of TASK `task` in a run directory, oldest first. PySlowFast's
/// get_last_checkpoint accepts any name containing "<task>_checkpoint"; here the name must start
/// with checkpointNamePrefix(task), so that TASK "k400" does not pick up ssl_eval_k400's files.
std::vector<std::string> listCheckpointFiles(const std::string& runDir,
                                             const std::string& task = "");
/// The newest checkpoint of TASK `task` in a run directory ("" when there is none).
std::string latestCheckpointFile(const std::string& runDir, const std::string& task = "");
/// PySlowFast's has_checkpoint: whether checkpoints/ holds any file whose name contains
/// "checkpoint", of whatever TASK.
bool hasAnyCheckpointFile(const std::string& runDir);
/// Deletes checkpoints/*checkpoint_epoch_*.pyth.tmp-<pid> (any TASK): checkpoints whose writer
/// died before renaming them into place (util::writeFileAtomically). Only for the holder of the
/// run's lock, so none is in progress. Returns the names removed.
std::vector<std::string> removeUnfinishedCheckpoints(const std::string& runDir);

}  // namespace amp::runlog
