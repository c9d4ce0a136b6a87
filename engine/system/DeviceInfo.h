#pragma once
// What this machine offers for training, as plain data (no LibTorch types).
#include <string>
#include <vector>

namespace amp::system {

struct CudaDevice {
  int index = 0;
  std::string name;
  double memory_gib = 0;
  int major = 0, minor = 0;  ///< compute capability
};

struct DeviceInfo {
  std::string libtorch_version;
  bool libtorch_has_cuda = false;        ///< built with CUDA (compile-time)
  std::vector<CudaDevice> cuda_devices;  ///< usable now
  int cpu_threads = 0;              ///< intra-op threads LibTorch uses now (the trainer sets them)
  int cpu_cores = 0;                ///< hardware threads of this machine
  std::string blas;                 ///< BLAS library loaded in this process, e.g. "OpenBLAS"
  std::string ffmpeg_version;       ///< libavcodec version
  bool gloo = false, nccl = false;  ///< c10d process groups this build can make (compile-time)
};

/// Probes LibTorch, CUDA, the BLAS in use (after a small matmul) and FFmpeg.
DeviceInfo probeDevices();

/// Whether this build's LibTorch has CUDA (compile-time; no probing).
bool builtWithCuda();

}  // namespace amp::system
