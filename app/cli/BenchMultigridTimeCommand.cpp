// ampstudio-cli bench multigrid-time: what the training steps of a run cost on this device
// without and with multigrid, in each precision, without training the run: every shape either
// schedule trains at is timed on random clips (forward, loss, backward, optimizer step; median of
// a few steps) and priced by how many steps the schedule takes at it. This is the compute side of
// multigrid's claim (Wu et al. report 4.5x less wall time for SlowFast R50 on Kinetics) measured
// on one GPU for a config such as PySlowFast's SLOWFAST_8x8_R50_stepwise_multigrid.yaml, where
// training to accuracy takes days. Decoding, evaluation, checkpoints and the gradient all-reduce
// between processes are left out and said so.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "CliConfig.h"
#include "Commands.h"
#include "config/BatchLayout.h"
#include "data/Dataset.h"
#include "multigrid/Schedule.h"
#include "multigrid/TrainingSteps.h"
#include "system/DeviceInfo.h"
#include "train/MultigridTiming.h"
#include "train/StepBenchmark.h"

namespace amp::cli {
namespace {

struct TimeArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  std::string cycles =
      "config";  ///< config (the file's cycles, both when it has none), long, short or both
  std::string precision = "both";  ///< as bench step: both, all, fp32, amp, bf16, fp16
  std::int64_t samples = 0;        ///< training videos; 0: count the config's training list
  int iterations = 5, warmup = 2, rounds = 3;
  bool json = false;
};

// Seconds in one unit for a whole table, chosen by its largest value: s, min or h.
struct Unit {
  double seconds = 1;
  const char* name = "s";
};
Unit unitFor(double largestSeconds) {
  if (largestSeconds >= 5 * 3600) return {3600, "h"};
  if (largestSeconds >= 300) return {60, "min"};
  return {};
}
std::string duration(double s, const Unit& u) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << s / u.seconds << " " << u.name;
  return o.str();
}

// "2.10x less" or, when multigrid costs more, "1.09x more".
std::string lessOrMore(double plainSeconds, double mgSeconds) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2);
  if (plainSeconds >= mgSeconds)
    o << plainSeconds / mgSeconds << "x less";
  else
    o << mgSeconds / plainSeconds << "x more";
  return o.str();
}

std::string cyclesText(const config::Config& c) {
  const bool l = c.getBool("MULTIGRID.LONG_CYCLE"), s = c.getBool("MULTIGRID.SHORT_CYCLE");
  return l && s ? "long and short cycles" : l ? "long cycles" : "short cycles";
}

int runTime(const TimeArgs& a) {
  auto loaded = loadConfigForCommand(a.cfg, a.overrides);
  if (!loaded) return 2;
  const config::Config& cfg = *loaded;
  config::Config plain = cfg, mg = cfg;
  try {
    const bool fileHasCycles =
        cfg.getBool("MULTIGRID.LONG_CYCLE") || cfg.getBool("MULTIGRID.SHORT_CYCLE");
    const std::string cycles = a.cycles == "config"
                                   ? (fileHasCycles ? std::string("config") : std::string("both"))
                                   : a.cycles;
    plain.setOrThrow("MULTIGRID.LONG_CYCLE", false);
    plain.setOrThrow("MULTIGRID.SHORT_CYCLE", false);
    if (cycles != "config") {
      mg.setOrThrow("MULTIGRID.LONG_CYCLE", cycles != "short");
      mg.setOrThrow("MULTIGRID.SHORT_CYCLE", cycles != "long");
    }
  } catch (const std::exception& e) {
    std::cerr << a.cfg << ": " << e.what() << "\n";
    return 2;
  }
  if (cfg.getInt("SOLVER.GRAD_ACCUM_STEPS") !=
      1) {  // a step would be several timed micro-batches; not modelled
    std::cerr << "bench multigrid-time: SOLVER.GRAD_ACCUM_STEPS "
              << cfg.getInt("SOLVER.GRAD_ACCUM_STEPS")
              << ": the estimate prices one batch per optimizer step; set it to 1 (a step of "
                 "accumulated micro-batches is not modelled)\n";
    return 2;
  }
  multigrid::Schedule schedule;
  try {
    schedule = multigrid::buildSchedule(mg);
  } catch (const std::exception& e) {
    std::cerr << a.cfg << ": " << e.what() << "\n";
    return 2;
  }

  std::int64_t samples = a.samples;
  if (samples == 0) {
    data::SampleList list;
    std::string err;
    if (!data::readSampleList(cfg, data::Split::Train, list, &err)) {
      std::cerr
          << "bench multigrid-time: the number of training clips comes from the training list, "
             "which cannot be read ("
          << err
          << "); pass --samples N (the videos in your train.csv) or set DATA.PATH_TO_DATA_DIR\n";
      return 2;
    }
    samples = static_cast<std::int64_t>(list.videos.size());
  }
  const int world = config::configuredWorldSize(cfg);
  const auto plainSteps = multigrid::plainRunSteps(plain, samples);
  const auto mgSteps = multigrid::multigridRunSteps(mg, schedule, samples);
  if (plainSteps.totalSteps() == 0 || mgSteps.totalSteps() == 0) {
    std::cerr << "bench multigrid-time: " << samples << " training clips over " << world
              << (world > 1 ? " processes" : " process")
              << " make no whole batch in a run; pass a larger --samples\n";
    return 2;
  }
  for (const auto& p : mgSteps.phases)
    if (p.stepsPerEpoch() == 0) {  // the trainer stops there: "no full optimizer step"
      std::cerr << "bench multigrid-time: multigrid phase " << p.phase
                << " makes no whole batch of " << plainSteps.samples_per_process
                << " clips per process, and training would stop there; pass a larger --samples\n";
      return 2;
    }

  const bool cuda = cfg.getInt("NUM_GPUS") > 0;
  std::vector<std::string> precisions;
  if (a.precision == "both")
    precisions = {"fp32", "amp"};
  else if (a.precision == "all")
    precisions = cuda ? std::vector<std::string>{"fp32", "fp16", "bf16"}
                      : std::vector<std::string>{"fp32", "bf16"};
  else
    precisions = {a.precision};

  train::MultigridTimingOptions o;
  o.iterations = a.iterations;
  o.warmup = a.warmup;
  o.rounds = a.rounds;
  o.precisions = precisions;
  if (!a.json) {
    o.on_shape = [&](int round, const multigrid::StepShape& sh) {
      std::cerr << "round " << round + 1 << "/" << a.rounds << ", timing " << sh.text() << " ..."
                << std::flush;
    };
    o.on_shape_timed = [](const std::vector<train::StepBenchResult>& results) {
      for (const auto& r : results)
        std::cerr << " " << r.precision << " " << std::fixed << std::setprecision(3)
                  << r.median_step_s << " s";
      std::cerr << "\n";
    };
  }
  train::MultigridTiming timing;
  std::string error;
  if (!train::timeMultigridShapes(plain, mg, plainSteps, mgSteps, o, timing, &error)) {
    if (!a.json) std::cerr << "\n";
    std::cerr << "bench multigrid-time: " << error << "\n";
    return 1;
  }
  const auto& shapes = timing.shapes;
  const auto& labels = timing.labels;
  const auto& timed = timing.timed;
  const auto& roundSeconds = timing.round_seconds;
  const std::string& device = timing.device;
  auto stepSeconds = [&](std::size_t k) { return timing.stepSeconds(k); };
  const bool onCuda = device != "cpu";
  std::vector<double> plainS, mgS;
  for (size_t k = 0; k < labels.size(); ++k) {
    plainS.push_back(plainSteps.seconds(stepSeconds(k)));
    mgS.push_back(mgSteps.seconds(stepSeconds(k)));
  }

  const Unit unit = unitFor(std::max(*std::max_element(plainS.begin(), plainS.end()),
                                     *std::max_element(mgS.begin(), mgS.end())));
  if (a.json) {
    using nlohmann::json;
    json js = json::array();
    for (size_t i = 0; i < shapes.size(); ++i) {
      json t = json::object();
      for (size_t k = 0; k < timed[i].size(); ++k) {
        const auto& r = timed[i][k];
        t[r.precision] = {{"median_step_s", r.median_step_s},
                          {"round_step_s", roundSeconds[i][k]},
                          {"clips_per_s", r.clips_per_s},
                          {"peak_bytes", onCuda ? r.peak_bytes : 0}};
      }
      js.push_back({{"clips", shapes[i].clips},
                    {"frames", shapes[i].frames},
                    {"crop", shapes[i].crop},
                    {"norm_type", shapes[i].norm_type},
                    {"bn_count", shapes[i].bn_count},
                    {"step", t}});
    }
    auto runJson = [&](const multigrid::RunSteps& r, const std::vector<double>& totals) {
      json phases = json::array();
      for (const auto& p : r.phases) {
        json per = json::array(), secs = json::object();
        for (const auto& e : p.per_epoch)
          per.push_back({{"shape", e.shape.text()}, {"steps", e.steps}});
        for (size_t k = 0; k < labels.size(); ++k)
          secs[labels[k]] = multigrid::RunSteps::phaseSeconds(p, stepSeconds(k));
        phases.push_back({{"phase", p.phase},
                          {"start_epoch", p.start_epoch},
                          {"end_epoch", p.end_epoch},
                          {"steps_per_epoch", p.stepsPerEpoch()},
                          {"per_epoch", per},
                          {"seconds", secs}});
      }
      json tot = json::object();
      for (size_t k = 0; k < labels.size(); ++k) tot[labels[k]] = totals[k];
      return json{{"steps", r.totalSteps()}, {"phases", phases}, {"seconds", tot}};
    };
    std::cout << json{{"config", a.cfg},
                      {"cycles", cyclesText(mg)},
                      {"samples", samples},
                      {"world_size", world},
                      {"samples_per_process", plainSteps.samples_per_process},
                      {"device", device},
                      {"iterations", a.iterations},
                      {"warmup", a.warmup},
                      {"rounds", a.rounds},
                      {"not_counted",
                       "decoding, evaluation and precise BN, checkpoints, the gradient all-reduce "
                       "between processes, "
                       "sync batch norm's exchange (its shapes are timed with plain batch norm)"},
                      {"precisions", labels},
                      {"shapes", js},
                      {"plain", runJson(plainSteps, plainS)},
                      {"multigrid", runJson(mgSteps, mgS)},
                      {"iteration_saving", static_cast<double>(plainSteps.totalSteps()) /
                                               static_cast<double>(mgSteps.totalSteps())}}
                     .dump(2)
              << "\n";
    return 0;
  }

  const auto probe = system::probeDevices();
  std::cout << "bench multigrid-time: " << a.cfg << ", " << cyclesText(mg) << "; " << samples
            << " training clips over " << world << " process" << (world > 1 ? "es" : "") << " ("
            << plainSteps.samples_per_process << " per process and epoch)\n"
            << "each shape's step (forward, loss, backward, optimizer) on random clips, median of "
            << a.iterations << " after " << a.warmup << " warm-up, median of " << a.rounds
            << " round" << (a.rounds > 1 ? "s" : "") << " over the shapes, on "
            << (onCuda ? device : "the CPU (" + std::to_string(probe.cpu_cores) + " cores)")
            << "; not counted: decoding, evaluation and precise BN, checkpoints"
            << (world > 1 ? ", the gradient all-reduce between processes" : "") << "\n\n";
  std::cout << std::left << std::setw(40) << "step shape (clips x frames x crop, BN)";
  for (const auto& l : labels) {
    std::cout << std::right << std::setw(13) << l + " s/step";
    if (onCuda) std::cout << std::setw(12) << "peak MiB";
  }
  std::cout << "\n";
  bool syncTimedPlain = false;
  for (size_t i = 0; i < shapes.size(); ++i) {
    std::cout << std::left << std::setw(40) << shapes[i].text() << std::right << std::fixed;
    for (const auto& r : timed[i]) {
      std::cout << std::setprecision(4) << std::setw(13) << r.median_step_s;
      if (onCuda)
        std::cout << std::setprecision(0) << std::setw(12)
                  << static_cast<double>(r.peak_bytes) / (1024.0 * 1024.0);
    }
    syncTimedPlain = syncTimedPlain || shapes[i].norm_type == "sync_batchnorm";
    std::cout << "\n";
  }
  if (syncTimedPlain)
    std::cout << "(sync_batchnorm shapes are timed with plain batch norm: one device has nothing "
                 "to synchronise with)\n";

  std::cout << "\n"
            << std::left << std::setw(14) << "run" << std::setw(10) << "epochs" << std::setw(13)
            << "steps/epoch";
  for (const auto& l : labels) std::cout << std::setw(12) << l;
  std::cout << "\n";
  auto row = [&](const std::string& name, const multigrid::PhaseSteps& p) {
    std::cout << std::left << std::setw(14) << name << std::setw(10)
              << std::to_string(p.start_epoch) + "-" + std::to_string(p.end_epoch) << std::setw(13)
              << p.stepsPerEpoch();
    for (size_t k = 0; k < labels.size(); ++k)
      std::cout << std::setw(12)
                << duration(multigrid::RunSteps::phaseSeconds(p, stepSeconds(k)), unit);
    std::cout << "\n";
  };
  for (const auto& p : plainSteps.phases) row("plain", p);
  for (const auto& p : mgSteps.phases) row("multigrid " + std::to_string(p.phase), p);
  std::cout << std::left << std::setw(14) << "multigrid" << std::setw(10)
            << "0-" + std::to_string(schedule.max_epoch) << std::setw(13) << "";
  for (size_t k = 0; k < labels.size(); ++k) std::cout << std::setw(12) << duration(mgS[k], unit);
  std::cout << "\n\n" << std::fixed << std::setprecision(2);
  for (size_t k = 0; k < labels.size(); ++k)
    std::cout << labels[k] << ": multigrid's " << mgSteps.totalSteps() << " steps take "
              << duration(mgS[k], unit) << " against the plain run's " << plainSteps.totalSteps()
              << " in " << duration(plainS[k], unit) << ": " << lessOrMore(plainS[k], mgS[k])
              << "\n";
  for (size_t k = 1; k < labels.size(); ++k)
    if (labels.front() == "fp32")
      std::cout << labels[k]
                << " with multigrid against fp32 without: " << lessOrMore(plainS[0], mgS[k])
                << "\n";
  std::cout
      << "steps alone: "
      << static_cast<double>(plainSteps.totalSteps()) / static_cast<double>(mgSteps.totalSteps())
      << "x fewer; the rest of the difference is what a step at each shape costs on this device\n";
  return 0;
}

}  // namespace

void addBenchMultigridTimeCommand(CLI::App& bench, int& exitCode) {
  auto args = std::make_shared<TimeArgs>();
  CLI::App* t =
      bench.add_subcommand("multigrid-time",
                           "What a run's training steps cost without and with multigrid on this "
                           "device: each shape timed on random clips, priced by the "
                           "schedule's steps at it (no training to accuracy)");
  t->add_option(
       "--cfg", args->cfg,
       "PySlowFast YAML config (a *_multigrid.yaml, or a plain one: --cycles says what to turn on)")
      ->required()
      ->check(CLI::ExistingFile);
  t->add_option("--cycles", args->cycles,
                "config (the file's MULTIGRID cycles; both when it has none), long, short or both")
      ->check(CLI::IsMember({"config", "long", "short", "both"}));
  t->add_option("--precision", args->precision,
                "both (fp32 then amp), all (fp32, fp16 on CUDA, bf16), fp32, amp, bf16 or fp16")
      ->check(CLI::IsMember({"both", "all", "fp32", "amp", "bf16", "fp16"}));
  t->add_option("--samples", args->samples,
                "Training videos per epoch (default: the lines of DATA.PATH_TO_DATA_DIR/train.csv)")
      ->check(CLI::PositiveNumber);
  t->add_option("--iterations", args->iterations, "Timed steps per shape and precision (default 5)")
      ->check(CLI::PositiveNumber);
  t->add_option("--warmup", args->warmup,
                "Untimed steps first (default 2; on CUDA cuDNN searches its algorithms there)")
      ->check(CLI::NonNegativeNumber);
  t->add_option("--rounds", args->rounds,
                "Rounds over all shapes; each shape's time is the median of its rounds (default 3)")
      ->check(CLI::PositiveNumber);
  t->add_flag("--json", args->json, "Print one JSON object");
  acceptOverrides(t);
  t->callback([args, t, &exitCode] {
    args->overrides = overridesOf(t);
    exitCode = runTime(*args);
  });
}

}  // namespace amp::cli
