// ampstudio-cli info: versions and devices.
#include <iostream>

#include "Commands.h"
#include "system/DeviceInfo.h"

namespace amp::cli {

void addInfoCommand(CLI::App& app, int& exitCode) {
  CLI::App* info = app.add_subcommand("info", "Versions, devices and the BLAS library in use");
  info->callback([&exitCode] {
    const auto d = system::probeDevices();
    std::cout << "AMP Studio      " << AMPSTUDIO_VERSION << "\n"
              << "LibTorch        " << d.libtorch_version << (d.libtorch_has_cuda ? " (CUDA build)" : " (CPU build)")
              << "\n"
              << "CPU             " << d.cpu_cores << " cores (LibTorch intra-op threads now: " << d.cpu_threads << ")\n"
              << "BLAS            " << d.blas << "\n"
              << "FFmpeg          " << d.ffmpeg_version << "\n";
    if (d.cuda_devices.empty()) std::cout << "CUDA devices    none (training runs on the CPU: NUM_GPUS 0)\n";
    for (const auto& g : d.cuda_devices)
      std::cout << "CUDA device " << g.index << "   " << g.name << " (" << g.memory_gib << " GiB, sm_" << g.major
                << g.minor << ")\n";
    exitCode = 0;
  });
}

}  // namespace amp::cli
