#pragma once
// Memory figures of this process (and of the CUDA caching allocator where there is one).
#include <cstdint>

namespace amp::system {

/// Resident set size now, in bytes (0 when unknown).
std::int64_t processRssBytes();
/// Highest resident set size since the start or the last resetPeakRss(), in bytes.
std::int64_t processPeakRssBytes();
/// Starts a new peak (Linux: /proc/self/clear_refs). False when the kernel does not allow it.
bool resetPeakRss();

struct CudaMemory {
  std::int64_t allocated_bytes = 0, reserved_bytes = 0, peak_allocated_bytes = 0;
};
/// The caching allocator's figures for `device`; all zero without CUDA.
CudaMemory cudaMemory(int device);
/// Makes `device` this thread's current CUDA device (a data-parallel process's own GPU; NCCL and
/// the caching allocator use it). No-op without CUDA.
void setCurrentCudaDevice(int device);
void resetCudaPeak(int device);
/// Returns the CUDA caching allocator's free blocks to the driver (no-op without CUDA).
void releaseCudaCache();

}  // namespace amp::system
