#pragma once
// Where training runs: the CUDA device of a local rank (cudnn benchmark on) or the CPU with the
// cores this process may use, and the channels-last-3d layout on CUDA. Internal to the engine
// (LibTorch types).
//
//   const torch::Device device = train::trainingDevice(cfg, env.local_rank);
//   const bool channelsLast = train::useChannelsLast3d(cfg, device);
//   if (channelsLast) train::toChannelsLast3d(*net);
#include <torch/torch.h>

#include <vector>

namespace amp::config {
class Config;
}

namespace amp::train {

/// The device NUM_GPUS asks for: CUDA device `localRank` (a data-parallel process's own GPU)
/// with cudnn benchmark mode (as PySlowFast), or the CPU with cpuTrainingThreads() LibTorch
/// threads. Throws std::runtime_error naming NUM_GPUS when this LibTorch has no such CUDA device.
torch::Device trainingDevice(const config::Config& c, int localRank = 0);
/// LibTorch threads for CPU training: OMP_NUM_THREADS when set (as PyTorch), else the cores this
/// process may run on (its CPU affinity).
int cpuTrainingThreads();
/// AMP.CHANNELS_LAST_3D and a CUDA device: convolution weights and clips in NDHWC order.
bool useChannelsLast3d(const config::Config& c, const torch::Device& device);
void toChannelsLast3d(torch::nn::Module& net);
/// The clip tensors of a batch on the device (channels-last-3d when asked).
std::vector<torch::Tensor> toDevice(std::vector<torch::Tensor> clips, const torch::Device& device,
                                    bool channelsLast);

}  // namespace amp::train
