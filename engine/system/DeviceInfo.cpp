#include "system/DeviceInfo.h"

#include <torch/torch.h>
#ifdef AMPSTUDIO_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#ifdef AMPSTUDIO_WITH_FFMPEG
extern "C" {
#include <libavcodec/avcodec.h>
}
#endif

#include <fstream>
#include <thread>

namespace amp::system {
namespace {

// Debian routes libblas through alternatives, so the library really loaded is the only truth.
std::string loadedBlas() {
  std::ifstream maps("/proc/self/maps");
  std::string line, found;
  while (std::getline(maps, line)) {
    if (line.find("libopenblas") != std::string::npos) return "OpenBLAS";
    if (line.find("libmkl") != std::string::npos) return "MKL";
    if (line.find("libblis") != std::string::npos) found = "BLIS";
    if (found.empty() && line.find("/libblas.so") != std::string::npos)
      found = "reference BLAS (slow; install libopenblas0-pthread)";
  }
  return found.empty() ? "none found" : found;
}

}  // namespace

bool builtWithCuda() {
#ifdef AMPSTUDIO_WITH_CUDA
  return true;
#else
  return false;
#endif
}

DeviceInfo probeDevices() {
  DeviceInfo info;
  info.libtorch_version = TORCH_VERSION;
#ifdef AMPSTUDIO_WITH_CUDA
  info.libtorch_has_cuda = true;
#endif
#ifdef AMPSTUDIO_WITH_GLOO
  info.gloo = true;
#endif
#ifdef AMPSTUDIO_WITH_NCCL
  info.nccl = true;
#endif
  if (torch::cuda::is_available()) {
    const int n = static_cast<int>(torch::cuda::device_count());
    for (int i = 0; i < n; ++i) {
      CudaDevice d;
      d.index = i;
      d.name = "cuda:" + std::to_string(i);
#ifdef AMPSTUDIO_WITH_CUDA
      const cudaDeviceProp* p = at::cuda::getDeviceProperties(i);
      d.name = p->name;
      d.memory_gib = static_cast<double>(p->totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
      d.major = p->major;
      d.minor = p->minor;
#endif
      info.cuda_devices.push_back(d);
    }
  }
  info.cpu_threads = torch::get_num_threads();
  info.cpu_cores = static_cast<int>(std::thread::hardware_concurrency());
  {
    torch::NoGradGuard noGrad;
    auto a = torch::ones({64, 64});
    auto b = torch::mm(a, a);
    (void)b.sum().item<float>();
  }
  info.blas = loadedBlas();
#ifdef AMPSTUDIO_WITH_FFMPEG
  const unsigned v = avcodec_version();
  info.ffmpeg_version = "libavcodec " + std::to_string(v >> 16) + "." +
                        std::to_string((v >> 8) & 0xff) + "." + std::to_string(v & 0xff);
#else
  info.ffmpeg_version = "none (built with AMPSTUDIO_WITH_FFMPEG=OFF)";
#endif
  return info;
}

}  // namespace amp::system
