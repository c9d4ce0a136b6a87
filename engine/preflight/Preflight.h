#pragma once
// Pre-flight: what would make a training run of a config fail (or crawl) on this machine, found
// before anything is started or written: the device (GPUs, cores, float16 without CUDA), the
// dataset (folder, lists, a sample of videos, one decode), the files (OUTPUT_DIR writable and not
// in use, checkpoints to load) and the memory one training step needs. Problems are config
// Diagnostics, keyed like the validator's, so the CLI prints them and the studio lists them with
// the config's own. Torch-free: the machine's facts and the memory measurement come in as plain
// data (runPreflight in preflight/RunPreflight.h probes and measures them).
#include <cstdint>
#include <string>
#include <vector>

#include "config/Config.h"
#include "config/Diagnostic.h"

namespace amp::preflight {

/// What this machine offers, as the checks need it.
struct MachineFacts {
  int cuda_devices = 0;                       ///< CUDA devices this LibTorch sees
  int cpu_cores = 0;                          ///< hardware threads (0: unknown)
  std::int64_t free_ram_bytes = -1;           ///< MemAvailable (-1: unknown)
  std::vector<std::int64_t> cuda_free_bytes;  ///< free memory per CUDA device (empty: unknown)
  /// Whether LibTorch's oneDNN runs bfloat16 convolutions on this CPU (x86: AVX-512 BW, VL and DQ,
  /// LibTorch's own test); without, bfloat16 autocast falls back to its reference kernels
  /// (slow_conv3d). True where unknown.
  bool cpu_bf16_kernels = true;
  /// "" when this build writes TensorBoard event files, else why not (runlog::tensorBoardSupport).
  std::string tensorboard_support;
};

/// The peak memory of one training step of a config, from a measured one-clip step.
struct MemoryEstimate {
  bool measured = false;
  bool cuda = false;
  std::int64_t fixed_bytes = 0;     ///< weights, gradients and optimizer state
  std::int64_t per_clip_bytes = 0;  ///< activations (and their gradients) of one clip
  std::string note;                 ///< why nothing was measured
};

/// Clips one process holds in a training step: TRAIN.BATCH_SIZE split over the machine's
/// processes, times AUG.NUM_SAMPLE x DATA.TRAIN_CROP_NUM_SPATIAL copies of each.
std::int64_t clipsPerProcessStep(const config::Config& cfg);
/// Bytes of one training step at the configured batch.
std::int64_t stepPeakBytes(const config::Config& cfg, const MemoryEstimate& e);

struct DataCheckOptions {
  int sample_paths = 16;  ///< listed videos whose existence is checked, spread over each list
  double decode_budget_s = 1.5;  ///< no new decode starts after this (the first always runs)
};

/// NUM_GPUS against the CUDA devices, DIST.CPU_PROCESSES against the cores, float16 autocast
/// with NUM_GPUS > 0 on a machine without CUDA (the validator reports it for NUM_GPUS 0), and a
/// warning for bfloat16 autocast on a CPU without LibTorch's bfloat16 convolutions.
void checkDevice(const config::Config& cfg, const std::string& file, const MachineFacts& machine,
                 config::Diagnostics& out);
/// DATA.PATH_TO_DATA_DIR and the list of each enabled phase (train and val when TRAIN.ENABLE,
/// test when TEST.ENABLE), a sample of their videos, and one decode.
void checkData(const config::Config& cfg, const std::string& file, const DataCheckOptions& options,
               config::Diagnostics& out);
/// checkData for TRAIN.DATASET ava: the frame lists and box lists of training and validation (or
/// test) there and read whole, the first, middle and last keyframe's clip frames decoded, and the
/// evaluation's label map, ground truth and exclusions (AVA.*_FILE) there and parsed; each problem
/// at the key that names its file.
void checkAvaData(const config::Config& cfg, const std::string& file, config::Diagnostics& out);
/// OUTPUT_DIR can be created and written and no trainer holds it; TRAIN.CHECKPOINT_FILE_PATH and
/// TEST.CHECKPOINT_FILE_PATH exist when set (and their phase is enabled).
void checkFiles(const config::Config& cfg, const std::string& file, config::Diagnostics& out);
/// A warning when one training step needs more than the free RAM (NUM_GPUS 0) or GPU memory.
void checkMemory(const config::Config& cfg, const std::string& file, const MachineFacts& machine,
                 const MemoryEstimate& estimate, config::Diagnostics& out);

/// "41 GiB", "3.2 GiB", "640 MiB".
std::string formatBytes(std::int64_t bytes);
/// MemAvailable of /proc/meminfo in bytes (-1 when unknown).
std::int64_t availableRamBytes();

}  // namespace amp::preflight
