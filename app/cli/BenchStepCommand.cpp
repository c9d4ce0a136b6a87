// ampstudio-cli bench step: the training step in FP32 and mixed precision, side by side, on
// random clips. ampstudio-cli bench precision: the same config trained for N iterations on its
// own data (or --synthetic clips) in FP32 and then in mixed precision: the table researchers quote.
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
  std::string sub = "step";  ///< "step" or "precision"
  std::string cfg;
  std::vector<std::string> overrides;
  std::string precision = "both";
  std::string actCheckpoint = "config";  ///< MODEL.ACT_CHECKPOINT: config, off, on or both
  std::string tf32 = "default";          ///< CUDA FP32 math: default (PyTorch's), on or off
  bool json = false;
  train::StepBenchOptions options;
};

nlohmann::json toJson(const train::StepBenchResult& r) {
  return {{"precision", r.precision},
          {"device", r.device},
          {"median_step_s", r.median_step_s},
          {"median_forward_s", r.median_forward_s},
          {"median_backward_s", r.median_backward_s},
          {"iterations_per_s", r.iterations_per_s},
          {"clips_per_s", r.clips_per_s},
          {"macs_per_step", r.macs_per_step},
          {"achieved_flops", r.achieved_flops},
          {"peak_bytes", r.peak_bytes},
          {"first_loss", r.first_loss},
          {"last_loss", r.last_loss},
          {"finite", r.finite},
          {"batch", r.batch},
          {"data_wait_s", r.data_wait_s},
          {"skipped_steps", r.skipped_steps},
          {"final_loss_scale", r.final_loss_scale},
          {"max_batch", r.max_batch},
          {"tf32_cudnn", r.tf32_cudnn},
          {"tf32_cublas", r.tf32_cublas}};
}

train::StepBenchResult fromJson(const nlohmann::json& j) {
  train::StepBenchResult r;
  r.precision = j.at("precision");
  r.device = j.at("device");
  r.median_step_s = j.at("median_step_s");
  r.median_forward_s = j.at("median_forward_s");
  r.median_backward_s = j.at("median_backward_s");
  r.iterations_per_s = j.at("iterations_per_s");
  r.clips_per_s = j.at("clips_per_s");
  r.macs_per_step = j.at("macs_per_step");
  r.achieved_flops = j.at("achieved_flops");
  r.peak_bytes = j.at("peak_bytes");
  r.first_loss = j.at("first_loss");
  r.last_loss = j.at("last_loss");
  r.finite = j.at("finite");
  r.batch = j.at("batch");
  r.data_wait_s = j.at("data_wait_s");
  r.skipped_steps = j.at("skipped_steps");
  r.final_loss_scale = j.at("final_loss_scale");
  r.tf32_cudnn = j.value("tf32_cudnn", false);
  r.tf32_cublas = j.value("tf32_cublas", false);
  r.max_batch = j.at("max_batch");
  return r;
}

// Each precision runs in its own process, so peak memory is not hidden by memory the other
// run left in the allocator. The child prints one JSON line.
bool runInChild(const StepArgs& a, const std::string& precision, bool actCheckpoint,
                train::StepBenchResult& r, std::string* error) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) {
    *error = "cannot find this program's path";
    return false;
  }
  std::vector<std::string> argv = {self,           "bench",
                                   a.sub,          "--cfg",
                                   a.cfg,          "--precision",
                                   precision,      "--json",
                                   "--batch",      std::to_string(a.options.batch),
                                   "--iterations", std::to_string(a.options.iterations),
                                   "--warmup",     std::to_string(a.options.warmup),
                                   "--threads",    std::to_string(a.options.threads)};
  if (a.sub == "precision" && !a.options.real_data) argv.push_back("--synthetic");
  if (a.options.max_batch) argv.push_back("--max-batch");
  argv.insert(argv.end(), {"--tf32", a.tf32});
  argv.insert(argv.end(), a.overrides.begin(), a.overrides.end());
  argv.insert(argv.end(), {"MODEL.ACT_CHECKPOINT", actCheckpoint ? "True" : "False"});
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
    *error = "the " + precision + (actCheckpoint ? " run with activation checkpointing" : " run") +
             " failed (see its messages above)";
    return false;
  }
  r = fromJson(j);
  return true;
}

int runStep(StepArgs a) {
  if (a.actCheckpoint == "on" || a.actCheckpoint == "off")
    a.overrides.insert(a.overrides.end(),
                       {"MODEL.ACT_CHECKPOINT", a.actCheckpoint == "on" ? "True" : "False"});
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  if (a.options.batch == 0) a.options.batch = static_cast<int>(cfg->getInt("TRAIN.BATCH_SIZE"));
  a.options.tf32 = a.tf32 == "on" ? 1 : a.tf32 == "off" ? 0 : -1;
  if (a.options.tf32 >= 0 && cfg->getInt("NUM_GPUS") == 0 && !a.json)
    std::cerr << "--tf32 " << a.tf32
              << ": no effect here, TF32 is CUDA's (NUM_GPUS 0 trains on the CPU)\n";
  std::vector<train::StepBenchResult> results;
  std::vector<bool> checkpointed;  // MODEL.ACT_CHECKPOINT of each result
  std::string error;
  const bool bothCheckpoint = a.actCheckpoint == "both";
  if (a.precision == "both" || a.precision == "all" || bothCheckpoint) {
    // all: FP32 and every mixed dtype this device's autocast takes (float16 needs CUDA).
    const bool cuda = cfg->getInt("NUM_GPUS") > 0;
    if (a.precision == "all" && !cuda)
      std::cout << "--precision all: fp32 and bf16 (float16 autocast needs CUDA, NUM_GPUS 1)\n";
    const std::vector<std::string> precisions =
        a.precision == "both"  ? std::vector<std::string>{"fp32", "amp"}
        : a.precision == "all" ? (cuda ? std::vector<std::string>{"fp32", "fp16", "bf16"}
                                       : std::vector<std::string>{"fp32", "bf16"})
                               : std::vector<std::string>{a.precision};
    const std::vector<bool> ckpts = bothCheckpoint
                                        ? std::vector<bool>{false, true}
                                        : std::vector<bool>{cfg->getBool("MODEL.ACT_CHECKPOINT")};
    for (const auto& p : precisions)
      for (const bool ck : ckpts) {
        train::StepBenchResult r;
        if (!runInChild(a, p, ck, r, &error)) {
          std::cerr << a.cfg << ": " << error << "\n";
          return 1;
        }
        results.push_back(r);
        checkpointed.push_back(ck);
      }
  } else {
    a.options.precisions = {a.precision};
    if (!train::benchmarkTrainingStep(*cfg, a.options, results, &error)) {
      std::cerr << a.cfg << ": " << error << "\n";
      return 1;
    }
    checkpointed.push_back(cfg->getBool("MODEL.ACT_CHECKPOINT"));
    if (a.json) {
      std::cout << toJson(results.front()).dump() << "\n";
      return results.front().finite ? 0 : 1;
    }
  }
  const auto device = system::probeDevices();
  const bool precisionTable = a.sub == "precision";
  std::cout << cfg->getString("MODEL.MODEL_NAME") << " (" << cfg->getString("MODEL.ARCH")
            << "), batch " << a.options.batch << ", " << cfg->getInt("DATA.NUM_FRAMES")
            << " frames at " << cfg->getInt("DATA.TRAIN_CROP_SIZE") << " px, "
            << (precisionTable ? (a.options.real_data ? "training data" : "synthetic clips")
                               : std::string("random clips"))
            << ", " << a.options.iterations << " timed steps after " << a.options.warmup
            << " warm-up; "
            << (results.front().device == "cpu"
                    ? "CPU " + std::to_string(device.cpu_cores) + " cores, BLAS " + device.blas
                    : results.front().device)
            << (results.front().device == "cpu"
                    ? std::string()
                    : std::string(", FP32 math: TF32 ") +
                          (results.front().tf32_cudnn ? "on" : "off") + " in cuDNN, " +
                          (results.front().tf32_cublas ? "on" : "off") + " in cuBLAS")
            << "\n"
            << std::fixed;
  const bool maxBatch = a.options.max_batch;
  // With --act-checkpoint both, each precision runs twice; "+ckpt" marks MODEL.ACT_CHECKPOINT on.
  std::vector<std::string> label;
  for (size_t i = 0; i < results.size(); ++i)
    label.push_back(results[i].precision + (checkpointed[i] ? "+ckpt" : ""));
  const int w = bothCheckpoint ? 14 : 9;
  if (precisionTable) {
    std::cout << std::left << std::setw(w + 2) << "precision" << std::right
              << "batch    it/s   clips/s  peak_MiB  data_wait_s  loss@"
              << a.options.warmup + a.options.iterations << "  skipped"
              << (maxBatch ? "  max_batch" : "") << "   (each precision in its own process)\n";
    for (const auto& r : results)
      std::cout << std::left << std::setw(w) << label[static_cast<size_t>(&r - results.data())]
                << std::right << std::setw(7) << r.batch << std::setprecision(3) << std::setw(8)
                << r.iterations_per_s << std::setprecision(1) << std::setw(10) << r.clips_per_s
                << std::setw(10) << static_cast<double>(r.peak_bytes) / (1024.0 * 1024.0)
                << std::setprecision(3) << std::setw(13) << r.data_wait_s << std::setprecision(4)
                << std::setw(9) << r.last_loss << std::setw(9) << r.skipped_steps
                << (maxBatch ? "  " + std::to_string(r.max_batch) : std::string())
                << (r.finite ? "" : "  NOT FINITE") << "\n";
  } else {
    std::cout << std::left << std::setw(w + 2) << "precision" << std::right
              << "step_s   fwd_s   bwd_s   it/s    clips/s  GFLOP/s  peak_MiB  loss first->last   "
                 "(each precision in its own process)\n";
    for (const auto& r : results)
      std::cout << std::left << std::setw(w) << label[static_cast<size_t>(&r - results.data())]
                << std::right << std::setprecision(3) << std::setw(8) << r.median_step_s
                << std::setw(8) << r.median_forward_s << std::setw(8) << r.median_backward_s
                << std::setw(8) << r.iterations_per_s << std::setw(10) << r.clips_per_s
                << std::setprecision(1) << std::setw(9) << r.achieved_flops / 1e9 << std::setw(10)
                << static_cast<double>(r.peak_bytes) / (1024.0 * 1024.0) << "  "
                << std::setprecision(4) << r.first_loss << " -> " << r.last_loss
                << (r.finite ? "" : "  NOT FINITE") << "\n";
  }
  if (bothCheckpoint) {  // activation checkpointing against none, per precision; then AMP against
                         // FP32 both ways
    auto ratio = [&](const train::StepBenchResult& x, const train::StepBenchResult& base,
                     const std::string& what) {
      std::cout << std::setprecision(2) << what << ": "
                << (x.median_step_s > 0 ? x.median_step_s / base.median_step_s : 0.0)
                << "x step time, "
                << (base.peak_bytes > 0
                        ? static_cast<double>(x.peak_bytes) / static_cast<double>(base.peak_bytes)
                        : 0.0)
                << "x peak memory";
      if (maxBatch && base.max_batch > 0)
        std::cout << ", " << static_cast<double>(x.max_batch) / base.max_batch << "x max batch";
      std::cout << "\n";
    };
    for (size_t i = 0; i + 1 < results.size(); i += 2) {
      const auto& plain = results[i];
      const auto& ckpt = results[i + 1];
      ratio(ckpt, plain, plain.precision + " with / without activation checkpointing");
      // What the time went to: the recomputation is one more forward of the checkpointed
      // segments inside the backward, so the step can take no less than (step + forward) / step.
      if (plain.median_forward_s > 0 && plain.median_step_s > 0)
        std::cout << std::setprecision(2) << "  " << plain.precision << ": backward "
                  << ckpt.median_backward_s << " s with vs " << plain.median_backward_s
                  << " s without, the extra "
                  << (ckpt.median_backward_s - plain.median_backward_s) / plain.median_forward_s
                  << "x the forward; forward is "
                  << 100.0 * plain.median_forward_s / plain.median_step_s
                  << "% of the plain step, so one recomputed forward costs at least "
                  << (plain.median_step_s + plain.median_forward_s) / plain.median_step_s
                  << "x step time\n";
    }
    if (results.front().precision == "fp32")
      for (size_t i = 2; i + 1 < results.size(); i += 2) {
        ratio(results[i], results[0], results[i].precision + " / fp32");
        ratio(results[i + 1], results[0], results[i + 1].precision + "+ckpt / fp32");
      }
  } else if (results.size() >= 2 && results.front().precision == "fp32") {
    const auto& f = results[0];
    for (size_t i = 1; i < results.size(); ++i) {
      const auto& m = results[i];
      if (m.median_step_s <= 0) continue;
      std::cout << std::setprecision(2) << m.precision
                << " / fp32: " << f.median_step_s / m.median_step_s << "x speed, "
                << (f.peak_bytes > 0
                        ? static_cast<double>(m.peak_bytes) / static_cast<double>(f.peak_bytes)
                        : 0.0)
                << "x peak memory";
      if (precisionTable)
        std::cout << std::setprecision(4) << ", loss " << m.last_loss - f.last_loss << " vs fp32";
      if (maxBatch && f.max_batch > 0)
        std::cout << std::setprecision(2) << ", " << static_cast<double>(m.max_batch) / f.max_batch
                  << "x max batch";
      std::cout << "\n";
    }
  }
  bool finite = true;
  for (const auto& r : results) finite = finite && r.finite;
  return finite ? 0 : 1;
}

struct OverheadArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  train::OverheadOptions options;
};

int runOverhead(const OverheadArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  train::OverheadOptions o = a.options;
  char tmpl[] = "/tmp/ampstudio-overhead-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::cerr << "bench overhead: cannot create a folder under /tmp\n";
    return 1;
  }
  o.work_dir = tmpl;
  train::OverheadResult r;
  std::string error;
  std::cout << "engine overhead: " << a.cfg << ", batch " << cfg->getInt("TRAIN.BATCH_SIZE") << ", "
            << o.rounds << " rounds of " << o.warmup << " + " << o.iterations
            << " iterations (one fixed random batch, no decoding; medians of per-iteration times)"
            << std::endl;
  const bool ok = train::benchmarkEngineOverhead(*cfg, o, r, &error);
  ::rmdir(tmpl);
  if (!ok) {
    std::cerr << "bench overhead: " << error << "\n";
    return 1;
  }
  std::cout << std::fixed << std::setprecision(2) << "device " << r.device << ", precision "
            << r.precision << "\n";
  for (std::size_t i = 0; i < r.bare_s.size(); ++i)
    std::cout << "round " << i + 1 << ": bare loop " << r.bare_s[i] * 1e3 << " ms/iter, trainer "
              << r.trainer_s[i] * 1e3 << " ms/iter (" << std::showpos
              << (r.trainer_s[i] / r.bare_s[i] - 1) * 100 << std::noshowpos << " %)\n";
  std::cout << "median: bare loop " << r.bare_median_s * 1e3 << " ms/iter, trainer "
            << r.trainer_median_s * 1e3 << " ms/iter\n"
            << "trainer between steps, outside the step (events, metrics log, progress, LR): "
            << std::setprecision(3) << r.bookkeeping_median_s * 1e3
            << " ms/iter = " << r.bookkeeping_median_s / r.bare_median_s * 100
            << " % of a bare step\n"
            << "trainer / bare (median of paired rounds): " << std::setprecision(4)
            << r.overhead + 1 << "  (overhead " << std::showpos << std::setprecision(2)
            << r.overhead * 100 << std::noshowpos << " %)\n";
  return 0;
}

}  // namespace

void addBenchStepCommand(CLI::App& bench, int& exitCode) {
  auto args = std::make_shared<StepArgs>();
  CLI::App* step = bench.add_subcommand(
      "step", "Forward + backward + optimizer step: FP32 vs mixed precision in one run");
  step->add_option("--cfg", args->cfg, "Config naming the model and input size")
      ->required()
      ->check(CLI::ExistingFile);
  step->add_option("--precision", args->precision,
                   "both (fp32 then amp), all (fp32, fp16 on CUDA, bf16), fp32, amp, bf16 or fp16")
      ->check(CLI::IsMember({"both", "all", "fp32", "amp", "bf16", "fp16"}));
  args->options.batch = 0;  // the config's TRAIN.BATCH_SIZE unless --batch says otherwise
  step->add_option("--batch", args->options.batch, "Clips per step (default TRAIN.BATCH_SIZE)")
      ->check(CLI::PositiveNumber);
  step->add_option("--iterations", args->options.iterations, "Timed steps")
      ->check(CLI::PositiveNumber);
  step->add_option("--warmup", args->options.warmup, "Untimed steps first")
      ->check(CLI::NonNegativeNumber);
  step->add_option("--threads", args->options.threads, "CPU threads (default: all cores)");
  step->add_flag("--max-batch", args->options.max_batch,
                 "Also find the largest batch each precision fits (CUDA)");
  step->add_option("--tf32", args->tf32,
                   "CUDA FP32 math: default (PyTorch's: TF32 in cuDNN, not in cuBLAS), on, or off "
                   "(IEEE FP32, as a V100)")
      ->check(CLI::IsMember({"default", "on", "off"}));
  step->add_option("--act-checkpoint", args->actCheckpoint,
                   "MODEL.ACT_CHECKPOINT: config (as the YAML says), off, on, or both (each "
                   "precision without and with)")
      ->check(CLI::IsMember({"config", "off", "on", "both"}));
  step->add_flag("--json", args->json, "One precision: print the result as one JSON line");
  acceptOverrides(step);
  step->callback([args, step, &exitCode] {
    args->overrides = overridesOf(step);
    exitCode = runStep(*args);
  });

  auto pargs = std::make_shared<StepArgs>();
  pargs->sub = "precision";
  pargs->options.real_data = true;
  pargs->options.iterations = 20;
  pargs->options.warmup = 2;
  pargs->options.batch = 0;
  auto synthetic = std::make_shared<bool>(false);
  CLI::App* prec = bench.add_subcommand("precision",
                                        "Train the config N iterations in FP32, then in mixed "
                                        "precision: speed, memory, loss and the AMP/FP32 ratios");
  prec->add_option("--cfg", pargs->cfg, "PySlowFast YAML config")
      ->required()
      ->check(CLI::ExistingFile);
  prec->add_option("--iters,--iterations", pargs->options.iterations,
                   "Timed iterations per precision (default 20)")
      ->check(CLI::PositiveNumber);
  prec->add_option("--warmup", pargs->options.warmup, "Untimed iterations first (default 2)")
      ->check(CLI::NonNegativeNumber);
  prec->add_option("--batch", pargs->options.batch,
                   "Clips per iteration (default TRAIN.BATCH_SIZE)")
      ->check(CLI::PositiveNumber);
  prec->add_option("--precision", pargs->precision,
                   "both (fp32 then amp), all (fp32, fp16 on CUDA, bf16), fp32, amp, bf16 or fp16")
      ->check(CLI::IsMember({"both", "all", "fp32", "amp", "bf16", "fp16"}));
  prec->add_option("--threads", pargs->options.threads, "CPU threads (default: all cores)");
  prec->add_flag("--synthetic", *synthetic,
                 "Random clips instead of the training set (no video decoding)");
  prec->add_flag("--max-batch", pargs->options.max_batch,
                 "Also find the largest batch each precision fits (CUDA)");
  prec->add_option("--tf32", pargs->tf32,
                   "CUDA FP32 math: default (PyTorch's: TF32 in cuDNN, not in cuBLAS), on, or off "
                   "(IEEE FP32, as a V100)")
      ->check(CLI::IsMember({"default", "on", "off"}));
  prec->add_option("--act-checkpoint", pargs->actCheckpoint,
                   "MODEL.ACT_CHECKPOINT: config (as the YAML says), off, on, or both (each "
                   "precision without and with)")
      ->check(CLI::IsMember({"config", "off", "on", "both"}));
  prec->add_flag("--json", pargs->json, "One precision: print the result as one JSON line");
  acceptOverrides(prec);
  prec->callback([pargs, prec, synthetic, &exitCode] {
    pargs->overrides = overridesOf(prec);
    pargs->options.real_data = !*synthetic;
    exitCode = runStep(*pargs);
  });

  auto oargs = std::make_shared<OverheadArgs>();
  CLI::App* over =
      bench.add_subcommand("overhead",
                           "The trainer's per-iteration cost against a bare LibTorch loop on the "
                           "same model and batch (no data decoding on either side)");
  over->add_option(
          "--cfg", oargs->cfg,
          "PySlowFast YAML config (model, clip shape, batch, optimizer; no dataset is read)")
      ->required()
      ->check(CLI::ExistingFile);
  over->add_option("--iters,--iterations", oargs->options.iterations,
                   "Timed iterations per round (default 20)")
      ->check(CLI::PositiveNumber);
  over->add_option("--warmup", oargs->options.warmup, "Untimed iterations first (default 5)")
      ->check(CLI::PositiveNumber);
  over->add_option("--rounds", oargs->options.rounds,
                   "Rounds of bare then trainer, paired (default 8)")
      ->check(CLI::PositiveNumber);
  acceptOverrides(over);
  over->callback([oargs, over, &exitCode] {
    oargs->overrides = overridesOf(over);
    exitCode = runOverhead(*oargs);
  });
}

}  // namespace amp::cli
