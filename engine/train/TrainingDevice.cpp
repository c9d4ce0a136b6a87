#include "train/TrainingDevice.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "config/Config.h"
#include "dist/DistEnv.h"
#include "system/MemoryProbe.h"

namespace amp::train {

torch::Device trainingDevice(const config::Config& c, int localRank) {
  if (c.getInt("NUM_GPUS") > 0) {
    if (!torch::cuda::is_available())
      throw std::runtime_error(
          "NUM_GPUS: " + std::to_string(c.getInt("NUM_GPUS")) +
          " but this LibTorch sees no CUDA device; set NUM_GPUS 0 to train on the CPU");
    // Local rank r trains on device r; a process that sees one device (Slurm's --gpus-per-task, a
    // CUDA_VISIBLE_DEVICES per rank) on that one.
    const int visible = static_cast<int>(torch::cuda::device_count());
    const int index = dist::cudaDeviceOfLocalRank(localRank, visible);
    if (index >= visible)
      throw std::runtime_error("NUM_GPUS: local rank " + std::to_string(localRank) +
                               " needs CUDA device " + std::to_string(index) +
                               " but this process sees " + std::to_string(visible) +
                               "; set NUM_GPUS to the GPUs of one machine");
    // cuDNN times its algorithms on each new shape and keeps the fastest. PySlowFast leaves
    // torch.backends.cudnn.benchmark at PyTorch's default (off); the results are the same
    // computation, the speed is not (docs/benchmarks.md).
    at::globalContext().setBenchmarkCuDNN(true);
    system::setCurrentCudaDevice(index);
    return {torch::kCUDA, static_cast<c10::DeviceIndex>(index)};
  }
  torch::set_num_threads(cpuTrainingThreads());
  return {torch::kCPU};
}

int cpuTrainingThreads() {
  // OMP_NUM_THREADS as PyTorch reads it (a shared server's way to cap a job); else every core
  // this process may run on (taskset / container limits, not the machine's total).
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<int>(n);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

bool useChannelsLast3d(const config::Config& c, const torch::Device& device) {
  return device.is_cuda() && c.getBool("AMP.CHANNELS_LAST_3D");
}

void toChannelsLast3d(torch::nn::Module& net) {
  torch::NoGradGuard noGrad;
  for (auto& p : net.parameters())
    if (p.dim() == 5) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast3d));
}

std::vector<torch::Tensor> toDevice(std::vector<torch::Tensor> clips, const torch::Device& device,
                                    bool channelsLast) {
  for (auto& t : clips) {
    t = t.to(device, /*non_blocking=*/true);
    if (channelsLast) t = t.contiguous(at::MemoryFormat::ChannelsLast3d);
  }
  return clips;
}

}  // namespace amp::train
