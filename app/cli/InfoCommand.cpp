// ampstudio-cli info: versions and devices. ampstudio-cli check cuda: GPU correctness checks.
#include <iostream>
#include <memory>

#include "Commands.h"
#include "runlog/TensorBoardWriter.h"
#include "system/DeviceInfo.h"
#include "train/CudaChecks.h"

namespace amp::cli {

void addInfoCommand(CLI::App& app, int& exitCode) {
  CLI::App* info = app.add_subcommand("info", "Versions, devices and the BLAS library in use");
  info->callback([&exitCode] {
    const auto d = system::probeDevices();
    std::cout << "AMP Studio      " << AMPSTUDIO_VERSION << "\n"
              << "LibTorch        " << d.libtorch_version
              << (d.libtorch_has_cuda ? " (CUDA build)" : " (CPU build)") << "\n"
              << "CPU             " << d.cpu_cores
              << " cores (LibTorch intra-op threads now: " << d.cpu_threads << ")\n"
              << "BLAS            " << d.blas << "\n"
              << "FFmpeg          " << d.ffmpeg_version << "\n"
              << "TensorBoard     "
              << (runlog::tensorBoardSupport() ? "none: " + *runlog::tensorBoardSupport()
                                               : std::string("event files with TENSORBOARD.ENABLE"))
              << "\n"
              << "Processes       "
              << (d.gloo && d.nccl ? "c10d Gloo (CPU and GPU) and NCCL (GPU)"
                  : d.gloo         ? "c10d Gloo (CPU and GPU; no NCCL in this build)"
                  : d.nccl ? "c10d NCCL (GPU; no Gloo in this build: CPU processes cannot meet)"
                           : "one process only (this build has neither Gloo nor NCCL)")
              << "\n";
    if (d.cuda_devices.empty())
      std::cout << "CUDA devices    none (training runs on the CPU: NUM_GPUS 0)\n";
    for (const auto& g : d.cuda_devices)
      std::cout << "CUDA device " << g.index << "   " << g.name << " (" << g.memory_gib
                << " GiB, sm_" << g.major << g.minor << ")\n";
    exitCode = 0;
  });

  CLI::App* check = app.add_subcommand("check", "Correctness checks of this build on this machine");
  check->require_subcommand(1);
  auto configs = std::make_shared<std::string>("configs");
  CLI::App* cuda = check->add_subcommand("cuda",
                                         "Gradient scaler (fused kernels, injected inf) and "
                                         "fp16/bf16 autocast of every model family on CUDA");
  cuda->add_option("--configs", *configs, "The project's configs/ folder (default: ./configs)")
      ->check(CLI::ExistingDirectory);
  cuda->callback([configs, &exitCode] {
    std::string error;
    const auto checks = train::runCudaChecks(*configs, &error);
    if (!error.empty()) {
      std::cerr << "check cuda: " << error << "\n";
      exitCode = 1;
      return;
    }
    int failed = 0;
    for (const auto& c : checks) {
      std::cout << (c.passed ? "PASS  " : "FAIL  ") << c.name << ": " << c.detail << "\n";
      failed += c.passed ? 0 : 1;
    }
    std::cout << checks.size() - failed << " passed, " << failed << " failed" << std::endl;
    exitCode = failed ? 1 : 0;
  });
}

}  // namespace amp::cli
