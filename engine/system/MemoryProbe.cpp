#include "system/MemoryProbe.h"

#include <fstream>
#include <string>

#ifdef AMPSTUDIO_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace amp::system {
namespace {

std::int64_t statusField(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size())) * 1024;  // kB
  return 0;
}

}  // namespace

std::int64_t processRssBytes() {
  return statusField("VmRSS");
}
std::int64_t processPeakRssBytes() {
  return statusField("VmHWM");
}

bool resetPeakRss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  return static_cast<bool>(out.flush());
}

CudaMemory cudaMemory(int device) {
  CudaMemory m;
#ifdef AMPSTUDIO_WITH_CUDA
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device);
  constexpr size_t all =
      0;  // StatType::AGGREGATE; the enum moved namespaces across LibTorch versions
  m.allocated_bytes = stats.allocated_bytes[all].current;
  m.reserved_bytes = stats.reserved_bytes[all].current;
  m.peak_allocated_bytes = stats.allocated_bytes[all].peak;
#else
  (void)device;
#endif
  return m;
}

void resetCudaPeak(int device) {
#ifdef AMPSTUDIO_WITH_CUDA
  c10::cuda::CUDACachingAllocator::resetPeakStats(device);
#else
  (void)device;
#endif
}

void setCurrentCudaDevice(int device) {
#ifdef AMPSTUDIO_WITH_CUDA
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(device));
#else
  (void)device;
#endif
}

void releaseCudaCache() {
#ifdef AMPSTUDIO_WITH_CUDA
  c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

}  // namespace amp::system
