// ampstudio-cli bench step: the training step in FP32 and mixed precision, side by side.
#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "system/DeviceInfo.h"
#include "train/StepBenchmark.h"

namespace amp::cli {
namespace {

struct StepArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  std::string precision = "both";
  bool json = false;
  train::StepBenchOptions options;
};

nlohmann::json toJson(const train::StepBenchResult& r) {
  return {{"precision", r.precision}, {"device", r.device}, {"median_step_s", r.median_step_s},
          {"iterations_per_s", r.iterations_per_s}, {"clips_per_s", r.clips_per_s}, {"macs_per_step", r.macs_per_step},
          {"achieved_flops", r.achieved_flops}, {"peak_bytes", r.peak_bytes}, {"first_loss", r.first_loss},
          {"last_loss", r.last_loss}, {"finite", r.finite}};
}

train::StepBenchResult fromJson(const nlohmann::json& j) {
  train::StepBenchResult r;
  r.precision = j.at("precision");
  r.device = j.at("device");
  r.median_step_s = j.at("median_step_s");
  r.iterations_per_s = j.at("iterations_per_s");
  r.clips_per_s = j.at("clips_per_s");
  r.macs_per_step = j.at("macs_per_step");
  r.achieved_flops = j.at("achieved_flops");
  r.peak_bytes = j.at("peak_bytes");
  r.first_loss = j.at("first_loss");
  r.last_loss = j.at("last_loss");
  r.finite = j.at("finite");
  return r;
}

// Each precision runs in its own process, so peak memory is not hidden by memory the other
// run left in the allocator. The child prints one JSON line.
bool runInChild(const StepArgs& a, const std::string& precision, train::StepBenchResult& r, std::string* error) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) {
    *error = "cannot find this program's path";
    return false;
  }
  std::vector<std::string> argv = {self, "bench", "step", "--cfg", a.cfg, "--precision", precision, "--json",
                                   "--batch", std::to_string(a.options.batch), "--iterations",
                                   std::to_string(a.options.iterations), "--warmup", std::to_string(a.options.warmup),
                                   "--threads", std::to_string(a.options.threads)};
  argv.insert(argv.end(), a.overrides.begin(), a.overrides.end());
  std::string command;
  for (const auto& s : argv) {
    command += "'";
    for (char c : s) command += c == '\'' ? std::string("'\\''") : std::string(1, c);
    command += "' ";
  }
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    *error = "cannot start the benchmark process";
    return false;
  }
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = pclose(pipe);
  auto j = nlohmann::json::parse(output, nullptr, false);
  if (status != 0 || j.is_discarded()) {
    *error = "the " + precision + " run failed (see its messages above)";
    return false;
  }
  r = fromJson(j);
  return true;
}

int runStep(StepArgs a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  std::vector<train::StepBenchResult> results;
  std::string error;
  if (a.precision == "both") {
    for (const char* p : {"fp32", "amp"}) {
      train::StepBenchResult r;
      if (!runInChild(a, p, r, &error)) {
        std::cerr << a.cfg << ": " << error << "\n";
        return 1;
      }
      results.push_back(r);
    }
  } else {
    a.options.precisions = {a.precision};
    if (!train::benchmarkTrainingStep(*cfg, a.options, results, &error)) {
      std::cerr << a.cfg << ": " << error << "\n";
      return 1;
    }
    if (a.json) {
      std::cout << toJson(results.front()).dump() << "\n";
      return results.front().finite ? 0 : 1;
    }
  }
  const auto device = system::probeDevices();
  std::cout << cfg->getString("MODEL.MODEL_NAME") << " (" << cfg->getString("MODEL.ARCH") << "), batch " << a.options.batch
            << ", " << cfg->getInt("DATA.NUM_FRAMES") << " frames at " << cfg->getInt("DATA.TRAIN_CROP_SIZE") << " px, "
            << a.options.iterations << " timed steps after " << a.options.warmup << " warm-up; "
            << (results.front().device == "cpu" ? "CPU " + std::to_string(device.cpu_cores) + " cores, BLAS " + device.blas
                                                : results.front().device)
            << "\n";
  std::cout << "precision  step_s   it/s    clips/s  GFLOP/s  peak_MiB  loss first->last   (each precision in its own process)\n"
            << std::fixed;
  for (const auto& r : results)
    std::cout << std::left << std::setw(9) << r.precision << std::right << std::setprecision(3) << std::setw(8) << r.median_step_s
              << std::setw(8) << r.iterations_per_s << std::setw(10) << r.clips_per_s << std::setprecision(1) << std::setw(9)
              << r.achieved_flops / 1e9 << std::setw(10) << static_cast<double>(r.peak_bytes) / (1024.0 * 1024.0)
              << "  " << std::setprecision(4) << r.first_loss << " -> " << r.last_loss << (r.finite ? "" : "  NOT FINITE") << "\n";
  if (results.size() == 2 && results[1].median_step_s > 0)
    std::cout << std::setprecision(2) << results[1].precision << " vs fp32: " << results[0].median_step_s / results[1].median_step_s
              << "x speed, " << (results[0].peak_bytes > 0 ? static_cast<double>(results[1].peak_bytes) / results[0].peak_bytes : 0.0)
              << "x peak memory\n";
  bool finite = true;
  for (const auto& r : results) finite = finite && r.finite;
  return finite ? 0 : 1;
}

}  // namespace

void addBenchStepCommand(CLI::App& bench, int& exitCode) {
  auto args = std::make_shared<StepArgs>();
  CLI::App* step = bench.add_subcommand("step", "Forward + backward + optimizer step: FP32 vs mixed precision in one run");
  step->add_option("--cfg", args->cfg, "Config naming the model and input size")->required()->check(CLI::ExistingFile);
  step->add_option("--precision", args->precision, "both (fp32 then amp), fp32, amp, bf16 or fp16")
      ->check(CLI::IsMember({"both", "fp32", "amp", "bf16", "fp16"}));
  step->add_option("--batch", args->options.batch, "Clips per step")->check(CLI::PositiveNumber);
  step->add_option("--iterations", args->options.iterations, "Timed steps")->check(CLI::PositiveNumber);
  step->add_option("--warmup", args->options.warmup, "Untimed steps first")->check(CLI::NonNegativeNumber);
  step->add_option("--threads", args->options.threads, "CPU threads (default: all cores)");
  step->add_flag("--json", args->json, "One precision: print the result as one JSON line");
  acceptOverrides(step);
  step->callback([args, step, &exitCode] {
    args->overrides = overridesOf(step);
    exitCode = runStep(*args);
  });
}

}  // namespace amp::cli
