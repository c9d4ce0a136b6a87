#pragma once
// How the config's batch is laid out over processes and clips, as PySlowFast reads it:
// TRAIN.BATCH_SIZE is per machine, split over its processes (NUM_GPUS, or DIST.CPU_PROCESSES on
// the CPU). Pure arithmetic on the config, so the validator, the loader, the multigrid schedule
// and the launcher all agree without depending on each other. Torch-free.
//
//   const int clips = config::perProcessBatch(cfg, /*test=*/false);  // 64 / 8 GPUs -> 8
namespace amp::config {

class Config;

/// Processes per machine the config asks for: NUM_GPUS, or DIST.CPU_PROCESSES when NUM_GPUS is 0.
int processesPerShard(const Config& c);
/// processesPerShard x NUM_SHARDS.
int configuredWorldSize(const Config& c);
/// Clips per process and iteration: TRAIN.BATCH_SIZE (or TEST.BATCH_SIZE) / processesPerShard,
/// as PySlowFast (the batch size is per machine; the global batch is it x NUM_SHARDS).
int perProcessBatch(const Config& c, bool test);
/// Training clips each video gives: AUG.NUM_SAMPLE x DATA.TRAIN_CROP_NUM_SPATIAL x
/// DATA.TRAIN_CROP_NUM_TEMPORAL (side by side in the batch, as PySlowFast's
/// multiple_samples_collate).
int clipsPerTrainVideo(const Config& c);

}  // namespace amp::config
