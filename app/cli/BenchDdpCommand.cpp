// ampstudio-cli bench ddp: what data-parallel synchronisation costs, side by side in one run:
// the same global batch as one process with every core, then as N processes sharing the cores
// (Gloo on the CPU), with the gradient all-reduce time per step, alone and as it overlaps backward.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "Launcher.h"
#include "train/DdpBenchmark.h"

namespace amp::cli {
namespace {

struct DdpArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  int processes = 2;
  std::string out;  ///< worker: where its JSON goes
  train::DdpBenchOptions options;
};

std::vector<std::string> workerArgs(const DdpArgs& a, const std::string& out, bool groupOfOne) {
  std::vector<std::string> args = {"bench",    "ddp-worker",
                                   "--cfg",    a.cfg,
                                   "--batch",  std::to_string(a.options.global_batch),
                                   "--iters",  std::to_string(a.options.iterations),
                                   "--warmup", std::to_string(a.options.warmup),
                                   "--out",    out};
  if (groupOfOne) args.push_back("--group-of-one");
  args.insert(args.end(), a.overrides.begin(), a.overrides.end());
  return args;
}

int runWorker(const DdpArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  std::string error;
  auto env = dist::distEnvFromEnvironment([](const char* k) { return std::getenv(k); }, &error);
  if (!env) env = dist::DistEnv{};
  train::DdpBenchResult r;
  if (!train::benchmarkDataParallelWorker(*cfg, *env, a.options, r, &error)) {
    std::cerr << "[rank " << env->rank << "] " << error << "\n";
    return 1;
  }
  if (env->rank != 0) return 0;
  const nlohmann::json j = {{"world_size", r.world_size},
                            {"group_of_one", a.options.group_of_one},
                            {"threads", r.threads},
                            {"precision", r.precision},
                            {"device", r.device},
                            {"batch_per_rank", r.batch_per_rank},
                            {"median_step_s", r.median_step_s},
                            {"median_sync_wait_s", r.median_sync_wait_s},
                            {"allreduce_alone_s", r.allreduce_alone_s},
                            {"buckets", r.buckets},
                            {"buckets_in_backward", r.buckets_in_backward},
                            {"gradient_bytes", r.gradient_bytes},
                            {"last_loss", r.last_loss}};
  std::ofstream(a.out) << j.dump() << "\n";
  return 0;
}

int runBench(const DdpArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  const bool cuda = cfg->getInt("NUM_GPUS") > 0;
  const std::string backend = cuda ? cfg->getString("DIST_BACKEND") : "gloo";
  char tmpl[] = "/tmp/ampstudio-bench-ddp-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::cerr << "cannot create a temporary folder\n";
    return 1;
  }
  const std::string dir = tmpl;
  std::vector<nlohmann::json> results;
  // Side 1: one process, no synchronisation. Side 2: N processes over the backend (N = 1: one
  // process that still all-reduces its gradients through a one-rank group).
  for (int side = 0; side < 2; ++side) {
    const int processes = side == 0 ? 1 : a.processes;
    LaunchPlan plan;
    plan.quiet = true;
    plan.processes = processes;
    plan.init_method = "file://" + dir + "/store-" + std::to_string(side);
    const std::string out = dir + "/result-" + std::to_string(side) + ".json";
    plan.worker_args = workerArgs(a, out, side == 1 && processes == 1);
    if (launchWorkers(plan) != 0) {
      std::filesystem::remove_all(dir);
      return 1;
    }
    std::ifstream in(out);
    results.push_back(nlohmann::json::parse(in, nullptr, false));
    if (results.back().is_discarded()) {
      std::cerr << "the " << processes << "-process run wrote no result\n";
      std::filesystem::remove_all(dir);
      return 1;
    }
  }
  std::filesystem::remove_all(dir);
  const auto& one = results[0];
  const auto& many = results[1];
  const double b = a.options.global_batch;
  auto row = [&](const nlohmann::json& r) {
    const int w = r["world_size"], t = r["threads"];
    std::ostringstream label;
    label << w << (w == 1 ? " process  x " : " processes x ");
    if (cuda)
      label << "1 GPU";
    else
      label << t << (t == 1 ? " thread " : " threads");
    if (r.value("group_of_one", false)) label << " + " << backend;
    std::cout << std::left << std::setw(32) << label.str() << std::right << std::fixed
              << std::setprecision(3) << " step " << r["median_step_s"].get<double>() << " s  "
              << std::setprecision(2) << b / r["median_step_s"].get<double>() << " clips/s\n";
  };
  std::cout << "bench ddp: " << cfg->getString("MODEL.MODEL_NAME") << " ("
            << cfg->getString("MODEL.ARCH") << "), " << one["precision"].get<std::string>()
            << ", global batch " << a.options.global_batch << " ("
            << many["batch_per_rank"].get<int>() << " per process), random clips, median of "
            << a.options.iterations << " steps after " << a.options.warmup << " warm-up"
            << (cuda || a.processes > 1 ? ", " + backend : std::string()) << "\n";
  row(one);
  row(many);
  const double stepOne = one["median_step_s"], stepMany = many["median_step_s"];
  const double wait = many["median_sync_wait_s"], alone = many["allreduce_alone_s"];
  std::cout << std::fixed << std::setprecision(2) << "throughput " << a.processes
            << (a.processes == 1 ? " process" : " processes")
            << (a.processes == 1 ? " synchronised" : "") << " / 1 process: " << stepOne / stepMany
            << "x\n"
            << "gradients: " << std::setprecision(1)
            << many["gradient_bytes"].get<double>() / (1 << 20) << " MiB in "
            << many["buckets"].get<int>() << " bucket(s), "
            << many["buckets_in_backward"].get<int>() << " launched while backward ran\n"
            << std::setprecision(4) << "all-reduce alone " << alone << " s per step; waited "
            << wait << " s after backward (" << std::setprecision(0)
            << (alone > 0 ? 100.0 * std::clamp(1.0 - wait / alone, 0.0, 1.0) : 0.0)
            << "% hidden behind backward)\n"
            << std::setprecision(1) << "synchronisation adds "
            << (stepMany > 0 ? 100.0 * wait / (stepMany - wait) : 0.0)
            << "% to a step (the wait after backward / the rest of the step)\n";
  return 0;
}

}  // namespace

void addBenchDdpCommand(CLI::App& bench, int& exitCode) {
  auto a = std::make_shared<DdpArgs>();
  CLI::App* ddp =
      bench.add_subcommand("ddp",
                           "Data-parallel cost: the same global batch as 1 process and as N "
                           "processes (CPU: over Gloo, sharing the cores; NUM_GPUS > 0: "
                           "one GPU each, over DIST_BACKEND); --processes 1 synchronises one "
                           "process through a one-rank group (the reducer's own cost)");
  ddp->add_option("--cfg", a->cfg, "PySlowFast YAML config")->required()->check(CLI::ExistingFile);
  ddp->add_option("--processes", a->processes,
                  "Processes of the data-parallel side (default 2; 1: a one-rank group)")
      ->check(CLI::Range(1, 64));
  ddp->add_option("--batch", a->options.global_batch,
                  "Global batch (clips per step over all processes; default 2)")
      ->check(CLI::PositiveNumber);
  ddp->add_option("--iters", a->options.iterations, "Timed steps per side (default 5)")
      ->check(CLI::PositiveNumber);
  ddp->add_option("--warmup", a->options.warmup, "Untimed steps first (default 1)")
      ->check(CLI::NonNegativeNumber);
  acceptOverrides(ddp);
  ddp->callback([a, ddp, &exitCode] {
    a->overrides = overridesOf(ddp);
    exitCode = runBench(*a);
  });
  // The worker side, started by bench ddp itself.
  auto w = std::make_shared<DdpArgs>();
  CLI::App* worker = bench.add_subcommand("ddp-worker", "");  // empty description: hidden from help
  worker->add_option("--cfg", w->cfg)->required();
  worker->add_option("--batch", w->options.global_batch);
  worker->add_option("--iters", w->options.iterations);
  worker->add_option("--warmup", w->options.warmup);
  worker->add_option("--out", w->out)->required();
  worker->add_flag("--group-of-one", w->options.group_of_one);
  acceptOverrides(worker);
  worker->callback([w, worker, &exitCode] {
    w->overrides = overridesOf(worker);
    exitCode = runWorker(*w);
  });
}

}  // namespace amp::cli
