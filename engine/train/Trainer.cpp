#include "train/Trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <filesystem>
#include <tuple>

#include "audit/NonFiniteGrad.h"
#include "config/ConfigWriter.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "multigrid/Schedule.h"
#include "runlog/CheckpointFiles.h"
#include "runlog/MetricsReader.h"
#include "runlog/MetricsWriter.h"
#include "util/FaultInjection.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardWriter.h"
#include "system/DeviceInfo.h"
#include "system/MemoryProbe.h"
#include "train/LrSchedule.h"
#include "train/Checkpoint.h"
#include "train/DataParallel.h"
#include "train/LossExplosion.h"
#include "train/Mixup.h"
#include "train/MultiViewTest.h"
#include "train/PreciseBn.h"
#include "train/ErrorText.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"

namespace amp::train {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Top-k error (%) of a batch: PySlowFast's topks_correct.
std::pair<double, double> topErrors(const torch::Tensor& logits, const torch::Tensor& labels) {
  const int64_t k = std::min<int64_t>(5, logits.size(1));
  const auto top = std::get<1>(logits.topk(k, 1));
  const auto hit = top.eq(labels.unsqueeze(1));
  const double n = static_cast<double>(labels.size(0));
  const double top1 = hit.narrow(1, 0, 1).any(1).sum().item<double>();
  const double top5 = hit.any(1).sum().item<double>();
  return {100.0 * (1.0 - top1 / n), 100.0 * (1.0 - top5 / n)};
}

// The batch's clips on the device, in tensors that own their memory (the batch's buffers go
// back to the loader): a copy to the GPU, a clone on the CPU.
std::vector<torch::Tensor> batchTensors(data::Batch& b, const torch::Device& device, bool channelsLast) {
  std::vector<torch::Tensor> x;
  if (b.slow_frames > 0) x.push_back(torch::from_blob(b.slow.data(), {b.size, b.channels, b.slow_frames, b.height, b.width}));
  x.push_back(torch::from_blob(b.fast.data(), {b.size, b.channels, b.frames, b.height, b.width}));
  for (auto& t : x) t = device.is_cpu() ? t.clone() : t.to(device);
  return toDevice(std::move(x), device, channelsLast);
}

}  // namespace

const char* toString(TrainerState s) {
  switch (s) {
    case TrainerState::Idle: return "idle";
    case TrainerState::Running: return "running";
    case TrainerState::Paused: return "paused";
    case TrainerState::Finished: return "finished";
    case TrainerState::Stopped: return "stopped";
    case TrainerState::Failed: return "failed";
  }
  return "?";
}

Trainer::Trainer(config::Config cfg, std::string configSource) : cfg_(std::move(cfg)), configSource_(std::move(configSource)) {
  runDir_ = cfg_.getString("OUTPUT_DIR");
}

Trainer::~Trainer() {
  stop();
  wait();
}

void Trainer::setEventSink(std::function<void(const runlog::MetricEvent&)> sink) { sink_ = std::move(sink); }
void Trainer::pause() { pauseRequested_ = true; }
void Trainer::resume() { pauseRequested_ = false; }
void Trainer::stop() { stopRequested_ = true; }
void Trainer::wait() {
  if (thread_.joinable()) thread_.join();
}

std::string Trainer::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

TrainerProgress Trainer::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_;
}

bool Trainer::start(std::string* error) {
  if (thread_.joinable()) {
    if (error) *error = "this trainer has already been started";
    return false;
  }
  // A task the studio does not run is refused before anything is written.
  if (const std::string why = unsupportedTask(cfg_, cfg_.getBool("TRAIN.ENABLE")); !why.empty()) {
    if (error) *error = why;
    return false;
  }
  // Clips per process batch: videos x the clips of each (repeated augmentation, temporal crops).
  if (cfg_.getBool("MIXUP.ENABLE") && cfg_.getBool("TRAIN.ENABLE") && dist::perProcessBatch(cfg_, false) * dist::clipsPerTrainVideo(cfg_) < 2) {
    if (error)
      *error = "MIXUP.ENABLE: mixup and cutmix mix a batch with its own reverse, so each process needs at least 2 clips per "
               "batch; raise TRAIN.BATCH_SIZE or set MIXUP.ENABLE False";
    return false;
  }
  if (dist_.rank == 0) {  // the run directory's one writer; other ranks only read checkpoints from it
    runlog::RunDirectory dir(runDir_);
    const std::string why = dir.ensureExists();
    if (!why.empty()) {
      if (error) *error = "OUTPUT_DIR: " + why;
      return false;
    }
    if (!lock_.acquire(runDir_, error)) return false;
  }
  state_ = TrainerState::Running;
  thread_ = std::thread(&Trainer::run, this);
  return true;
}

void Trainer::run() {
  struct ReleaseLast {  // declared first: the run's files are closed before another writer may come
    runlog::RunLock& lock;
    ~ReleaseLast() { lock.release(); }
  } releaseLock{lock_};
  runlog::RunDirectory dir(runDir_);
  runlog::MetricsWriter writer;
  runlog::TensorBoardWriter tensorBoard;  // TENSORBOARD.ENABLE, on rank 0
  runlog::RunMetadata meta;
  const bool writes = dist_.rank == 0;  // only global rank 0 writes the run directory
  const auto started = Clock::now();
  // A metrics line that cannot be written (a full disk) stops the run at the next check: its
  // record must not silently end while the run goes on. Later lines are not attempted.
  std::string logError;
  double timeOffset = 0;  // seconds the earlier starts of this run spent (its log's last time)
  auto emit = [&](runlog::MetricEvent e) {
    e.time_s = timeOffset + since(started);
    e.unix_time_s = runlog::unixTimeNow();
    if (writes && logError.empty()) logError = writer.write(e);
    if (sink_) sink_(e);
  };
  auto checkLog = [&] {
    if (!logError.empty())
      throw std::runtime_error(logError + " (free space or fix the folder, then start the run again: it resumes from its last checkpoint)");
  };
  auto log = [&](const std::string& line) {
    if (writes) dir.appendLog(line);
  };
  auto event = [&](const std::string& name, const std::string& message, std::int64_t step, double epoch,
                   std::map<std::string, double> values = {}, const std::string& layer = {}) {
    runlog::MetricEvent e;
    e.kind = runlog::kind::kEvent;
    e.name = name;
    e.message = message;
    e.layer = layer;
    e.step = step;
    e.epoch = epoch;
    e.values = std::move(values);
    emit(e);
    log(name + ": " + message);
  };
  auto finish = [&](TrainerState s, const std::string& err) {
    meta.status = s == TrainerState::Finished ? runlog::RunStatus::Finished
                  : s == TrainerState::Stopped ? runlog::RunStatus::Stopped
                                               : runlog::RunStatus::Failed;
    meta.error = err;
    meta.endedAt = meta.updatedAt = runlog::unixTimeNow();
    if (writes) dir.writeMetadata(meta);
    if (!err.empty()) log("error: " + err);
    log(std::string("run ") + toString(s));
    writer.close();
    tensorBoard.close();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = err;
    }
    state_ = s;
  };

  try {
    // Multigrid (MULTIGRID.LONG_CYCLE / SHORT_CYCLE): the run trains with PySlowFast's rewritten
    // SOLVER.STEPS / LRS / MAX_EPOCH, and each long-cycle phase at its own shape, batch and
    // batch norm (phaseConfig). The run directory keeps the config as the user wrote it.
    std::optional<multigrid::Schedule> mg;
    if ((cfg_.getBool("MULTIGRID.LONG_CYCLE") || cfg_.getBool("MULTIGRID.SHORT_CYCLE")) && cfg_.getBool("TRAIN.ENABLE") && !synthetic_)
      mg = multigrid::buildSchedule(cfg_);
    const int machineProcesses = dist::processesPerShard(cfg_);
    const multigrid::Phase* firstPhase = mg ? &multigrid::phaseAtEpoch(*mg, 0) : nullptr;
    const config::Config runCfg = mg ? multigrid::phaseConfig(cfg_, *mg, *firstPhase, machineProcesses) : cfg_;
    const config::Config& c = runCfg;
    const torch::Device device = trainingDevice(c, dist_.local_rank);
    DataParallel ddp(dist_, c, device);  // joins the other ranks (nothing to join with one process)
    ddp.checkSameConfig(c);
    const PrecisionPolicy policy = PrecisionPolicy::fromConfig(c);
    const bool channelsLast = useChannelsLast3d(c, device);
    const bool cuda = device.is_cuda();
    torch::manual_seed(static_cast<uint64_t>(c.getInt("RNG_SEED")));

    bool earlierLog = false;  // the metrics log holds lines of an earlier start in this folder
    // Resuming (TRAIN.AUTO_RESUME and a checkpoint in OUTPUT_DIR) keeps the run's identity.
    const std::string resumeFrom = c.getBool("TRAIN.AUTO_RESUME") ? latestCheckpoint(runDir_) : std::string();
    if (!resumeFrom.empty())
      if (auto old = dir.readMetadata()) meta = *old;
    meta.name = std::filesystem::path(runDir_).filename().string();
    meta.status = runlog::RunStatus::Running;
    meta.error.clear();
    meta.endedAt = 0;
    meta.precision = policy.name;
    meta.model = c.getString("MODEL.MODEL_NAME") + " (" + c.getString("MODEL.ARCH") + ")";
    meta.configSource = configSource_;
    meta.host = runlog::hostName();
    meta.pid = getpid();
    meta.startedAt = meta.updatedAt = runlog::unixTimeNow();
    if (meta.createdAt == 0) meta.createdAt = meta.startedAt;
    const auto devInfo = system::probeDevices();
    const int threads = at::get_num_threads();
    const std::string cpu = "cpu (" + std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
                            (ddp.active() ? " each, " : ", ") + devInfo.blas + ")";
    meta.device = cuda ? "cuda:" + std::to_string(device.index()) : cpu;
    if (ddp.active()) meta.device = std::to_string(ddp.worldSize()) + " x " + (cuda ? std::string("cuda") : cpu);
    meta.worldSize = ddp.worldSize();
    meta.distBackend = ddp.backend();
    meta.versions = {{"ampstudio", AMPSTUDIO_VERSION}, {"libtorch", devInfo.libtorch_version}, {"ffmpeg", devInfo.ffmpeg_version}};
    if (writes) {
      const std::string metaError = dir.writeMetadata(meta);
      if (!metaError.empty()) throw std::runtime_error(metaError);
      config::saveConfigFile(cfg_, dir.configPath());
      std::error_code sizeError;
      earlierLog = std::filesystem::file_size(dir.metricsPath(), sizeError) > 0 && !sizeError;
      // `time` counts the run's seconds across its starts: this start continues from the last.
      if (earlierLog)
        for (const auto& e : runlog::MetricsReader(dir.metricsPath()).pollFinal()) timeOffset = std::max(timeOffset, e.time_s);
      const std::string openError = writer.open(dir.metricsPath());
      if (!openError.empty()) throw std::runtime_error(openError);
    }
    log("run started: " + meta.model + ", " + policy.name + ", " + meta.device +
        (ddp.active() ? ", data parallel over " + ddp.backend() : std::string()));
    // TENSORBOARD.ENABLE: PySlowFast's scalars (Train/loss, Train/lr, Train/Top1_err,
    // Train/Top5_err per step; Val/Top1_err, Val/Top5_err per validation batch) at its global
    // steps, in OUTPUT_DIR/TENSORBOARD.LOG_DIR (default runs-<TRAIN.DATASET>). Every rank takes part
    // in gathering the validation's per-batch errors (decided by the config alone, which every
    // rank shares, so all make the same collective calls whatever their build); rank 0 writes. A
    // file that cannot be written is said once and the run goes on: metrics.jsonl is the record.
    const bool tensorBoardWanted = c.getBool("TENSORBOARD.ENABLE") && !synthetic_;
    std::string tensorBoardError;
    if (c.getBool("TENSORBOARD.ENABLE") && !runlog::tensorBoardSupport().empty())
      event("tensorboard", "TENSORBOARD.ENABLE: no event files are written: " + runlog::tensorBoardSupport(), 0, 0);
    if (tensorBoardWanted && writes && runlog::tensorBoardSupport().empty()) {
      const std::string tbDir = runlog::tensorBoardLogDir(cfg_.getString("OUTPUT_DIR"), cfg_.getString("TENSORBOARD.LOG_DIR"), cfg_.getString("TRAIN.DATASET"));
      tensorBoardError = tensorBoard.open(tbDir, runlog::unixTimeNow());
      if (tensorBoardError.empty())
        log("TensorBoard event file " + tensorBoard.path() + " (tensorboard --logdir " + tbDir + ")");
      else
        event("tensorboard", "TENSORBOARD.ENABLE: no event files are written: " + tensorBoardError, 0, 0);
    }
    auto toTensorBoard = [&](const std::vector<runlog::TensorBoardScalar>& scalars, std::int64_t tbStep, std::int64_t step, double epoch) {
      if (!tensorBoard.isOpen() || !tensorBoardError.empty()) return;
      tensorBoardError = tensorBoard.add(scalars, tbStep, runlog::unixTimeNow());
      if (!tensorBoardError.empty())
        event("tensorboard", "TENSORBOARD.ENABLE: event file writing stopped: " + tensorBoardError + " (metrics.jsonl goes on)", step, epoch);
    };

    // PySlowFast's run_net: train when TRAIN.ENABLE, then the multi-view test when TEST.ENABLE,
    // in FP32 on the model as trained (the last checkpoint) unless TEST.CHECKPOINT_FILE_PATH
    // names another. With several ranks each tests its share of the views.
    auto multiViewTest = [&](models::VideoNetImpl& model, std::string weights, std::int64_t atStep, double atEpoch) {
      if (const std::string other = cfg_.getString("TEST.CHECKPOINT_FILE_PATH"); !other.empty()) {
        loadTestWeights(cfg_, other, model);
        weights = other;
      }
      // TEST.NUM_TEMPORAL_CLIPS: one test per number of temporal clips, as test_net.py.
      for (const int clips : temporalClipCounts(cfg_)) {
        const config::Config tc = withTemporalClips(cfg_, clips);
        const auto params = data::ClipParams::fromConfig(tc);
        event("testing", "multi-view test of " + weights + ": " + std::to_string(params.viewsPerTestVideo()) +
                             " views per video (" + std::to_string(clips) + " temporal clips x TEST.NUM_SPATIAL_CROPS)",
              atStep, atEpoch);
        TestOptions options;
        options.cancel = &stopRequested_;
        TestResult r;
        try {
          testLoadedModel(tc, model, device, channelsLast, ddp, options, r);
        } catch (const TestCancelled&) {
          return false;  // stopped while testing, here or on another rank: the run is complete otherwise
        } catch (const std::exception&) {
          if (stopRequested_) return false;
          throw;
        }
        runlog::MetricEvent t;
        t.kind = runlog::kind::kTest;
        t.step = atStep;
        t.epoch = atEpoch;
        t.values = {{"top1_err", r.top1_err}, {"top5_err", r.top5_err}, {"view_top1_err", r.view_top1_err},
                    {"videos", static_cast<double>(r.videos)}, {"views_per_video", static_cast<double>(r.views_per_video)},
                    {"temporal_clips", static_cast<double>(clips)}};
        emit(t);
        char line[240];
        std::snprintf(line, sizeof line,
                      "test: top-1 error %.2f%%, top-5 %.2f%% over %d videos x %d views (%d temporal clips; one view: %.2f%%)",
                      r.top1_err, r.top5_err, r.videos, r.views_per_video, clips, r.view_top1_err);
        log(line);
      }
      return true;
    };
    if (!c.getBool("TRAIN.ENABLE")) {  // only the test, as PySlowFast's test_net
      if (synthetic_) throw std::runtime_error("TRAIN.ENABLE: False; random clips are for training benchmarks");
      if (!c.getBool("TEST.ENABLE"))
        throw std::runtime_error("TRAIN.ENABLE and TEST.ENABLE are both False: nothing to run; set one of them to True");
      const std::string weights = testCheckpoint(c);
      if (weights.empty())
        throw std::runtime_error("TRAIN.ENABLE: False, and there is no checkpoint to test: set TEST.CHECKPOINT_FILE_PATH (or "
                                 "TRAIN.CHECKPOINT_FILE_PATH), or train into OUTPUT_DIR first");
      auto net = models::buildVideoNet(c);
      loadTestWeights(c, weights, *net);
      net->to(device);
      if (channelsLast) toChannelsLast3d(*net);
      finish(multiViewTest(*net, weights, 0, 0) ? TrainerState::Finished : TrainerState::Stopped, "");
      return;
    }

    // Data.
    auto readList = [&](const char* split) {
      data::KineticsList list;
      std::string err;
      if (!data::readKineticsList(c.getString("DATA.PATH_TO_DATA_DIR"), split, c.getString("DATA.PATH_LABEL_SEPARATOR"),
                                  c.getString("DATA.PATH_PREFIX"), /*skipRows=*/0, list, &err))
        throw std::runtime_error(err);
      if (const auto classes = c.getInt("MODEL.NUM_CLASSES"); list.maxLabel >= classes)
        throw std::runtime_error(list.csvPath + ": labels go up to " + std::to_string(list.maxLabel) +
                                 " but MODEL.NUM_CLASSES is " + std::to_string(classes) + " (labels are 0 .. NUM_CLASSES-1)");
      return list;
    };
    // Loaders, rebuilt for each multigrid phase: random clips (bench overhead) need no dataset,
    // the lists stay empty and an epoch is 1000 steps.
    const data::KineticsList trainList = synthetic_ ? data::KineticsList{} : readList("train");
    const data::KineticsList valList = synthetic_ ? data::KineticsList{} : readList("val");
    const auto accum = c.getInt("SOLVER.GRAD_ACCUM_STEPS");
    std::unique_ptr<data::VideoLoader> trainLoader, valLoader, preciseLoader;
    std::int64_t itersPerEpoch = 0;
    auto makeTrainLoader = [&](const config::Config& pc, const multigrid::Phase* phase) {
      auto trainOptions = data::LoaderOptions::fromConfig(pc, data::Split::Train, ddp.rank(), ddp.worldSize());
      if (phase && mg->short_cycle)  // ShortCycleBatchSampler: the batch and crop change every iteration
        for (std::int64_t k = 0; k < 3; ++k) {
          const auto sc = multigrid::shortCycleStep(*phase, k);
          trainOptions.short_cycle.push_back(
              {static_cast<int>(sc.per_device_batch), static_cast<int>(sc.crop), static_cast<int>(sc.jitter_min_scale)});
        }
      return std::make_unique<data::VideoLoader>(trainList, data::ClipParams::fromConfig(pc), data::Split::Train, trainOptions);
    };
    auto buildLoaders = [&](const config::Config& pc, const multigrid::Phase* phase) {
      const auto params = data::ClipParams::fromConfig(pc);
      trainLoader = makeTrainLoader(pc, phase);
      valLoader = std::make_unique<data::VideoLoader>(valList, params, data::Split::Val,
                                                      data::LoaderOptions::fromConfig(pc, data::Split::Val, ddp.rank(), ddp.worldSize()));
      // BN.USE_PRECISE_STATS: PySlowFast's separate training loader for precise BN (training
      // augmentation, its own shuffle: here its own seed; never short cycles).
      preciseLoader.reset();
      if (pc.getBool("BN.USE_PRECISE_STATS") && !synthetic_) {
        auto o = data::LoaderOptions::fromConfig(pc, data::Split::Train, ddp.rank(), ddp.worldSize());
        o.seed += 1;
        preciseLoader = std::make_unique<data::VideoLoader>(trainList, params, data::Split::Train, o);
      }
      itersPerEpoch = synthetic_ ? std::int64_t{1000} : static_cast<std::int64_t>(trainLoader->batchesPerEpoch()) / accum;
      if (itersPerEpoch == 0)
        throw std::runtime_error("TRAIN.BATCH_SIZE: " + std::to_string(pc.getInt("TRAIN.BATCH_SIZE")) + " clips x SOLVER.GRAD_ACCUM_STEPS " +
                                 std::to_string(accum) + " is more than the training set holds; no full optimizer step" +
                                 (phase ? " (multigrid phase " + std::to_string(phase->index) + ")" : std::string()));
    };
    buildLoaders(c, firstPhase);
    const multigrid::Phase* loadersPhase = firstPhase;
    // The run's optimizer steps, for progress and ETAs: with long cycles each phase's epochs at
    // its own iterations per epoch.
    std::int64_t totalSteps = static_cast<std::int64_t>(c.getInt("SOLVER.MAX_EPOCH")) * itersPerEpoch;
    if (mg && !synthetic_) {
      totalSteps = 0;
      for (const auto& ph : mg->phases) {
        const auto loader = makeTrainLoader(multigrid::phaseConfig(cfg_, *mg, ph, machineProcesses), &ph);
        const auto batches = static_cast<std::int64_t>(loader->batchesPerEpoch());
        totalSteps += (ph.end_epoch - ph.start_epoch) * (batches / accum);
      }
    }

    // Model, optimizer, schedule, precision.
    auto net = models::buildVideoNet(c);
    net->to(device);
    if (channelsLast) toChannelsLast3d(*net);
    std::vector<double> layerDecay;  // SOLVER.LAYER_DECAY's multiplier of each parameter group
    auto optimizer = buildOptimizer(c, *net, &layerDecay);
    TrainStep stepper(c, *net, *optimizer, policy);
    const bool scaling = stepper.scaler().enabled();
    const std::string noScaler = policy.mixed ? "autocast without a loss scaler" : "FP32";
    const MicroBatch syntheticBatch =
        synthetic_ ? randomMicroBatch(c, c.getInt("TRAIN.BATCH_SIZE"), device, channelsLast) : MicroBatch{};
    const LrSchedule schedule(c);
    const MixupParams mixup = MixupParams::fromConfig(c);
    if (mixup.enabled && !synthetic_) {
      log("mixup: ALPHA " + std::to_string(mixup.alpha) + ", CUTMIX_ALPHA " + std::to_string(mixup.cutmix_alpha) + ", PROB " +
          std::to_string(mixup.prob) + ", SWITCH_PROB " + std::to_string(mixup.switch_prob) + ", label smoothing " +
          std::to_string(mixup.smoothing) + "; training errors are scored on mixed targets as PySlowFast does");
    }
    const double killFactor = c.getFloat("TRAIN.KILL_LOSS_EXPLOSION_FACTOR");
    const int maxEpoch = static_cast<int>(c.getInt("SOLVER.MAX_EPOCH"));
    const int evalPeriod = static_cast<int>(c.getInt("TRAIN.EVAL_PERIOD"));
    const int checkpointPeriod = static_cast<int>(c.getInt("TRAIN.CHECKPOINT_PERIOD"));
    const auto maxSkipped = c.getInt("AMP.MAX_SKIPPED_STEPS");
    const double minScale = c.getFloat("AMP.MIN_LOSS_SCALE");

    int startEpoch = 0;
    std::int64_t step = 0, startIter = 0;
    double bestTop1 = 100.0;
    if (writes) {  // this process holds the run's lock: a temporary checkpoint file is a dead writer's
      for (const auto& t : runlog::removeUnfinishedCheckpoints(runDir_))
        log("removed " + t + ": a checkpoint an earlier process did not finish writing");
    }
    if (resumeFrom.empty() && earlierLog && c.getBool("TRAIN.ENABLE")) {
      // An earlier start here left no checkpoint (killed in its first epoch): training starts
      // over, and its logged steps are superseded, as after any resume (docs/run-format.md).
      event("resumed", "from the beginning: the earlier start in this folder left no checkpoint", 0, 0);
    }
    if (!resumeFrom.empty()) {
      const auto info = loadCheckpoint(resumeFrom, {net.get(), optimizer.get(), &stepper.scaler(), true,
                                                    c.getStringList("TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN")});
      for (const auto& note : info.notes) log("checkpoint: " + note);
      startEpoch = info.epochs_done;
      step = info.global_step;
      startIter = info.iter_in_epoch;
      bestTop1 = info.best_top1_err;
      event("resumed", "from " + resumeFrom + " at step " + std::to_string(step), step,
            startEpoch + static_cast<double>(startIter) / static_cast<double>(itersPerEpoch));
    } else if (const std::string init = c.getString("TRAIN.CHECKPOINT_FILE_PATH"); !init.empty()) {
      const bool reset = c.getBool("TRAIN.CHECKPOINT_EPOCH_RESET");
      LoadTargets targets{net.get(), reset ? nullptr : optimizer.get(), reset ? nullptr : &stepper.scaler(), false,
                          c.getStringList("TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN"), /*subset=*/true};
      targets.caffe2 = c.getString("TRAIN.CHECKPOINT_TYPE") == "caffe2";
      targets.inflate = c.getBool("TRAIN.CHECKPOINT_INFLATE");
      const auto info = loadCheckpoint(init, targets);
      std::vector<std::string> fresh;
      for (const auto& note : info.notes) {
        log("checkpoint: " + note);
        if (note.find("keeps its initialisation") != std::string::npos) fresh.push_back(note);
      }
      if (!fresh.empty())  // fine-tuning on other classes: say which weights start afresh, in the events too
        event("checkpoint", std::to_string(fresh.size()) + " weight(s) of the model not loaded from " + init + ": " +
                                fresh.front() + (fresh.size() > 1 ? " ..." : ""), step, startEpoch);
      if (!reset) {
        startEpoch = info.epochs_done;
        step = info.global_step;
        startIter = info.iter_in_epoch;
      }
      event("initialised", "weights from " + init + (reset ? " (epoch count reset)" : ""), step, startEpoch);
    }
    // Sub batch norm: every group's running statistics start from the (loaded) merged ones.
    if (c.getString("BN.NORM_TYPE") == "sub_batchnorm") models::setBatchNormSplits(*net, c.getInt("BN.NUM_SPLITS"));
    ddp.attach(*net, stepper, step);  // rank 0's weights to every rank; gradients averaged from here on

    // Multigrid: entering a phase (at the start, on resuming, at each long-cycle boundary) builds
    // its loaders and batch norm; weights, optimizer state, the loss scaler and the random state
    // carry over (PySlowFast rebuilds the model and optimizer from the boundary's checkpoint and
    // starts a new gradient scaler; the head pools globally here, so the model need not change).
    const multigrid::Phase* phase = nullptr;
    auto enterPhase = [&](int epoch) {
      const multigrid::Phase& ph = multigrid::phaseAtEpoch(*mg, epoch);
      if (phase && phase->index == ph.index) return;
      std::string note;
      const config::Config pc = multigrid::phaseConfig(cfg_, *mg, ph, machineProcesses, &note);
      if (&ph != loadersPhase) {
        buildLoaders(pc, &ph);
        loadersPhase = &ph;
      }
      const std::string norm = pc.getString("BN.NORM_TYPE");
      const std::int64_t splits = norm == "sub_batchnorm" ? pc.getInt("BN.NUM_SPLITS") : 1;
      ddp.setBatchNormSync(*net, "batchnorm", 1);
      models::setBatchNormSplits(*net, splits);
      ddp.setBatchNormSync(*net, norm, static_cast<int>(pc.getInt("BN.NUM_SYNC_DEVICES")));
      phase = &ph;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        progress_.steps_per_epoch = itersPerEpoch;
      }
      if (!note.empty()) log("multigrid: " + note);
      const std::int64_t perProcess = dist::perProcessBatch(pc, false);
      std::string msg = "multigrid phase " + std::to_string(ph.index + 1) + "/" + std::to_string(mg->phases.size()) + " (epochs " +
                        std::to_string(ph.start_epoch) + "-" + std::to_string(ph.end_epoch) + "): batch " +
                        std::to_string(pc.getInt("TRAIN.BATCH_SIZE")) + " (" + std::to_string(perProcess) + " per process), " +
                        std::to_string(pc.getInt("DATA.NUM_FRAMES")) + " frames, crop " + std::to_string(pc.getInt("DATA.TRAIN_CROP_SIZE"));
      const auto maxRate = pc.getInt("MULTIGRID.LONG_CYCLE_SAMPLING_RATE");
      if (maxRate > pc.getInt("DATA.SAMPLING_RATE"))
        msg += ", sampling rate " + std::to_string(pc.getInt("DATA.SAMPLING_RATE")) + "-" + std::to_string(maxRate);
      msg += ", " + norm + (splits > 1 ? " (" + std::to_string(splits) + " splits)" : std::string()) +
             (norm == "sync_batchnorm" ? " (" + std::to_string(pc.getInt("BN.NUM_SYNC_DEVICES")) + " devices)" : std::string());
      if (mg->short_cycle) {
        msg += "; short cycle crop:batch";
        for (std::int64_t k = 0; k < 3; ++k) {
          const auto sc = multigrid::shortCycleStep(ph, k);
          msg += " " + std::to_string(sc.crop) + ":" + std::to_string(sc.per_device_batch);
        }
      }
      msg += "; " + std::to_string(itersPerEpoch) + " iterations per epoch";
      event("shape_change", msg, step, epoch,
            {{"phase", ph.index},
             {"batch_size", static_cast<double>(pc.getInt("TRAIN.BATCH_SIZE"))},
             {"per_process_batch", static_cast<double>(perProcess)},
             {"frames", static_cast<double>(pc.getInt("DATA.NUM_FRAMES"))},
             {"crop", static_cast<double>(pc.getInt("DATA.TRAIN_CROP_SIZE"))},
             {"max_sampling_rate", static_cast<double>(std::max(maxRate, pc.getInt("DATA.SAMPLING_RATE")))},
             {"bn_splits", static_cast<double>(splits)},
             {"iterations_per_epoch", static_cast<double>(itersPerEpoch)},
             {"run_steps", static_cast<double>(totalSteps)}});
    };
    {
      std::lock_guard<std::mutex> lock(mutex_);
      progress_.max_epoch = maxEpoch;
      progress_.steps_per_epoch = itersPerEpoch;
      progress_.total_steps = totalSteps;
      progress_.epoch = startEpoch;
      progress_.step = step;
    }
    auto checkpoint = [&](int epochsDone, std::int64_t iterInEpoch) {
      CheckpointInfo info;
      info.epochs_done = epochsDone;
      info.iter_in_epoch = iterInEpoch;
      info.global_step = step;
      info.best_top1_err = bestTop1;
      info.cfg_yaml = config::toYaml(cfg_);
      info.layer_decay = layerDecay;
      if (!writes) return;
      const std::string path = saveCheckpoint(runDir_, *net, optimizer.get(), &stepper.scaler(), info);
      event("checkpoint", path, step, epochsDone + static_cast<double>(iterInEpoch) / static_cast<double>(itersPerEpoch));
    };

    // A stop outside the step loop's agreement: the ranks see SIGINT at slightly different times,
    // and work with collectives (precise BN over sync batch norm, the test) must be entered by all
    // or none, and a validation one rank cut short is not the set's. Every rank calls it at the
    // same points (conditions before it in an && are the same on every rank); once agreed, the
    // stop holds on every rank.
    auto stopAgreed = [&] {
      if (ddp.control(stopRequested_, false).stop) stopRequested_ = true;
      return stopRequested_.load();
    };

    // Validation, in FP32 as PySlowFast, of the clips the loader draws for `epoch` (0-based); the
    // records carry epoch + 1, TensorBoard's steps are len(val_loader) * tbEpoch + cur_iter.
    auto validate = [&](int epoch, int tbEpoch) {
      torch::NoGradGuard noGrad;
      net->eval();
      valLoader->startEpoch(epoch);
      double correct1 = 0, correct5 = 0, n = 0, lossSum = 0;
      std::vector<double> batchCounts;  // per batch: clips wrong at top-1, at top-5, clips (TensorBoard)
      const std::string headAct = cfg_.getString("MODEL.HEAD_ACT");
      while (auto vb = valLoader->next()) {
        if (stopRequested_) break;
        auto inputs = batchTensors(*vb, device, channelsLast);
        auto labels = torch::tensor(vb->labels, torch::kLong).to(device);
        auto probs = net->forward(inputs);
        // Cross entropy from what the head gives: probabilities (softmax) or logits (none); a
        // sigmoid head's outputs are no distribution over the classes, so no loss is logged.
        if (headAct == "softmax")
          lossSum += torch::nn::functional::nll_loss(torch::log(probs.clamp_min(1e-12)), labels).item<double>() * labels.size(0);
        else if (headAct == "none")
          lossSum += torch::nn::functional::cross_entropy(probs.to(torch::kFloat), labels).item<double>() * labels.size(0);
        const auto [e1, e5] = topErrors(probs, labels);
        correct1 += (100.0 - e1) * labels.size(0) / 100.0;
        correct5 += (100.0 - e5) * labels.size(0) / 100.0;
        n += static_cast<double>(labels.size(0));
        if (tensorBoardWanted)
          batchCounts.insert(batchCounts.end(), {e1 * labels.size(0) / 100.0, e5 * labels.size(0) / 100.0,
                                                 static_cast<double>(labels.size(0))});
        valLoader->recycle(std::move(*vb));
        util::killIfArmed("validation");
      }
      valLoader->stop();
      if (!valLoader->error().empty()) throw std::runtime_error(valLoader->error());
      const bool stopped = stopAgreed();  // a rank stopped inside: no result for the set
      // Each rank evaluated its own share: the counts add up to one process's over the whole set.
      std::tie(correct1, correct5, n, lossSum) = ddp.sum(correct1, correct5, n, lossSum);
      if (tensorBoardWanted) {
        // PySlowFast: each batch's errors averaged over the ranks, at len(val_loader) * cur_epoch
        // + cur_iter. Ranks' shares differ by at most one clip; batch i pools rank r's batch i.
        auto batches = torch::tensor({static_cast<double>(batchCounts.size() / 3)}, torch::kDouble);
        ddp.maxInPlace(batches, "validation batches");
        const auto perRank = static_cast<std::int64_t>(batches.item<double>());
        auto counts = torch::zeros({perRank * 3}, torch::kDouble);
        std::copy(batchCounts.begin(), batchCounts.end(), counts.data_ptr<double>());
        ddp.sumInPlace(counts, "validation batch errors");
        const double* k = counts.data_ptr<double>();
        for (std::int64_t i = 0; i < perRank && !stopped; ++i)
          if (k[3 * i + 2] > 0)
            toTensorBoard({{"Val/Top1_err", 100.0 * k[3 * i] / k[3 * i + 2]}, {"Val/Top5_err", 100.0 * k[3 * i + 1] / k[3 * i + 2]}},
                          perRank * tbEpoch + i, step, epoch + 1);
      }
      if (n > 0 && !stopped) {
        const double top1 = 100.0 * (1.0 - correct1 / n), top5 = 100.0 * (1.0 - correct5 / n);
        bestTop1 = std::min(bestTop1, top1);
        runlog::MetricEvent v;
        v.kind = runlog::kind::kVal;
        v.step = step;
        v.epoch = epoch + 1;
        v.values = {{"top1_err", top1}, {"top5_err", top5}, {"min_top1_err", bestTop1}};
        if (headAct != "sigmoid") v.values["loss"] = lossSum / n;
        emit(v);
        char line[160];
        std::snprintf(line, sizeof line, "epoch %d/%d: val top-1 error %.2f%%, top-5 %.2f%%, best top-1 %.2f%%", epoch + 1, maxEpoch,
                      top1, top5, bestTop1);
        log(line);
      }
    };

    int skippedInARow = 0;
    LossExplosionGuard explosion(killFactor, static_cast<int>(c.getInt("LOG_PERIOD")));
    for (int epoch = startEpoch; epoch < maxEpoch; ++epoch) {
      if (mg) enterPhase(epoch);
      net->train();
      explosion.startEpoch();
      const std::int64_t firstIter = epoch == startEpoch ? startIter : 0;
      if (!synthetic_) trainLoader->startEpoch(epoch, static_cast<int>(firstIter * accum));
      double epochLoss = 0, epochTop1 = 0, epochTop5 = 0;
      int epochIters = 0;
      for (std::int64_t it = firstIter; it < itersPerEpoch; ++it) {
        // Pause and stop between iterations; with several ranks, any rank's request holds for all.
        auto control = ddp.control(stopRequested_, pauseRequested_);
        while (control.pause && !control.stop) {
          state_ = TrainerState::Paused;
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          control = ddp.control(stopRequested_, pauseRequested_);
        }
        if (state_ == TrainerState::Paused) state_ = TrainerState::Running;
        if (control.stop) {
          trainLoader->stop();
          checkpoint(epoch, it);  // a consistent point to resume from
          finish(TrainerState::Stopped, "");
          return;
        }
        std::vector<MicroBatch> micro;
        double dataWait = 0;
        for (std::int64_t k = 0; k < accum && synthetic_; ++k) micro.push_back(syntheticBatch);
        for (std::int64_t k = 0; k < accum && !synthetic_; ++k) {
          const auto t0 = Clock::now();
          auto batch = trainLoader->next();
          dataWait += since(t0);
          if (!batch) throw std::runtime_error(trainLoader->error().empty() ? "the training loader ended early" : trainLoader->error());
          for (const auto& f : trainLoader->takeFailures())
            event("decode_failure", f.path + ": " + f.reason, step, epoch,
                  {{"decode_failures_total", static_cast<double>(trainLoader->totalFailures())}});
          MicroBatch mb;
          mb.inputs = batchTensors(*batch, device, channelsLast);
          mb.labels = torch::tensor(batch->labels, torch::kLong).to(device);
          trainLoader->recycle(std::move(*batch));
          if (mixup.enabled) {  // train_net.py: mixup_fn(inputs, labels) before the forward
            const auto& x = mb.inputs.front();
            const auto mix = drawMix(mixup, x.size(-2), x.size(-1),
                                     mixSeed(static_cast<std::uint64_t>(c.getInt("RNG_SEED")), epoch, it, k, ddp.rank()));
            applyMix(mb.inputs, mix);
            mb.targets = mixTargets(mb.labels, mixup.num_classes, mix.lam, mixup.smoothing);
          }
          micro.push_back(std::move(mb));
        }
        const auto iterStart = Clock::now();
        const double fracEpoch = epoch + static_cast<double>(it) / static_cast<double>(itersPerEpoch);
        const double lr = schedule.at(fracEpoch);
        setLearningRate(*optimizer, lr, layerDecay);
        StepOutcome out = stepper.run(micro);
        if (cuda) torch::cuda::synchronize();
        // Loss and errors averaged over the ranks, so every rank logs and decides on the same values.
        auto [top1, top5] = out.targets.defined() ? std::apply(topErrors, mixedPredictionsForErrors(out.logits, out.targets))
                                                  : topErrors(out.logits, out.labels);
        std::tie(out.loss, top1, top5) = ddp.average(out.loss, top1, top5);
        if (!out.finite_loss)
          throw std::runtime_error("diverged: the loss is " + std::to_string(out.loss) + " at step " + std::to_string(step + 1) +
                                   " (" + noScaler + ", nothing to skip); lower SOLVER.BASE_LR or SOLVER.LR_SCALE");
        if (std::isfinite(out.loss))  // a non-finite loss under a scaler is a skipped step, handled below
          if (const auto why = explosion.add(out.loss)) throw std::runtime_error(*why);
        skippedInARow = out.stepped ? 0 : skippedInARow + 1;
        const auto& update = out.update;
        if (update.backed_off) {
          // Where the overflow starts: the skipped step's gradients are still in .grad (the next
          // step zeroes them); one isfinite reduction per parameter, only on skipped steps.
          const std::string layer = audit::firstNonFiniteGradLayer(*net);
          event("scaler_backoff", "inf/NaN gradients: step skipped, loss scale " + std::to_string(update.scale_before) + " -> " +
                                      std::to_string(update.scale_after) + (layer.empty() ? std::string() : "; first in " + layer),
                step + 1, fracEpoch, {{"loss_scale", update.scale_after}}, layer);
        }
        if (!out.stepped && !scaling)
          event("nonfinite_gradients", "inf/NaN gradients of a finite loss (" + noScaler + "): step skipped, weights kept",
                step + 1, fracEpoch, {});
        if (update.grew)
          event("scaler_growth", "loss scale " + std::to_string(update.scale_before) + " -> " + std::to_string(update.scale_after),
                step + 1, fracEpoch, {{"loss_scale", update.scale_after}});
        if (skippedInARow > maxSkipped)
          throw std::runtime_error("diverged: " + std::to_string(skippedInARow) + " optimizer steps in a row had inf/NaN gradients "
                                   "(AMP.MAX_SKIPPED_STEPS " + std::to_string(maxSkipped) +
                                   "); lower SOLVER.BASE_LR or SOLVER.LR_SCALE" +
                                   (scaling ? std::string(", or try AMP.DTYPE bfloat16") : std::string()));
        if (stepper.scaler().enabled() && minScale > 0 && update.scale_after < minScale)
          throw std::runtime_error("diverged: the loss scale fell to " + std::to_string(update.scale_after) +
                                   ", below AMP.MIN_LOSS_SCALE " + std::to_string(minScale) + "; lower SOLVER.BASE_LR or try bfloat16");
        const double iterTime = since(iterStart) + dataWait;
        const double clips = static_cast<double>(out.labels.size(0) * ddp.worldSize());  // global
        runlog::MetricEvent e;
        e.kind = runlog::kind::kTrain;
        e.step = ++step;
        e.epoch = epoch + static_cast<double>(it + 1) / static_cast<double>(itersPerEpoch);
        e.values = {{"loss", out.loss}, {"top1_err", top1}, {"top5_err", top5}, {"lr", lr},
                    {"loss_scale", update.scale_after}, {"skipped", out.stepped ? 0.0 : 1.0},
                    {"grad_norm", out.grad_norm}, {"iter_time_s", iterTime}, {"data_wait_s", dataWait},
                    {"clips_per_s", clips / iterTime}};
        if (ddp.active()) e.values["sync_wait_s"] = ddp.lastSyncWaitSeconds();
        if (cuda) {
          const auto m = system::cudaMemory(device.index());
          e.values["mem_allocated_bytes"] = static_cast<double>(m.allocated_bytes);
          e.values["mem_reserved_bytes"] = static_cast<double>(m.reserved_bytes);
          e.values["mem_peak_bytes"] = static_cast<double>(m.peak_allocated_bytes);
        } else {
          e.values["mem_rss_bytes"] = static_cast<double>(system::processRssBytes());
          e.values["mem_peak_rss_bytes"] = static_cast<double>(system::processPeakRssBytes());
        }
        emit(e);
        checkLog();
        {  // PySlowFast's global_step: data_size * cur_epoch + cur_iter
          std::vector<runlog::TensorBoardScalar> tb = {{"Train/loss", out.loss}, {"Train/lr", lr}, {"Train/Top1_err", top1}, {"Train/Top5_err", top5}};
          if (stepper.scaler().enabled()) tb.push_back({"AMP/loss_scale", update.scale_after});
          toTensorBoard(tb, itersPerEpoch * epoch + it, step, e.epoch);
        }
        util::killIfArmed("step");  // fault drills (docs/reliability.md)
        epochLoss += out.loss, epochTop1 += top1, epochTop5 += top5, ++epochIters;
        std::lock_guard<std::mutex> lock(mutex_);
        progress_.epoch = epoch;
        progress_.step = step;
        progress_.last_loss = out.loss;
      }
      runlog::MetricEvent summary;
      summary.kind = runlog::kind::kEpoch;
      summary.step = step;
      summary.epoch = epoch + 1;
      if (epochIters)
        summary.values = {{"loss", epochLoss / epochIters}, {"top1_err", epochTop1 / epochIters}, {"top5_err", epochTop5 / epochIters},
                          {"mem_peak_rss_bytes", static_cast<double>(system::processPeakRssBytes())}};
      emit(summary);
      meta.updatedAt = runlog::unixTimeNow();
      if (writes) dir.writeMetadata(meta);

      // With long cycles MULTIGRID.EVAL_FREQ times per phase, the last epoch of each among them.
      const bool evalEpoch = !synthetic_ && (mg ? multigrid::isPhaseEvalEpoch(*mg, epoch, c.getInt("MULTIGRID.EVAL_FREQ"), evalPeriod)
                                                : (epoch + 1) % evalPeriod == 0 || epoch + 1 == maxEpoch);
      const bool checkpointEpoch = mg ? multigrid::isPhaseEvalEpoch(*mg, epoch, c.getInt("MULTIGRID.EVAL_FREQ"), checkpointPeriod)
                                      : (epoch + 1) % checkpointPeriod == 0 || epoch + 1 == maxEpoch;
      if (util::injectedFault("epoch_end") == util::FaultAction::Stop) stopRequested_ = true;  // a drill's stop here
      const bool stopNow = stopAgreed();
      if (preciseLoader && (evalEpoch || checkpointEpoch) && !stopNow) {
        // PySlowFast: precise BN statistics before the checkpoint and the evaluation, in FP32.
        const int want = static_cast<int>(
            std::min<std::int64_t>(c.getInt("BN.NUM_BATCHES_PRECISE"), static_cast<std::int64_t>(preciseLoader->batchesPerEpoch())));
        preciseLoader->startEpoch(epoch);
        const bool canStop = !ddp.active();  // with several ranks every one runs all batches (sync BN meets in them)
        const auto pr = updatePreciseBnStats(*net, want, [&](std::vector<torch::Tensor>& in) {
          if (canStop && stopRequested_) return false;
          auto b = preciseLoader->next();
          if (!b) return false;
          in = batchTensors(*b, device, channelsLast);
          preciseLoader->recycle(std::move(*b));
          return true;
        });
        preciseLoader->stop();
        if (!preciseLoader->error().empty()) throw std::runtime_error(preciseLoader->error());
        if (pr.layers > 0 && !pr.aborted)
          event("precise_bn",
                "running statistics of " + std::to_string(pr.layers) + " batch norms recomputed over " + std::to_string(pr.batches) +
                    " training batches (BN.USE_PRECISE_STATS, BN.NUM_BATCHES_PRECISE)",
                step, epoch + 1, {{"layers", pr.layers}, {"batches", pr.batches}});
      }
      if (evalEpoch) validate(epoch, epoch);
      checkLog();
      if (checkpointEpoch) checkpoint(epoch + 1, 0);
    }
    if (startEpoch == maxEpoch && startIter == 0 && !synthetic_ && !stopAgreed()) {
      // PySlowFast's train_net: a run that starts at its last epoch (resumed after its end, or
      // initialised from a checkpoint of MAX_EPOCH epochs) evaluates that checkpoint once. The
      // clips are the last epoch's (validation draws as training does: random clip and crop), so
      // the errors repeat the last validation's; TensorBoard's steps follow it, as PySlowFast's.
      if (mg) enterPhase(maxEpoch - 1);
      log("training already ended (epoch " + std::to_string(maxEpoch) + "/" + std::to_string(maxEpoch) +
          "): validating the checkpoint once, as PySlowFast does");
      validate(maxEpoch - 1, startEpoch);
    }
    if (c.getBool("TEST.ENABLE") && !synthetic_ && !stopAgreed()) {
      const std::string last = writes ? latestCheckpoint(runDir_) : std::string();
      if (!multiViewTest(*net, last.empty() ? "the trained model" : last, step, maxEpoch)) {
        finish(TrainerState::Stopped, "");
        return;
      }
    }
    finish(TrainerState::Finished, "");
  } catch (const std::exception& e) {
    try {
      event("error", errorText(e), progress().step, progress().epoch);
    } catch (...) {
    }
    finish(TrainerState::Failed, errorText(e));
  }
}

}  // namespace amp::train
