// ampstudio-cli bench multigrid: the config trained without and with multigrid (long and short
// cycles, as PySlowFast's *_multigrid.yaml), in FP32 and in mixed precision, one run after the
// other in this process: wall time to a validation top-1 accuracy, the final and best accuracy,
// optimizer steps, and the ratios, so the claim "multigrid trains N x faster at equal accuracy"
// comes from one invocation on one machine. --seeds repeats the pairs for several RNG_SEEDs:
// a small dataset's time to an accuracy moves with the seed, so the ratio is given as a range.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "multigrid/Schedule.h"
#include "train/Trainer.h"

namespace amp::cli {
namespace {

struct MultigridBenchArgs {
  std::string cfg;
  std::string out;
  std::vector<std::string> overrides;
  std::string precision = "both";  ///< fp32, mixed or both
  std::string cycles = "both";     ///< long, short or both: what the multigrid runs turn on
  double target = 90.0;            ///< validation top-1 accuracy (%) the time is measured to
  std::vector<std::int64_t>
      seeds;  ///< RNG_SEED values, each a plain/multigrid pair; empty: the config's
  bool json = false;
};

struct RunResult {
  std::string name;
  bool mixed = false, multigrid = false;
  std::int64_t seed = 0;  ///< RNG_SEED of the run
  bool finished = false;
  std::string error;
  std::int64_t steps = 0;
  int epochs = 0;
  double wall_s = 0;
  double time_to_target_s = -1;  ///< -1: not reached
  double epoch_at_target = -1;
  double final_top1 = -1, best_top1 = -1;  ///< accuracy %, -1: no validation
  double train_s = 0;                      ///< sum of iteration times (training alone)
};

RunResult runOne(const config::Config& base, const std::string& dir, bool mixed, bool multigrid,
                 std::optional<std::int64_t> seed, const MultigridBenchArgs& a) {
  RunResult r;
  r.mixed = mixed;
  r.multigrid = multigrid;
  r.name = std::string(multigrid ? "multigrid" : "plain") + "-" + (mixed ? "mixed" : "fp32") +
           (seed ? "-seed" + std::to_string(*seed) : std::string());
  config::Config c = base;
  if (seed) c.setOrThrow("RNG_SEED", *seed);
  r.seed = c.getInt("RNG_SEED");
  c.setOrThrow("OUTPUT_DIR", dir + "/" + r.name);
  c.setOrThrow("TRAIN.MIXED_PRECISION", mixed);
  c.setOrThrow("TEST.ENABLE",
               false);  // the multi-view test is the same work with and without multigrid
  c.setOrThrow("TRAIN.AUTO_RESUME", false);
  c.setOrThrow("MULTIGRID.LONG_CYCLE", multigrid && a.cycles != "short");
  c.setOrThrow("MULTIGRID.SHORT_CYCLE", multigrid && a.cycles != "long");
  if (multigrid)
    r.epochs = static_cast<int>(multigrid::buildSchedule(c).max_epoch);
  else
    r.epochs = static_cast<int>(c.getInt("SOLVER.MAX_EPOCH"));
  train::Trainer t(c, a.cfg);
  std::vector<runlog::MetricEvent> vals;
  double trainSeconds = 0, lastTime = 0;
  std::int64_t steps = 0;
  t.setEventSink([&](const runlog::MetricEvent& e) {
    lastTime = std::max(lastTime, e.time_s);
    if (e.kind == runlog::kind::kTrain) {
      ++steps;
      trainSeconds += e.value("iter_time_s").value_or(0);
    }
    if (e.kind == runlog::kind::kVal) {
      vals.push_back(e);
      if (!a.json)
        std::cerr << "  " << r.name << ": epoch " << e.epoch << ", " << std::fixed
                  << std::setprecision(1) << e.time_s << " s: val top-1 accuracy "
                  << 100.0 - e.value("top1_err").value_or(100) << "%\n";
    }
  });
  std::string error;
  if (!t.start(&error)) {
    r.error = error;
    return r;
  }
  t.wait();
  r.finished = t.state() == train::TrainerState::Finished;
  r.error = t.error();
  r.steps = steps;
  r.wall_s = lastTime;
  r.train_s = trainSeconds;
  for (const auto& v : vals) {
    const double acc = 100.0 - v.value("top1_err").value_or(100);
    r.best_top1 = std::max(r.best_top1, acc);
    r.final_top1 = acc;
    if (r.time_to_target_s < 0 && acc >= a.target) {
      r.time_to_target_s = v.time_s;
      r.epoch_at_target = v.epoch;
    }
  }
  return r;
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

std::string seconds(double s) {
  if (s < 0) return "not reached";
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << s << " s";
  return o.str();
}

int runBench(const MultigridBenchArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 1;
  if (a.out.empty()) {
    std::cerr << "bench multigrid: --out DIR is required (a new or empty folder for the runs)\n";
    return 2;
  }
  std::error_code ec;
  if (std::filesystem::exists(a.out) && !std::filesystem::is_empty(a.out, ec)) {
    std::cerr << "bench multigrid: --out " << a.out
              << " is not empty; the runs need a fresh folder (they would resume otherwise)\n";
    return 2;
  }
  std::vector<bool> precisions;
  if (a.precision == "fp32" || a.precision == "both") precisions.push_back(false);
  if (a.precision == "mixed" || a.precision == "both") precisions.push_back(true);
  std::vector<std::optional<std::int64_t>> seeds(a.seeds.begin(), a.seeds.end());
  if (seeds.empty()) seeds.push_back(std::nullopt);
  std::vector<RunResult> results;  // pairs: plain, then multigrid
  try {
    for (const auto& seed : seeds)
      for (bool mixed : precisions)
        for (bool mg : {false, true}) {
          if (!a.json)
            std::cerr << "running " << (mg ? "multigrid" : "plain") << ", "
                      << (mixed ? "mixed precision" : "FP32")
                      << (seed ? ", RNG_SEED " + std::to_string(*seed) : std::string()) << " ...\n";
          results.push_back(runOne(*cfg, a.out, mixed, mg, seed, a));
        }
  } catch (const std::exception& e) {
    std::cerr << "bench multigrid: " << e.what() << "\n";
    return 1;
  }
  if (a.json) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : results)
      runs.push_back({{"name", r.name},
                      {"mixed_precision", r.mixed},
                      {"multigrid", r.multigrid},
                      {"seed", r.seed},
                      {"finished", r.finished},
                      {"error", r.error},
                      {"epochs", r.epochs},
                      {"steps", r.steps},
                      {"wall_s", r.wall_s},
                      {"train_s", r.train_s},
                      {"time_to_target_s", r.time_to_target_s},
                      {"epoch_at_target", r.epoch_at_target},
                      {"final_top1", r.final_top1},
                      {"best_top1", r.best_top1}});
    std::cout << nlohmann::json{{"target_top1", a.target}, {"config", a.cfg}, {"runs", runs}}.dump(
                     2)
              << "\n";
  } else {
    std::cout << "bench multigrid: " << a.cfg << ", validation top-1 accuracy target " << a.target
              << "%\n\n";
    std::cout << std::left << std::setw(seeds.size() > 1 ? 24 : 17) << "run" << std::setw(8)
              << "epochs" << std::setw(8) << "steps" << std::setw(12) << "wall" << std::setw(16)
              << "to target" << std::setw(10) << "final"
              << "best\n";
    for (const auto& r : results) {
      std::ostringstream fin, best;
      fin << std::fixed << std::setprecision(1) << r.final_top1 << "%";
      best << std::fixed << std::setprecision(1) << r.best_top1 << "%";
      std::cout << std::left << std::setw(seeds.size() > 1 ? 24 : 17) << r.name << std::setw(8)
                << r.epochs << std::setw(8) << r.steps << std::setw(12) << seconds(r.wall_s)
                << std::setw(16) << seconds(r.time_to_target_s) << std::setw(10) << fin.str()
                << best.str()
                << (r.finished
                        ? ""
                        : "  (" + (r.error.empty() ? std::string("not finished") : r.error) + ")")
                << "\n";
    }
    std::cout << "\n";
    std::ostringstream targetText;  // default formatting: 90, 92.5
    targetText << a.target;
    const std::string target = targetText.str();
    for (size_t i = 0; i + 1 < results.size(); i += 2) {
      const RunResult &plain = results[i], &mg = results[i + 1];
      std::cout << (plain.mixed ? "mixed precision" : "FP32")
                << (seeds.size() > 1 ? ", RNG_SEED " + std::to_string(plain.seed) : "")
                << ": multigrid ";
      if (plain.time_to_target_s > 0 && mg.time_to_target_s > 0)
        std::cout << std::fixed << std::setprecision(2)
                  << plain.time_to_target_s / mg.time_to_target_s << "x faster to " << target
                  << "%";
      else
        std::cout << "speed to " << target << "%: not comparable (a run did not reach it)";
      std::cout << ", " << std::fixed << std::setprecision(2)
                << plain.wall_s / std::max(mg.wall_s, 1e-9)
                << "x less wall time over the run, final accuracy " << std::setprecision(1)
                << mg.final_top1 - plain.final_top1 << " points\n";
    }
    if (seeds.size() > 1)
      for (bool mixed : precisions) {  // the range over the seeds, and its median
        std::vector<double> speedups, accuracy;
        int pairs = 0;
        for (size_t i = 0; i + 1 < results.size(); i += 2) {
          if (results[i].mixed != mixed) continue;
          ++pairs;
          accuracy.push_back(results[i + 1].final_top1 - results[i].final_top1);
          if (results[i].time_to_target_s > 0 && results[i + 1].time_to_target_s > 0)
            speedups.push_back(results[i].time_to_target_s / results[i + 1].time_to_target_s);
        }
        std::sort(speedups.begin(), speedups.end());
        std::sort(accuracy.begin(), accuracy.end());
        std::cout << (mixed ? "mixed precision" : "FP32") << " over " << pairs
                  << " seeds: multigrid ";
        if (speedups.empty()) {
          std::cout << "never reached " << target << "% in both runs of a seed";
        } else {
          const size_t n = speedups.size();
          const double median =
              n % 2 ? speedups[n / 2] : 0.5 * (speedups[n / 2 - 1] + speedups[n / 2]);
          std::cout << fixed(speedups.front(), 2) << "-" << fixed(speedups.back(), 2)
                    << "x faster to " << target << "% (median " << fixed(median, 2) << "x"
                    << (static_cast<int>(n) < pairs
                            ? ", " + std::to_string(n) + " of the seeds reached it"
                            : "")
                    << ")";
        }
        std::cout << ", final accuracy " << fixed(accuracy.front(), 1) << " to "
                  << fixed(accuracy.back(), 1) << " points\n";
      }
    if (results.size() == 4 && seeds.size() == 1)
      std::cout << "mixed precision with multigrid vs FP32 without: " << std::fixed
                << std::setprecision(2) << results[0].wall_s / std::max(results[3].wall_s, 1e-9)
                << "x less wall time\n";
    std::cout
        << "(one machine, runs one after another: ratios, not absolute times, are the result)\n";
  }
  for (const auto& r : results)
    if (!r.finished) return 1;
  return 0;
}

}  // namespace

void addBenchMultigridCommand(CLI::App& bench, int& exitCode) {
  auto args = std::make_shared<MultigridBenchArgs>();
  CLI::App* mg = bench.add_subcommand(
      "multigrid",
      "The config without and with multigrid, in FP32 and mixed precision: time to a validation "
      "accuracy, final accuracy and steps, side by side");
  mg->add_option("--cfg", args->cfg,
                 "PySlowFast YAML config (the plain run; multigrid runs add MULTIGRID.* cycles)")
      ->required();
  mg->add_option("--out", args->out,
                 "New or empty folder the runs are written to (one folder each)")
      ->required();
  mg->add_option("--precision", args->precision, "fp32, mixed or both")
      ->check(CLI::IsMember({"fp32", "mixed", "both"}));
  mg->add_option(
        "--cycles", args->cycles,
        "What the multigrid runs turn on: long, short or both (PySlowFast's multigrid configs)")
      ->check(CLI::IsMember({"long", "short", "both"}));
  mg->add_option("--target", args->target,
                 "Validation top-1 accuracy (%) to measure the time to (default 90)");
  mg->add_option("--seeds", args->seeds,
                 "RNG_SEED values, comma-separated: a plain and a multigrid run for each, and the "
                 "range of the ratios "
                 "(default: the config's seed)")
      ->delimiter(',');
  mg->add_flag("--json", args->json, "Print one JSON object");
  acceptOverrides(mg);
  mg->callback([args, mg, &exitCode] {
    args->overrides = overridesOf(mg);
    exitCode = runBench(*args);
  });
}

}  // namespace amp::cli
