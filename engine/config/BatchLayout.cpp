#include "config/BatchLayout.h"

#include <algorithm>
#include <cstdint>

#include "config/Config.h"

namespace amp::config {

int processesPerShard(const Config& c) {
  const auto gpus = c.getInt("NUM_GPUS");
  return static_cast<int>(gpus > 0 ? gpus
                                   : std::max<std::int64_t>(1, c.getInt("DIST.CPU_PROCESSES")));
}

int configuredWorldSize(const Config& c) {
  return processesPerShard(c) * static_cast<int>(c.getInt("NUM_SHARDS"));
}

int clipsPerTrainVideo(const Config& c) {
  return static_cast<int>(c.getInt("AUG.NUM_SAMPLE") * c.getInt("DATA.TRAIN_CROP_NUM_SPATIAL") *
                          c.getInt("DATA.TRAIN_CROP_NUM_TEMPORAL"));
}

int perProcessBatch(const Config& c, bool test) {
  const auto total = c.getInt(test ? "TEST.BATCH_SIZE" : "TRAIN.BATCH_SIZE");
  return static_cast<int>(std::max<std::int64_t>(1, total / processesPerShard(c)));
}

}  // namespace amp::config
