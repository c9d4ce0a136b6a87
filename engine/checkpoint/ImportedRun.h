#pragma once
// A PySlowFast OUTPUT_DIR opened as a run (runlog::RunDirectory::isPySlowFast) also tells the
// config it was trained with: every checkpoint PySlowFast's save_checkpoint writes carries
// "cfg", the yacs cfg.dump() of the run's config. Read from the newest checkpoint without its
// weights (loadTorchFileStructure), so even a large checkpoint costs a few kilobytes.
#include <optional>
#include <string>

#include "configfile/ConfigLoader.h"
#include "runlog/RunMetadata.h"

namespace amp::checkpoint {

struct ImportedConfig {
  std::string yaml;           ///< the "cfg" text as PySlowFast saved it
  std::string checkpoint;     ///< the checkpoint it came from
  config::LoadResult loaded;  ///< the text loaded as a config file (its problems in diagnostics)
};

/// The config of the PySlowFast run in `runDir` from its newest
/// checkpoints/checkpoint_epoch_*.pyth. nullopt with `error` when the run has no checkpoint, the
/// checkpoint cannot be read or holds no "cfg" string. Keys this studio does not know (another
/// PySlowFast version) are errors in `loaded.diagnostics`; `loaded.config` still holds every key it
/// knows. Cached per checkpoint file and modification time.
[[nodiscard]] std::optional<ImportedConfig> readImportedRunConfig(const std::string& runDir,
                                                                  std::string* error = nullptr);

/// Completes a PySlowFast run's metadata from its checkpoint config: model "<MODEL_NAME> (<ARCH>)"
/// and precision "fp16" when TRAIN.MIXED_PRECISION is on (PySlowFast's autocast is float16),
/// else "fp32". Unchanged when `m` is not an imported run or it has no readable config.
void describeImportedRun(runlog::RunMetadata& m, const std::string& runDir);

/// A config file the CLI tools can load for the run in `runDir` (audit, predict, clip preview):
/// its config.yaml, or for a PySlowFast run the keys of its checkpoint config this studio knows,
/// saved as `scratchDir`/<run folder>-config.yaml. "" with `error` when there is none.
std::string runConfigFile(const std::string& runDir, const std::string& scratchDir,
                          std::string* error = nullptr);

}  // namespace amp::checkpoint
