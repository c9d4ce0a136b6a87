#include "preflight/Preflight.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "config/BatchLayout.h"
#include "metrics/ClassGroups.h"
#include "runlog/RunLock.h"

namespace amp::preflight {
namespace fs = std::filesystem;

namespace {

// Located where the key was set, else at the top config file (as the validator does).
void add(config::Diagnostics& out, config::Diagnostic::Severity s, const config::Config& cfg,
         const std::string& file, const std::string& key, const std::string& message) {
  config::Origin where{file, 0, 0};
  if (const config::Origin* o = cfg.origin(key)) where = *o;
  out.push_back(config::Diagnostic{s, where, key, message});
}
void error(config::Diagnostics& out, const config::Config& cfg, const std::string& file,
           const std::string& key, const std::string& m) {
  add(out, config::Diagnostic::Severity::Error, cfg, file, key, m);
}
void warning(config::Diagnostics& out, const config::Config& cfg, const std::string& file,
             const std::string& key, const std::string& m) {
  add(out, config::Diagnostic::Severity::Warning, cfg, file, key, m);
}

std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The first folder that exists on the way up from `path` (the one OUTPUT_DIR would be made in).
fs::path existingAncestor(fs::path path) {
  std::error_code ec;
  path = fs::absolute(path, ec);
  while (!path.empty() && !fs::exists(path, ec)) {
    if (path == path.parent_path()) break;
    path = path.parent_path();
  }
  return path;
}

void checkOutputDir(const config::Config& cfg, const std::string& file, config::Diagnostics& out) {
  const std::string dir = cfg.getString("OUTPUT_DIR");
  if (dir.empty()) {
    error(out, cfg, file, "OUTPUT_DIR",
          "is empty; set the folder the run is written to (e.g. runs/my-run)");
    return;
  }
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      error(out, cfg, file, "OUTPUT_DIR",
            "'" + dir + "' is a file, not a folder; choose another OUTPUT_DIR");
      return;
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      error(out, cfg, file, "OUTPUT_DIR",
            "'" + dir + "' is not writable by this user; choose another OUTPUT_DIR");
      return;
    }
    if (auto busy = runlog::RunLock::probe(dir)) {
      if (busy->rfind("OUTPUT_DIR ", 0) == 0) busy->erase(0, 11);  // the key leads the line already
      error(out, cfg, file, "OUTPUT_DIR", *busy);
    }
    return;
  }
  const fs::path parent = existingAncestor(dir);
  if (!fs::is_directory(parent, ec))
    error(out, cfg, file, "OUTPUT_DIR",
          "'" + dir + "' cannot be created: '" + parent.string() + "' is a file, not a folder");
  else if (::access(parent.c_str(), W_OK | X_OK) != 0)
    error(
        out, cfg, file, "OUTPUT_DIR",
        "'" + dir + "' cannot be created: '" + parent.string() + "' is not writable by this user");
}

void checkCheckpoint(const config::Config& cfg, const std::string& file, const char* key,
                     const char* phase, config::Diagnostics& out) {
  const std::string path = cfg.getString(key);
  if (path.empty() || !cfg.getBool(phase)) return;
  std::error_code ec;
  if (!fs::exists(path, ec))
    error(out, cfg, file, key,
          "'" + path + "' does not exist; correct the path, or clear the key to start without it");
  else if (fs::is_directory(path, ec))
    error(out, cfg, file, key,
          "'" + path + "' is a folder; name the checkpoint file (.pyth or .pkl)");
  else if (::access(path.c_str(), R_OK) != 0)
    error(out, cfg, file, key, "'" + path + "' is not readable by this user");
}

}  // namespace

std::int64_t clipsPerProcessStep(const config::Config& cfg) {
  return static_cast<std::int64_t>(config::perProcessBatch(cfg, false)) *
         config::clipsPerTrainVideo(cfg);
}

std::int64_t stepPeakBytes(const config::Config& cfg, const MemoryEstimate& e) {
  return e.fixed_bytes + e.per_clip_bytes * clipsPerProcessStep(cfg);
}

void checkDevice(const config::Config& cfg, const std::string& file, const MachineFacts& machine,
                 config::Diagnostics& out) {
  const std::int64_t gpus = cfg.getInt("NUM_GPUS");
  if (gpus > 0 && machine.cuda_devices == 0) {
    // The trainer's own words, now before Start.
    error(out, cfg, file, "NUM_GPUS",
          "is " + std::to_string(gpus) +
              " but this LibTorch sees no CUDA device; set NUM_GPUS 0 to train on the CPU");
    if (cfg.getBool("TRAIN.MIXED_PRECISION") && cfg.getString("AMP.DTYPE") == "float16")
      error(out, cfg, file, "AMP.DTYPE",
            "float16 mixed precision needs a CUDA GPU and this machine has none; with NUM_GPUS 0 "
            "use bfloat16 or auto");
  } else if (gpus > machine.cuda_devices) {
    error(out, cfg, file, "NUM_GPUS",
          "is " + std::to_string(gpus) + " but this machine has " +
              plural(machine.cuda_devices, "CUDA device", "CUDA devices") +
              "; set NUM_GPUS to at most " + std::to_string(machine.cuda_devices));
  }
  const std::string dtype = cfg.getString("AMP.DTYPE");
  if (gpus == 0 && cfg.getBool("TRAIN.MIXED_PRECISION") &&
      (dtype == "auto" || dtype == "bfloat16") && !machine.cpu_bf16_kernels)
    warning(out, cfg, file, "TRAIN.MIXED_PRECISION",
            "bfloat16 autocast on this CPU (no AVX-512) runs LibTorch's reference convolutions "
            "instead of oneDNN's: expect "
            "no speed-up over FP32, and slower steps for some shapes and models (docs/training.md: "
            "the demo X3D no faster at its "
            "own shape, 2x slower at 64 clips of 2 frames at 45 px, MViT 15.8x slower); set "
            "TRAIN.MIXED_PRECISION False to train "
            "in FP32, or keep bfloat16 for its numerics");
  // Measured (docs/benchmarks.md) for the ResNet family only: X3D's channel-wise convolutions and
  // MViT's attention were not, so nothing is said for them.
  const std::string arch = cfg.getString("MODEL.ARCH");
  if (gpus > 0 && machine.cuda_devices > 0 && !cfg.getBool("AMP.CHANNELS_LAST_3D") &&
      arch != "x3d" && arch != "mvit")
    warning(out, cfg, file, "AMP.CHANNELS_LAST_3D",
            "clips and 3D convolutions stay in PySlowFast's NCDHW layout; channels-last-3d "
            "computes the same and made SlowFast "
            "8x8 R50 1.8x faster in FP32 and 2.15x in float16 on an H200 (docs/benchmarks.md): set "
            "AMP.CHANNELS_LAST_3D True");
  if (cfg.getBool("TENSORBOARD.ENABLE") && !machine.tensorboard_support.empty())
    warning(
        out, cfg, file, "TENSORBOARD.ENABLE",
        machine.tensorboard_support +
            "; the run trains and logs its scalars to metrics.jsonl and the studio's charts only "
            "(rebuild with protobuf-compiler, libprotobuf-dev and libisal-dev for event files)");
  if (gpus == 0 && machine.cpu_cores > 0 && cfg.getInt("DIST.CPU_PROCESSES") > machine.cpu_cores)
    warning(out, cfg, file, "DIST.CPU_PROCESSES",
            std::to_string(cfg.getInt("DIST.CPU_PROCESSES")) + " processes on " +
                plural(machine.cpu_cores, "core", "cores") +
                ": they would share cores and train slower than fewer processes; use at most " +
                std::to_string(machine.cpu_cores));
}

// PySlowFast's class names and groups of the evaluation figures: a file that cannot be used is
// warned at its key before the run (the run goes on with class numbers and no groups).
void checkClassGroups(const config::Config& cfg, const std::string& file,
                      config::Diagnostics& out) {
  bool set = false;
  for (const char* key :
       {"TENSORBOARD.CLASS_NAMES_PATH", "TENSORBOARD.CATEGORIES_PATH",
        "TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH", "TENSORBOARD.HISTOGRAM.SUBSET_PATH"})
    set = set || !cfg.getString(key).empty();
  std::string why;
  if (!set || metrics::readClassGroups(cfg, &why)) return;
  const auto colon = why.find(": ");  // "KEY: file: what"
  const std::string key =
      colon == std::string::npos ? "TENSORBOARD.CLASS_NAMES_PATH" : why.substr(0, colon);
  warning(out, cfg, file, key,
          (colon == std::string::npos ? why : why.substr(colon + 2)) +
              "; the confusion matrices and analysis files then go without these names or "
              "groups");
}

void checkFiles(const config::Config& cfg, const std::string& file, config::Diagnostics& out) {
  checkOutputDir(cfg, file, out);
  checkClassGroups(cfg, file, out);
  checkCheckpoint(cfg, file, "TRAIN.CHECKPOINT_FILE_PATH", "TRAIN.ENABLE", out);
  checkCheckpoint(cfg, file, "TEST.CHECKPOINT_FILE_PATH", "TEST.ENABLE", out);
}

void checkMemory(const config::Config& cfg, const std::string& file, const MachineFacts& machine,
                 const MemoryEstimate& e, config::Diagnostics& out) {
  if (!e.measured || !cfg.getBool("TRAIN.ENABLE")) return;
  const std::int64_t need = stepPeakBytes(cfg, e);
  std::int64_t free = -1;
  std::string where;
  if (e.cuda) {
    for (const std::int64_t f :
         machine.cuda_free_bytes)  // each process has a GPU of its own: the tightest one counts
      if (free < 0 || f < free) free = f;
    where = "GPU memory";
  } else {
    // All of the machine's processes share its RAM.
    free = machine.free_ram_bytes;
    where = "RAM";
  }
  if (free < 0) return;
  const std::int64_t processes = e.cuda ? 1 : config::processesPerShard(cfg);
  const std::int64_t total = need * processes;
  if (total <= free) return;
  std::ostringstream m;
  m << "about " << formatBytes(total) << " needed for one training step, " << formatBytes(free)
    << " of " << where << " free (" << plural(clipsPerProcessStep(cfg), "clip", "clips")
    << " per process"
    << (processes > 1 ? " x " + std::to_string(processes) + " processes" : std::string()) << ": "
    << formatBytes(e.per_clip_bytes) << " a clip + " << formatBytes(e.fixed_bytes)
    << " weights, gradients and optimizer state, measured on one clip); lower TRAIN.BATCH_SIZE"
    << (cfg.getBool("TRAIN.MIXED_PRECISION")
            ? ""
            : " or turn on mixed precision (TRAIN.MIXED_PRECISION)");
  warning(out, cfg, file, "TRAIN.BATCH_SIZE", m.str());
}

std::string formatBytes(std::int64_t bytes) {
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  char buf[32];
  if (gib >= 10)
    std::snprintf(buf, sizeof buf, "%.0f GiB", gib);
  else if (gib >= 1)
    std::snprintf(buf, sizeof buf, "%.1f GiB", gib);
  else
    std::snprintf(buf, sizeof buf, "%.0f MiB",
                  std::ceil(static_cast<double>(bytes) / (1024.0 * 1024.0)));
  return buf;
}

std::int64_t availableRamBytes() {
  std::ifstream in("/proc/meminfo");
  std::string name;
  std::int64_t kib = 0;
  std::string unit;
  while (in >> name >> kib) {
    std::getline(in, unit);
    if (name == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

}  // namespace amp::preflight
