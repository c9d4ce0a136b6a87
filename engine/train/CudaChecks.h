#pragma once
// Correctness checks that need a CUDA GPU, run by `ampstudio-cli check cuda` (and
// bench/gpu/run.sh): the gradient scaler's fused kernels against an injected inf, and float16 /
// bfloat16 autocast forward + backward of each model family (tiny sizes) against float32, plain
// and channels-last-3d. Torch-free header for the CLI.
#include <string>
#include <vector>

namespace amp::train {

struct CudaCheck {
  std::string name;
  bool passed = false;
  std::string detail;  ///< measured values, or why it failed
};

/// Runs every check on CUDA device 0. Empty with `error` set when there is no CUDA device.
std::vector<CudaCheck> runCudaChecks(const std::string& configDir, std::string* error);

}  // namespace amp::train
