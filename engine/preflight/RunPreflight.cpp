#include "preflight/RunPreflight.h"

#include <malloc.h>
#include <torch/torch.h>
#ifdef AMPSTUDIO_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#endif

#include <thread>

#include "config/Config.h"
#include "config/Refusals.h"
#include "models/VideoModels.h"
#include "runlog/TensorBoardWriter.h"
#include "system/ErrorText.h"
#include "system/MemoryProbe.h"
#include "train/Optimizer.h"
#include "train/Tester.h"
#include "train/TrainStep.h"

namespace amp::preflight {
namespace {

// Keys that cannot change the memory of a one-clip training step: the batch is scaled
// afterwards, the rest is schedule, paths, logging and evaluation.
bool irrelevantToStepMemory(const std::string& key) {
  static const char* const kPrefixes[] = {"TEST.",
                                          "DATA_LOADER.",
                                          "TENSORBOARD.",
                                          "DEMO.",
                                          "OUTPUT_DIR",
                                          "LOG_",
                                          "RNG_SEED",
                                          "NUM_SHARDS",
                                          "SHARD_ID",
                                          "DIST.",
                                          "TRAIN.BATCH_SIZE",
                                          "TRAIN.EVAL_PERIOD",
                                          "TRAIN.CHECKPOINT",
                                          "TRAIN.AUTO_RESUME",
                                          "DATA.PATH_",
                                          "SOLVER.BASE_LR",
                                          "SOLVER.LR_",
                                          "SOLVER.MAX_EPOCH",
                                          "SOLVER.WARMUP",
                                          "SOLVER.COSINE",
                                          "SOLVER.STEPS",
                                          "SOLVER.LRS",
                                          "SOLVER.WEIGHT_DECAY",
                                          "MULTIGRID."};
  for (const char* p : kPrefixes)
    if (key.rfind(p, 0) == 0) return true;
  return false;
}

std::int64_t tensorBytes(const torch::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<std::int64_t>(t.element_size()) : 0;
}

MemoryEstimate measure(const config::Config& cfg) {
  MemoryEstimate e;
  if (!cfg.getBool("TRAIN.ENABLE")) {
    e.note = "TRAIN.ENABLE is False";
    return e;
  }
  const bool cuda = cfg.getInt("NUM_GPUS") > 0;
  if (cuda && !torch::cuda::is_available()) {
    e.note = "NUM_GPUS asks for CUDA and there is none";
    return e;
  }
  try {
    const torch::Device device = cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    const train::PrecisionPolicy policy = train::PrecisionPolicy::fromConfig(cfg);
    const bool channelsLast = train::useChannelsLast3d(cfg, device);
    // X3D.BN_LIN5 normalises over the batch: it needs two clips.
    const int clips = cfg.getString("MODEL.ARCH") == "x3d" && cfg.getBool("X3D.BN_LIN5") ? 2 : 1;
    torch::manual_seed(static_cast<uint64_t>(cfg.getInt("RNG_SEED")));
    auto net = models::buildVideoNet(cfg);
    net->to(device);
    if (channelsLast) train::toChannelsLast3d(*net);
    net->train();
    std::int64_t params = 0;
    for (const auto& p : net->parameters())
      if (p.requires_grad()) params += tensorBytes(p);
    auto optimizer = train::buildOptimizer(cfg, *net);
    train::TrainStep step(cfg, *net, *optimizer, policy);
    const train::MicroBatch batch = train::randomMicroBatch(cfg, clips, device, channelsLast);
    // Freed heap pages back to the system first, so the step's growth shows in the RSS even
    // when an earlier measurement left them mapped.
    malloc_trim(0);
    std::int64_t before = 0, peak = 0;
    if (cuda) {
      system::resetCudaPeak(0);
      before = system::cudaMemory(0).allocated_bytes;
    } else {
      if (!system::resetPeakRss()) {
        e.note = "this kernel does not let a process reset its peak RSS";
        return e;
      }
      before = system::processRssBytes();
    }
    {
      // Without cuDNN's algorithm search: its trial workspaces are not what a step holds (the
      // search takes only memory that is free).
      struct NoAlgorithmSearch {
        const bool was = at::globalContext().benchmarkCuDNN();
        NoAlgorithmSearch() { at::globalContext().setBenchmarkCuDNN(false); }
        ~NoAlgorithmSearch() { at::globalContext().setBenchmarkCuDNN(was); }
      } noSearch;
      step.run({batch});
    }
    peak = cuda ? system::cudaMemory(0).peak_allocated_bytes : system::processPeakRssBytes();
    const std::int64_t growth = std::max<std::int64_t>(0, peak - before);
    const std::string method = cfg.getString("SOLVER.OPTIMIZING_METHOD");
    const int stateCopies = method == "sgd" ? (cfg.getFloat("SOLVER.MOMENTUM") > 0 ? 1 : 0)
                                            : 2;  // momentum; Adam's two moments
    const std::int64_t gradsAndState = params * (1 + stateCopies);
    e.measured = true;
    e.cuda = cuda;
    e.fixed_bytes = params + gradsAndState;
    e.per_clip_bytes = std::max<std::int64_t>(0, growth - gradsAndState) / clips;
  } catch (const std::exception& ex) {
    e.measured = false;
    e.note = system::errorText(ex);
  }
  if (cuda) system::releaseCudaCache();
  malloc_trim(0);
  return e;
}

}  // namespace

MachineFacts probeMachine() {
  MachineFacts m;
  m.cpu_cores = static_cast<int>(std::thread::hardware_concurrency());
  m.free_ram_bytes = availableRamBytes();
#if defined(__x86_64__) || defined(__i386__)
  m.cpu_bf16_kernels = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                       __builtin_cpu_supports("avx512dq");
#endif
  m.tensorboard_support = runlog::tensorBoardSupport().value_or("");
  m.cuda_devices = torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
#ifdef AMPSTUDIO_WITH_CUDA
  for (int i = 0; i < m.cuda_devices; ++i) {
    c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(i));
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess)
      m.cuda_free_bytes.push_back(static_cast<std::int64_t>(free));
  }
#endif
  return m;
}

std::string MemoryEstimator::fingerprint(const config::Config& cfg) {
  std::string key;
  for (const auto& def : cfg.schema().keys()) {
    if (irrelevantToStepMemory(def.key)) continue;
    key += def.key + "=" + cfg.get(def.key).dump() + "\n";
  }
  return key;
}

MemoryEstimate MemoryEstimator::estimate(const config::Config& cfg) {
  const std::string key = fingerprint(cfg);
  // One measurement at a time: two at once would each see the other's memory.
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  MemoryEstimate e = measure(cfg);
  ++measurements_;
  cache_[key] = e;
  return e;
}

int MemoryEstimator::measurements() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return measurements_;
}

config::Diagnostics runPreflight(const config::Config& cfg, const std::string& file,
                                 const PreflightOptions& options, MemoryEstimator* memory) {
  config::Diagnostics out;
  auto refuse = [&](const std::string& key, const std::string& message) {
    config::Origin where{file, 0, 0};
    if (const config::Origin* o = cfg.origin(key)) where = *o;
    out.push_back(config::Diagnostic{config::Diagnostic::Severity::Error, where, key, message});
  };
  // What Trainer::start refuses, said before Start ("KEY: message").
  for (const auto& r : config::refusedSettings(cfg, cfg.getBool("TRAIN.ENABLE")))
    refuse(r.key, r.message);
  if (cfg.getBool("MIXUP.ENABLE") && cfg.getBool("TRAIN.ENABLE") && clipsPerProcessStep(cfg) < 2)
    refuse("MIXUP.ENABLE",
           "mixup and cutmix mix a batch with its own reverse, so each process needs at least 2 "
           "clips per batch; "
           "raise TRAIN.BATCH_SIZE or set MIXUP.ENABLE False");
  const MachineFacts machine = probeMachine();
  checkDevice(cfg, file, machine, out);
  const bool deviceOk = !config::hasErrors(out);
  checkFiles(cfg, file, out);
  if (options.data) checkData(cfg, file, options.data_options, out);
  if (options.memory && memory && deviceOk)
    checkMemory(cfg, file, machine, memory->estimate(cfg), out);
  return out;
}

config::Diagnostics memoryPreflight(const config::Config& cfg, const std::string& file,
                                    MemoryEstimator& memory) {
  config::Diagnostics out, device;
  const MachineFacts machine = probeMachine();
  checkDevice(cfg, file, machine, device);
  if (!config::hasErrors(device)) checkMemory(cfg, file, machine, memory.estimate(cfg), out);
  return out;
}

}  // namespace amp::preflight
