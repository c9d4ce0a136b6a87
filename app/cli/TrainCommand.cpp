// ampstudio-cli train: one training run, headless; Ctrl-C stops it cleanly with a checkpoint.
// ampstudio-cli test: the multi-view test of a checkpoint.
#include <unistd.h>

#include <csignal>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "CliConfig.h"
#include "Commands.h"
#include "Launcher.h"
#include "PreflightReport.h"
#include "RunText.h"
#include "config/BatchLayout.h"
#include "dist/DistEnv.h"
#include "metrics/ClassGroups.h"
#include "metrics/ConfusionRecord.h"
#include "train/Tester.h"
#include "train/Trainer.h"
#include "util/Duration.h"

namespace amp::cli {
namespace {

volatile std::sig_atomic_t gStop = 0;
volatile std::sig_atomic_t gPause =
    -1;  // SIGUSR1: 1 (pause), SIGUSR2: 0 (resume); the studio's Pause reaches every rank

// PySlowFast's launch flags; the config keys they set (SHARD_ID, NUM_SHARDS) stay the truth.
struct LaunchFlags {
  std::string init_method = "tcp://localhost:9999";
  std::string source;  ///< what run.json names as the config's origin (default: --cfg)
  int shard_id = -1, num_shards = -1;
  bool dry_run = false;          ///< train --dry-run: the pre-flight checks only
  bool no_memory_check = false;  ///< --no-memory-check: no measured step
};

// Where this process stands in a multi-process job: started by a launcher, torchrun or Slurm
// (`env` set, checked against the config), or the first process of a config that asks for
// several, which starts this machine's workers running `command` and returns their exit code.
// nullopt: go on in this process.
std::optional<int> joinOrLaunch(const char* command, const std::string& path,
                                const std::vector<std::string>& overrides, const LaunchFlags& flags,
                                const std::vector<std::string>& extraArgs,
                                const config::Config& cfg, std::optional<dist::DistEnv>& env) {
  std::string envError;
  env = dist::distEnvFromEnvironment([](const char* k) { return std::getenv(k); }, &envError);
  if (!envError.empty()) {
    std::cerr << path << ": " << envError << "\n";
    return 2;
  }
  if (!env &&
      config::configuredWorldSize(cfg) > 1) {  // this process starts the workers of its machine
    std::string why;
    if (flags.init_method.rfind("file://", 0) != 0) {
      std::string host;
      int port = 0;
      if (!dist::parseTcpInitMethod(flags.init_method, host, port, &why)) {
        std::cerr << "--init-method: " << why << " (or file:///PATH on a shared filesystem)\n";
        return 2;
      }
    }
    LaunchPlan plan;
    plan.processes = config::processesPerShard(cfg);
    plan.shard_id = static_cast<int>(cfg.getInt("SHARD_ID"));
    plan.num_shards = static_cast<int>(cfg.getInt("NUM_SHARDS"));
    plan.init_method = flags.init_method;
    plan.worker_args = {command, "--cfg", path};
    plan.worker_args.insert(plan.worker_args.end(), extraArgs.begin(), extraArgs.end());
    plan.worker_args.insert(plan.worker_args.end(), overrides.begin(), overrides.end());
    return launchWorkers(plan);
  }
  if (env) {  // refused before anything is written: the config decides the layout, not the launcher
    if (const auto misfit = dist::checkAgainstConfig(*env, cfg)) {
      std::cerr << path << ": " << *misfit << "\n";
      return 2;
    }
  }
  return std::nullopt;
}

// PySlowFast's --shard-id / --num-shards flags as the config keys they set.
void addShardOverrides(const LaunchFlags& flags, std::vector<std::string>& overrides) {
  if (flags.shard_id >= 0)
    overrides.insert(overrides.end(), {"SHARD_ID", std::to_string(flags.shard_id)});
  if (flags.num_shards >= 0)
    overrides.insert(overrides.end(), {"NUM_SHARDS", std::to_string(flags.num_shards)});
}

int runTrain(const std::string& path, std::vector<std::string> overrides,
             const LaunchFlags& flags) {
  // First thing: a launcher may forward a stop or pause before the trainer exists, and the
  // default action of these signals would end the process.
  std::signal(SIGINT, [](int) { gStop = 1; });
  std::signal(SIGUSR1, [](int) { gPause = 1; });
  std::signal(SIGUSR2, [](int) { gPause = 0; });
  addShardOverrides(flags, overrides);
  config::Diagnostics checked;
  auto cfg = loadConfigForCommand(path, overrides, flags.dry_run ? &checked : nullptr);
  if (!cfg) return 2;
  if (flags.dry_run)
    return reportPreflight(*cfg, path, PreflightFlags{!flags.no_memory_check}, checked);
  std::optional<dist::DistEnv> env;
  std::vector<std::string> extra;
  if (!flags.source.empty()) extra = {"--source", flags.source};
  if (const auto launched = joinOrLaunch("train", path, overrides, flags, extra, *cfg, env))
    return *launched;
  const bool mainRank = !env || env->rank == 0;
  train::Trainer trainer(*cfg, flags.source.empty() ? path : flags.source);
  if (env) trainer.setDistributed(*env);
  const std::int64_t logPeriod = std::max<std::int64_t>(1, cfg->getInt("LOG_PERIOD"));
  double timeSum = 0;
  std::int64_t timed = 0;
  // On a terminal one progress line redrawn in place; otherwise PySlowFast-like log lines.
  const bool tty = isatty(STDOUT_FILENO) == 1;
  std::mutex outMutex;
  bool barShown = false;
  auto print = [&](const std::string& text) {
    std::lock_guard<std::mutex> lock(outMutex);
    if (barShown) std::cout << "\r\033[K";
    std::cout << text << std::endl;
    barShown = false;
  };
  if (mainRank)
    trainer.setEventSink([&](const runlog::MetricEvent& e) {
      if (e.kind != runlog::kind::kTrain) {
        const std::string line = evaluationLine(e);
        if (!line.empty()) print(line);
        return;
      }
      timeSum += e.value("iter_time_s").value_or(0);
      ++timed;
      const auto p = trainer.progress();
      const std::int64_t total = p.totalSteps();
      const double remaining =
          static_cast<double>(total - e.step) * timeSum / static_cast<double>(timed);
      const StepLine step{total, p.max_epoch, util::formatDuration(remaining)};
      if (tty) {
        std::lock_guard<std::mutex> lock(outMutex);
        std::cout << "\r\033[K" << trainStepBar(e, step) << std::flush;
        barShown = true;
        return;
      }
      if (e.step % logPeriod == 0) print(trainStepLine(e, step));
    });
  std::string error;
  const std::string who =
      env && env->distributed() ? "[rank " + std::to_string(env->rank) + "] " : "";
  if (!trainer.start(&error)) {
    std::cerr << who << path << ": " << error << "\n";
    return 1;
  }
  if (mainRank)
    std::cout << "run directory: " << trainer.runDir()
              << " (follow it with: ampstudio-cli runs tail -f " << trainer.runDir() << ")"
              << (env ? ", " + env->describe() : std::string()) << std::endl;
  while (trainer.state() == train::TrainerState::Running ||
         trainer.state() == train::TrainerState::Paused) {
    if (gPause >= 0) {
      if (gPause == 1)
        trainer.pause();
      else
        trainer.resume();
      gPause = -1;
    }
    if (gStop) {
      print("stopping after this iteration (a checkpoint is written)...");
      trainer.stop();
      gStop = 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  trainer.wait();
  if (barShown) std::cout << std::endl;
  if (mainRank)
    std::cout << "run " << train::toString(trainer.state())
              << (trainer.error().empty() ? "" : ": " + trainer.error()) << std::endl;
  else if (!trainer.error().empty())
    std::cerr << who << "run " << train::toString(trainer.state()) << ": " << trainer.error()
              << std::endl;
  return trainer.state() == train::TrainerState::Finished  ? 0
         : trainer.state() == train::TrainerState::Stopped ? 130
                                                           : 1;
}

// `path` with "_<clips>clips" before its extension, for one of several TEST.NUM_TEMPORAL_CLIPS.
std::string perClipCountPath(const std::string& path, int clips) {
  const auto dot = path.find_last_of('.'), slash = path.find_last_of('/');
  const std::string tag = "_" + std::to_string(clips) + "clips";
  return dot != std::string::npos && (slash == std::string::npos || dot > slash)
             ? path.substr(0, dot) + tag + path.substr(dot)
             : path + tag;
}

// The analysis file of a single-label test (what the trainer's test leaves in analysis/): the
// confusion matrix of the videos' ensembled scores and every mistake, with the config's class
// names and groups, for `ampstudio-cli analyze confusion --file` and the studio.
bool writeTestAnalysis(const config::Config& cfg, const train::TestResult& r,
                       const std::string& path, std::string* error) {
  auto record =
      train::testConfusionRecord(r, static_cast<int>(cfg.getInt("MODEL.NUM_CLASSES")),
                                 cfg.getString("DATA.ENSEMBLE_METHOD") == "max", r.checkpoint);
  std::string why;
  if (const auto groups = metrics::readClassGroups(cfg, &why))
    metrics::applyClassGroups(record, *groups);
  else
    std::cerr << "analysis: " << why << "; the classes are recorded by number\n";
  return metrics::writeConfusionRecord(record, path, error);
}

int runTest(const std::string& path, const std::string& checkpoint, const std::string& scoresPath,
            const std::string& analysisPath, std::vector<std::string> overrides,
            const LaunchFlags& flags) {
  addShardOverrides(flags, overrides);
  auto cfg = loadConfigForCommand(path, overrides);
  if (!cfg) return 2;
  std::optional<dist::DistEnv> env;
  std::vector<std::string> extra;
  if (!checkpoint.empty()) extra = {"--checkpoint", checkpoint};
  if (!scoresPath.empty()) extra.insert(extra.end(), {"--scores", scoresPath});
  if (!analysisPath.empty()) extra.insert(extra.end(), {"--analysis", analysisPath});
  if (const auto launched = joinOrLaunch("test", path, overrides, flags, extra, *cfg, env))
    return *launched;
  const bool mainRank = !env || env->rank == 0;
  train::TestOptions options;
  options.checkpoint = checkpoint;
  options.dist = env;
  const bool tty = mainRank && isatty(STDOUT_FILENO) == 1;
  int lastShown = -1;
  if (mainRank)
    options.progress = [&](int done, int total) {
      const int pct = total ? 100 * done / total : 100;
      if (tty) {
        std::cout << "\rtesting: " << done << "/" << total << " clips (" << pct << "%)"
                  << std::flush;
      } else if (pct / 10 != lastShown) {
        lastShown = pct / 10;
        std::cout << "testing: " << done << "/" << total << " clips" << std::endl;
      }
    };
  std::vector<train::TestResult> results;
  std::string error;
  const bool ok = train::runMultiViewTests(*cfg, options, results, &error);
  if (tty) std::cout << "\r\033[K";
  if (!ok) {
    std::cerr << (env && env->distributed() ? "[rank " + std::to_string(env->rank) + "] "
                                            : std::string())
              << path << ": " << error << "\n";
    return 1;
  }
  if (!mainRank) return 0;  // rank 0 reports for the job
  const auto counts = train::temporalClipCounts(*cfg);
  for (size_t k = 0; k < results.size(); ++k) {
    const train::TestResult& r = results[k];
    const int clips = counts.at(k);
    if (k > 0) std::cout << "\n";
    // Several TEST.NUM_TEMPORAL_CLIPS: one scores file each, named after its number of clips.
    std::string scores = scoresPath, analysis = analysisPath;
    if (results.size() > 1) {
      if (!scores.empty()) scores = perClipCountPath(scores, clips);
      if (!analysis.empty()) analysis = perClipCountPath(analysis, clips);
    }
    if (!scores.empty() && !train::writeTestScores(r, scores, &error)) {
      std::cerr << error << "\n";
      return 1;
    }
    std::cout << std::fixed << "checkpoint   " << r.checkpoint << "\n"
              << "videos       " << r.videos << " x " << r.views_per_video << " views (" << clips
              << " temporal x " << cfg->getInt("TEST.NUM_SPATIAL_CROPS")
              << " spatial, probabilities "
              << (cfg->getString("DATA.ENSEMBLE_METHOD") == "max" ? "max-pooled" : "summed")
              << (r.world_size > 1 ? ", shared by " + std::to_string(r.world_size) + " processes"
                                   : std::string())
              << ")\n";
    if (!analysis.empty() && (r.detection || r.multi_label))
      std::cerr << "--analysis: not written: the confusion matrix is for single-label tests\n";
    if (r.detection) {  // AVA: AVAMeter's frame-mAP
      std::cout << std::setprecision(4) << "mAP          " << r.map << "  (frame-mAP@0.5IoU, "
                << r.boxes << " boxes, " << r.map_classes << " classes with ground truth)\n"
                << std::setprecision(1) << "time         " << r.seconds << " s\n";
      if (!r.detections_csv.empty()) std::cout << "detections   " << r.detections_csv << "\n";
      continue;
    }
    if (r.multi_label) {  // PySlowFast's multi-label TestMeter reports mAP alone
      std::cout << std::setprecision(4) << "mAP          " << r.map << "  (" << r.map_classes
                << " classes with a positive video)\n"
                << std::setprecision(1) << "time         " << r.seconds << " s\n";
      if (!scores.empty()) std::cout << "scores       " << scores << "\n";
      continue;
    }
    std::cout << std::setprecision(2) << "top1_err     " << r.top1_err << " %  (top-1 accuracy "
              << 100 - r.top1_err << " %)\n"
              << "top5_err     " << r.top5_err << " %\n"
              << "view top1_err " << r.view_top1_err << " %  (one clip, one crop)\n"
              << std::setprecision(1) << "time         " << r.seconds << " s\n";
    std::cout << "per class top1_err:";
    for (size_t i = 0; i < r.per_class_top1_err.size(); ++i)
      if (r.per_class_videos[i])
        std::cout << " " << i << ":" << std::setprecision(0) << r.per_class_top1_err[i];
    std::cout << std::endl;
    if (!scores.empty()) std::cout << "scores       " << scores << "\n";
    if (!analysis.empty()) {
      if (!writeTestAnalysis(*cfg, r, analysis, &error)) {
        std::cerr << error << "\n";
        return 1;
      }
      std::cout << "analysis     " << analysis << "  (ampstudio-cli analyze confusion --file "
                << analysis << ")\n";
    }
  }
  return 0;
}

// PySlowFast's launch flags, on `train` and `test`.
void addLaunchFlags(CLI::App* cmd, LaunchFlags& flags) {
  cmd->add_option("--init-method,--init_method", flags.init_method,
                  "Where the ranks meet: tcp://HOST:PORT of machine 0 (default "
                  "tcp://localhost:9999, as PySlowFast) or "
                  "file:///PATH on a shared filesystem");
  cmd->add_option("--shard-id,--shard_id", flags.shard_id, "This machine's index (sets SHARD_ID)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--num-shards,--num_shards", flags.num_shards,
                  "Number of machines (sets NUM_SHARDS)")
      ->check(CLI::PositiveNumber);
}

}  // namespace

void addTestCommand(CLI::App& app, int& exitCode) {
  auto cfg = std::make_shared<std::string>();
  auto checkpoint = std::make_shared<std::string>();
  auto flags = std::make_shared<LaunchFlags>();
  CLI::App* test =
      app.add_subcommand("test",
                         "Multi-view test of a checkpoint (TEST.NUM_ENSEMBLE_VIEWS x "
                         "TEST.NUM_SPATIAL_CROPS); with NUM_GPUS > 1 or DIST.CPU_PROCESSES > 1 "
                         "the views are shared by that many processes, as in train");
  test->add_option("--cfg", *cfg, "PySlowFast YAML config")->required()->check(CLI::ExistingFile);
  test->add_option(
          "--checkpoint", *checkpoint,
          "Checkpoint to test (default: TEST.CHECKPOINT_FILE_PATH, else the newest in OUTPUT_DIR)")
      ->check(CLI::ExistingFile);
  auto scores = std::make_shared<std::string>();
  test->add_option("--scores", *scores,
                   "Also write every video's combined view probabilities (DATA.ENSEMBLE_METHOD), "
                   "label and top-1 class (multi-label runs: and the video's target classes, "
                   "target_0 ...) to this CSV file");
  auto analysis = std::make_shared<std::string>();
  test->add_option(
      "--analysis", *analysis,
      "Also write the analysis file of a single-label test (confusion matrix, every "
      "mistake, class names and groups: what a run's test leaves in analysis/) to this "
      "JSON file; read it with analyze confusion --file");
  addLaunchFlags(test, *flags);
  acceptOverrides(test);
  test->callback([cfg, checkpoint, scores, analysis, flags, test, &exitCode] {
    exitCode = runTest(*cfg, *checkpoint, *scores, *analysis, overridesOf(test), *flags);
  });
}

void addTrainCommand(CLI::App& app, int& exitCode) {
  auto cfg = std::make_shared<std::string>();
  auto flags = std::make_shared<LaunchFlags>();
  CLI::App* train = app.add_subcommand(
      "train",
      "Train the config's model; metrics go to OUTPUT_DIR (Ctrl-C stops cleanly). With NUM_GPUS > "
      "1, DIST.CPU_PROCESSES > 1 or "
      "NUM_SHARDS > 1 it starts this machine's worker processes (data parallel on c10d); under "
      "torchrun or srun each process "
      "joins from RANK/WORLD_SIZE/MASTER_ADDR or SLURM_PROCID/SLURM_NTASKS instead");
  train->add_option("--cfg", *cfg, "PySlowFast YAML config")->required()->check(CLI::ExistingFile);
  addLaunchFlags(train, *flags);
  train->add_option("--source", flags->source,
                    "What run.json names as the config's origin (default: the --cfg path)");
  train->add_flag("--dry-run", flags->dry_run,
                  "Only the pre-flight checks (device, dataset, OUTPUT_DIR and checkpoints, memory "
                  "of one step): problems as "
                  "config errors, exit 1 on an error; nothing is written, no run directory made");
  train->add_flag("--no-memory-check", flags->no_memory_check,
                  "With --dry-run: skip measuring one training step of the model");
  acceptOverrides(train);
  train->callback(
      [cfg, flags, train, &exitCode] { exitCode = runTrain(*cfg, overridesOf(train), *flags); });
}

}  // namespace amp::cli
