// The engine thread's run (Trainer::run): PySlowFast's run_net for one process, split by
// responsibility into the methods of Trainer::Impl, whose members are the run's state.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <thread>
#include <tuple>

#include "audit/NonFiniteGrad.h"
#include "config/ConfigWriter.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "multigrid/Schedule.h"
#include "runlog/CheckpointFiles.h"
#include "system/DeviceInfo.h"
#include "system/MemoryProbe.h"
#include "train/Checkpoint.h"
#include "train/DataParallel.h"
#include "train/ErrorText.h"
#include "train/LossExplosion.h"
#include "train/LrSchedule.h"
#include "train/Mixup.h"
#include "train/MultiViewTest.h"
#include "train/Optimizer.h"
#include "train/PreciseBn.h"
#include "train/RunRecorder.h"
#include "train/TrainStep.h"
#include "train/Trainer.h"
#include "util/FaultInjection.h"

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

runlog::RunStatus runStatus(TrainerState s) {
  return s == TrainerState::Finished  ? runlog::RunStatus::Finished
         : s == TrainerState::Stopped ? runlog::RunStatus::Stopped
                                      : runlog::RunStatus::Failed;
}

}  // namespace

// The members are built in this order (prepare(), then the data, the model, the position) and
// destroyed in reverse: the model and the loaders before the process group they use.
struct Trainer::Impl {
  Impl(Trainer& trainer, RunRecorder& record) : t(trainer), rec(record) {}

  Trainer& t;
  RunRecorder& rec;

  // An epoch's training averages (the "epoch" record).
  struct EpochTotals {
    double loss = 0, top1 = 0, top5 = 0;
    int iterations = 0;
  };

  // The run: multigrid's schedule, the config it trains with (the user's, or the first phase's),
  // device, process group and precision.
  std::optional<multigrid::Schedule> mg;
  int machineProcesses = 1;
  const multigrid::Phase* firstPhase = nullptr;
  config::Config c;
  torch::Device device{torch::kCPU};
  std::unique_ptr<DataParallel> ddp;
  PrecisionPolicy policy;
  bool channelsLast = false;
  bool cuda = false;
  bool tensorBoardWanted = false;
  bool earlierLog = false;  // the metrics log holds lines of an earlier start in this folder
  std::string resumeFrom;

  // Data: loaders rebuilt for each multigrid phase.
  data::KineticsList trainList, valList;
  std::int64_t accum = 1;
  std::unique_ptr<data::VideoLoader> trainLoader, valLoader, preciseLoader;
  std::int64_t itersPerEpoch = 0;
  const multigrid::Phase* loadersPhase = nullptr;
  std::int64_t totalSteps = 0;

  // Model, optimizer, schedule, precision.
  std::shared_ptr<models::VideoNetImpl> net;
  std::vector<double> layerDecay;  // SOLVER.LAYER_DECAY's multiplier of each parameter group
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<TrainStep> stepper;
  bool scaling = false;
  std::string noScaler;
  MicroBatch syntheticBatch;
  std::unique_ptr<LrSchedule> schedule;
  MixupParams mixup;
  double killFactor = 0;
  int maxEpoch = 0, evalPeriod = 1, checkpointPeriod = 1;
  std::int64_t maxSkipped = 0;
  double minScale = 0;

  // Where the run is.
  int startEpoch = 0;
  std::int64_t step = 0, startIter = 0;
  double bestTop1 = 100.0;
  const multigrid::Phase* phase = nullptr;
  int skippedInARow = 0;
  std::unique_ptr<LossExplosionGuard> explosion;

  void run();
  void prepare();
  void describeRun();
  void finish(TrainerState s, const std::string& err);
  bool multiViewTest(models::VideoNetImpl& model, std::string weights, std::int64_t atStep, double atEpoch);
  void testOnly();
  data::KineticsList readList(const char* split) const;
  std::unique_ptr<data::VideoLoader> makeTrainLoader(const config::Config& pc, const multigrid::Phase* ph) const;
  void buildLoaders(const config::Config& pc, const multigrid::Phase* ph);
  void prepareData();
  void buildModel();
  void restore();
  void enterPhase(int epoch);
  void checkpoint(int epochsDone, std::int64_t iterInEpoch);
  bool stopAgreed();
  void validate(int epoch, int tbEpoch);
  bool waitWhilePaused();
  std::vector<MicroBatch> nextMicroBatches(int epoch, std::int64_t it, double& dataWait);
  void checkStep(const StepOutcome& out, double fracEpoch);
  void recordStep(const StepOutcome& out, double top1, double top5, double lr, double iterTime, double dataWait, int epoch,
                  std::int64_t it);
  bool trainEpoch(int epoch);
  void preciseBn(int epoch);
  void endEpoch(int epoch, const EpochTotals& totals);
};

void Trainer::run() {
  struct ReleaseLast {  // declared first: the run's files are closed before another writer may come
    runlog::RunLock& lock;
    ~ReleaseLast() { lock.release(); }
  } releaseLock{lock_};
  RunRecorder rec(runDir_, dist_.rank == 0, sink_);  // only global rank 0 writes the run directory
  std::string failure;
  {
    std::optional<Impl> impl;  // built inside the try: a member that throws is a failed run too
    try {
      impl.emplace(*this, rec);
      impl->run();
      return;
    } catch (const std::exception& e) {
      failure = errorText(e);
    }
  }  // the run's loaders, model and process group are gone before the failure is recorded
  try {
    rec.event("error", failure, progress().step, progress().epoch);
  } catch (...) {
  }
  rec.close(runlog::RunStatus::Failed, failure, toString(TrainerState::Failed));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = failure;
  }
  state_ = TrainerState::Failed;
}

void Trainer::Impl::finish(TrainerState s, const std::string& err) {
  rec.close(runStatus(s), err, toString(s));
  {
    std::lock_guard<std::mutex> lock(t.mutex_);
    t.error_ = err;
  }
  t.state_ = s;
}

void Trainer::Impl::run() {
  prepare();
  describeRun();
  // TENSORBOARD.ENABLE: PySlowFast's scalars (Train/loss, Train/lr, Train/Top1_err,
  // Train/Top5_err per step; Val/Top1_err, Val/Top5_err per validation batch) at its global
  // steps. Every rank takes part in gathering the validation's per-batch errors (decided by the
  // config alone, which every rank shares, so all make the same collective calls whatever their
  // build); rank 0 writes.
  tensorBoardWanted = c.getBool("TENSORBOARD.ENABLE") && !t.synthetic_;
  rec.openTensorBoard(t.cfg_, tensorBoardWanted);
  if (!c.getBool("TRAIN.ENABLE")) {  // only the test, as PySlowFast's test_net
    testOnly();
    return;
  }
  prepareData();
  buildModel();
  restore();
  {
    std::lock_guard<std::mutex> lock(t.mutex_);
    t.progress_.max_epoch = maxEpoch;
    t.progress_.steps_per_epoch = itersPerEpoch;
    t.progress_.total_steps = totalSteps;
    t.progress_.epoch = startEpoch;
    t.progress_.step = step;
  }
  explosion = std::make_unique<LossExplosionGuard>(killFactor, static_cast<int>(c.getInt("LOG_PERIOD")));
  for (int epoch = startEpoch; epoch < maxEpoch; ++epoch)
    if (!trainEpoch(epoch)) return;  // stopped: checkpointed and finished
  if (startEpoch == maxEpoch && startIter == 0 && !t.synthetic_ && !stopAgreed()) {
    // PySlowFast's train_net: a run that starts at its last epoch (resumed after its end, or
    // initialised from a checkpoint of MAX_EPOCH epochs) evaluates that checkpoint once. The
    // clips are the last epoch's (validation draws as training does: random clip and crop), so
    // the errors repeat the last validation's; TensorBoard's steps follow it, as PySlowFast's.
    if (mg) enterPhase(maxEpoch - 1);
    rec.log("training already ended (epoch " + std::to_string(maxEpoch) + "/" + std::to_string(maxEpoch) +
            "): validating the checkpoint once, as PySlowFast does");
    validate(maxEpoch - 1, startEpoch);
  }
  if (c.getBool("TEST.ENABLE") && !t.synthetic_ && !stopAgreed()) {
    const std::string last = rec.writes() ? latestCheckpoint(t.runDir_) : std::string();
    if (!multiViewTest(*net, last.empty() ? "the trained model" : last, step, maxEpoch)) {
      finish(TrainerState::Stopped, "");
      return;
    }
  }
  finish(TrainerState::Finished, "");
}

// Multigrid (MULTIGRID.LONG_CYCLE / SHORT_CYCLE): the run trains with PySlowFast's rewritten
// SOLVER.STEPS / LRS / MAX_EPOCH, and each long-cycle phase at its own shape, batch and batch
// norm (phaseConfig). The run directory keeps the config as the user wrote it.
void Trainer::Impl::prepare() {
  const config::Config& cfg = t.cfg_;
  if ((cfg.getBool("MULTIGRID.LONG_CYCLE") || cfg.getBool("MULTIGRID.SHORT_CYCLE")) && cfg.getBool("TRAIN.ENABLE") && !t.synthetic_)
    mg = multigrid::buildSchedule(cfg);
  machineProcesses = dist::processesPerShard(cfg);
  firstPhase = mg ? &multigrid::phaseAtEpoch(*mg, 0) : nullptr;
  c = mg ? multigrid::phaseConfig(cfg, *mg, *firstPhase, machineProcesses) : cfg;
  device = trainingDevice(c, t.dist_.local_rank);
  ddp = std::make_unique<DataParallel>(t.dist_, c, device);  // joins the other ranks (nothing to join with one process)
  ddp->checkSameConfig(c);
  policy = PrecisionPolicy::fromConfig(c);
  channelsLast = useChannelsLast3d(c, device);
  cuda = device.is_cuda();
  torch::manual_seed(static_cast<uint64_t>(c.getInt("RNG_SEED")));
}

// run.json (resuming, TRAIN.AUTO_RESUME with a checkpoint in OUTPUT_DIR, keeps the run's
// identity), the config as written, the metrics log opened, the first line of the text log.
void Trainer::Impl::describeRun() {
  resumeFrom = c.getBool("TRAIN.AUTO_RESUME") ? latestCheckpoint(t.runDir_) : std::string();
  runlog::RunMetadata& meta = rec.meta;
  if (!resumeFrom.empty())
    if (auto old = rec.dir().readMetadata()) meta = *old;
  meta.name = std::filesystem::path(t.runDir_).filename().string();
  meta.status = runlog::RunStatus::Running;
  meta.error.clear();
  meta.endedAt = 0;
  meta.precision = policy.name;
  meta.model = c.getString("MODEL.MODEL_NAME") + " (" + c.getString("MODEL.ARCH") + ")";
  meta.configSource = t.configSource_;
  meta.host = runlog::hostName();
  meta.pid = getpid();
  meta.startedAt = meta.updatedAt = runlog::unixTimeNow();
  if (meta.createdAt == 0) meta.createdAt = meta.startedAt;
  const auto devInfo = system::probeDevices();
  const int threads = at::get_num_threads();
  const std::string cpu = "cpu (" + std::to_string(threads) + (threads == 1 ? " thread" : " threads") +
                          (ddp->active() ? " each, " : ", ") + devInfo.blas + ")";
  meta.device = cuda ? "cuda:" + std::to_string(device.index()) : cpu;
  if (ddp->active()) meta.device = std::to_string(ddp->worldSize()) + " x " + (cuda ? std::string("cuda") : cpu);
  meta.worldSize = ddp->worldSize();
  meta.distBackend = ddp->backend();
  meta.versions = {{"ampstudio", AMPSTUDIO_VERSION}, {"libtorch", devInfo.libtorch_version}, {"ffmpeg", devInfo.ffmpeg_version}};
  earlierLog = rec.open(t.cfg_);
  rec.log("run started: " + meta.model + ", " + policy.name + ", " + meta.device +
          (ddp->active() ? ", data parallel over " + ddp->backend() : std::string()));
}

// PySlowFast's run_net: train when TRAIN.ENABLE, then the multi-view test when TEST.ENABLE, in
// FP32 on the model as trained (the last checkpoint) unless TEST.CHECKPOINT_FILE_PATH names
// another. With several ranks each tests its share of the views. False when stopped meanwhile.
bool Trainer::Impl::multiViewTest(models::VideoNetImpl& model, std::string weights, std::int64_t atStep, double atEpoch) {
  const config::Config& cfg = t.cfg_;
  if (const std::string other = cfg.getString("TEST.CHECKPOINT_FILE_PATH"); !other.empty()) {
    loadTestWeights(cfg, other, model);
    weights = other;
  }
  // TEST.NUM_TEMPORAL_CLIPS: one test per number of temporal clips, as test_net.py.
  for (const int clips : temporalClipCounts(cfg)) {
    const config::Config tc = withTemporalClips(cfg, clips);
    const auto params = data::ClipParams::fromConfig(tc);
    rec.event("testing", "multi-view test of " + weights + ": " + std::to_string(params.viewsPerTestVideo()) +
                             " views per video (" + std::to_string(clips) + " temporal clips x TEST.NUM_SPATIAL_CROPS)",
              atStep, atEpoch);
    TestOptions options;
    options.cancel = &t.stopRequested_;
    TestResult r;
    try {
      testLoadedModel(tc, model, device, channelsLast, *ddp, options, r);
    } catch (const TestCancelled&) {
      return false;  // stopped while testing, here or on another rank: the run is complete otherwise
    } catch (const std::exception&) {
      if (t.stopRequested_) return false;
      throw;
    }
    runlog::MetricEvent e;
    e.kind = runlog::kind::kTest;
    e.step = atStep;
    e.epoch = atEpoch;
    e.values = {{"top1_err", r.top1_err}, {"top5_err", r.top5_err}, {"view_top1_err", r.view_top1_err},
                {"videos", static_cast<double>(r.videos)}, {"views_per_video", static_cast<double>(r.views_per_video)},
                {"temporal_clips", static_cast<double>(clips)}};
    rec.record(e);
    char line[240];
    std::snprintf(line, sizeof line,
                  "test: top-1 error %.2f%%, top-5 %.2f%% over %d videos x %d views (%d temporal clips; one view: %.2f%%)",
                  r.top1_err, r.top5_err, r.videos, r.views_per_video, clips, r.view_top1_err);
    rec.log(line);
  }
  return true;
}

// TRAIN.ENABLE False: PySlowFast's test_net on the checkpoint it names or the run's last.
void Trainer::Impl::testOnly() {
  if (t.synthetic_) throw std::runtime_error("TRAIN.ENABLE: False; random clips are for training benchmarks");
  if (!c.getBool("TEST.ENABLE"))
    throw std::runtime_error("TRAIN.ENABLE and TEST.ENABLE are both False: nothing to run; set one of them to True");
  const std::string weights = testCheckpoint(c);
  if (weights.empty())
    throw std::runtime_error("TRAIN.ENABLE: False, and there is no checkpoint to test: set TEST.CHECKPOINT_FILE_PATH (or "
                             "TRAIN.CHECKPOINT_FILE_PATH), or train into OUTPUT_DIR first");
  net = models::buildVideoNet(c);
  loadTestWeights(c, weights, *net);
  net->to(device);
  if (channelsLast) toChannelsLast3d(*net);
  finish(multiViewTest(*net, weights, 0, 0) ? TrainerState::Finished : TrainerState::Stopped, "");
}

data::KineticsList Trainer::Impl::readList(const char* split) const {
  data::KineticsList list;
  std::string err;
  if (!data::readKineticsList(c.getString("DATA.PATH_TO_DATA_DIR"), split, c.getString("DATA.PATH_LABEL_SEPARATOR"),
                              c.getString("DATA.PATH_PREFIX"), /*skipRows=*/0, list, &err))
    throw std::runtime_error(err);
  if (const auto classes = c.getInt("MODEL.NUM_CLASSES"); list.maxLabel >= classes)
    throw std::runtime_error(list.csvPath + ": labels go up to " + std::to_string(list.maxLabel) + " but MODEL.NUM_CLASSES is " +
                             std::to_string(classes) + " (labels are 0 .. NUM_CLASSES-1)");
  return list;
}

std::unique_ptr<data::VideoLoader> Trainer::Impl::makeTrainLoader(const config::Config& pc, const multigrid::Phase* ph) const {
  auto trainOptions = data::LoaderOptions::fromConfig(pc, data::Split::Train, ddp->rank(), ddp->worldSize());
  if (ph && mg->short_cycle)  // ShortCycleBatchSampler: the batch and crop change every iteration
    for (std::int64_t k = 0; k < 3; ++k) {
      const auto sc = multigrid::shortCycleStep(*ph, k);
      trainOptions.short_cycle.push_back(
          {static_cast<int>(sc.per_device_batch), static_cast<int>(sc.crop), static_cast<int>(sc.jitter_min_scale)});
    }
  return std::make_unique<data::VideoLoader>(trainList, data::ClipParams::fromConfig(pc), data::Split::Train, trainOptions);
}

void Trainer::Impl::buildLoaders(const config::Config& pc, const multigrid::Phase* ph) {
  const auto params = data::ClipParams::fromConfig(pc);
  trainLoader = makeTrainLoader(pc, ph);
  valLoader = std::make_unique<data::VideoLoader>(valList, params, data::Split::Val,
                                                  data::LoaderOptions::fromConfig(pc, data::Split::Val, ddp->rank(), ddp->worldSize()));
  // BN.USE_PRECISE_STATS: PySlowFast's separate training loader for precise BN (training
  // augmentation, its own shuffle: here its own seed; never short cycles).
  preciseLoader.reset();
  if (pc.getBool("BN.USE_PRECISE_STATS") && !t.synthetic_) {
    auto o = data::LoaderOptions::fromConfig(pc, data::Split::Train, ddp->rank(), ddp->worldSize());
    o.seed += 1;
    preciseLoader = std::make_unique<data::VideoLoader>(trainList, params, data::Split::Train, o);
  }
  itersPerEpoch = t.synthetic_ ? std::int64_t{1000} : static_cast<std::int64_t>(trainLoader->batchesPerEpoch()) / accum;
  if (itersPerEpoch == 0)
    throw std::runtime_error("TRAIN.BATCH_SIZE: " + std::to_string(pc.getInt("TRAIN.BATCH_SIZE")) + " clips x SOLVER.GRAD_ACCUM_STEPS " +
                             std::to_string(accum) + " is more than the training set holds; no full optimizer step" +
                             (ph ? " (multigrid phase " + std::to_string(ph->index) + ")" : std::string()));
}

// The lists and loaders; random clips (bench overhead) need no dataset: the lists stay empty and
// an epoch is 1000 steps.
void Trainer::Impl::prepareData() {
  if (!t.synthetic_) {
    trainList = readList("train");
    valList = readList("val");
  }
  accum = c.getInt("SOLVER.GRAD_ACCUM_STEPS");
  buildLoaders(c, firstPhase);
  loadersPhase = firstPhase;
  // The run's optimizer steps, for progress and ETAs: with long cycles each phase's epochs at
  // its own iterations per epoch.
  totalSteps = static_cast<std::int64_t>(c.getInt("SOLVER.MAX_EPOCH")) * itersPerEpoch;
  if (mg && !t.synthetic_) {
    totalSteps = 0;
    for (const auto& ph : mg->phases) {
      const auto loader = makeTrainLoader(multigrid::phaseConfig(t.cfg_, *mg, ph, machineProcesses), &ph);
      const auto batches = static_cast<std::int64_t>(loader->batchesPerEpoch());
      totalSteps += (ph.end_epoch - ph.start_epoch) * (batches / accum);
    }
  }
}

void Trainer::Impl::buildModel() {
  net = models::buildVideoNet(c);
  net->to(device);
  if (channelsLast) toChannelsLast3d(*net);
  optimizer = buildOptimizer(c, *net, &layerDecay);
  stepper = std::make_unique<TrainStep>(c, *net, *optimizer, policy);
  scaling = stepper->scaler().enabled();
  noScaler = policy.mixed ? "autocast without a loss scaler" : "FP32";
  if (t.synthetic_) syntheticBatch = randomMicroBatch(c, c.getInt("TRAIN.BATCH_SIZE"), device, channelsLast);
  schedule = std::make_unique<LrSchedule>(c);
  mixup = MixupParams::fromConfig(c);
  if (mixup.enabled && !t.synthetic_) {
    rec.log("mixup: ALPHA " + std::to_string(mixup.alpha) + ", CUTMIX_ALPHA " + std::to_string(mixup.cutmix_alpha) + ", PROB " +
            std::to_string(mixup.prob) + ", SWITCH_PROB " + std::to_string(mixup.switch_prob) + ", label smoothing " +
            std::to_string(mixup.smoothing) + "; training errors are scored on mixed targets as PySlowFast does");
  }
  killFactor = c.getFloat("TRAIN.KILL_LOSS_EXPLOSION_FACTOR");
  maxEpoch = static_cast<int>(c.getInt("SOLVER.MAX_EPOCH"));
  evalPeriod = static_cast<int>(c.getInt("TRAIN.EVAL_PERIOD"));
  checkpointPeriod = static_cast<int>(c.getInt("TRAIN.CHECKPOINT_PERIOD"));
  maxSkipped = c.getInt("AMP.MAX_SKIPPED_STEPS");
  minScale = c.getFloat("AMP.MIN_LOSS_SCALE");
}

// Where training starts: the run's last checkpoint (resuming), TRAIN.CHECKPOINT_FILE_PATH's
// weights (initialising, fine-tuning) or the beginning; then every rank gets rank 0's weights.
void Trainer::Impl::restore() {
  if (rec.writes()) {  // this process holds the run's lock: a temporary checkpoint file is a dead writer's
    for (const auto& f : runlog::removeUnfinishedCheckpoints(t.runDir_))
      rec.log("removed " + f + ": a checkpoint an earlier process did not finish writing");
  }
  if (resumeFrom.empty() && earlierLog && c.getBool("TRAIN.ENABLE")) {
    // An earlier start here left no checkpoint (killed in its first epoch): training starts
    // over, and its logged steps are superseded, as after any resume (docs/run-format.md).
    rec.event("resumed", "from the beginning: the earlier start in this folder left no checkpoint", 0, 0);
  }
  if (!resumeFrom.empty()) {
    const auto info = loadCheckpoint(resumeFrom, {net.get(), optimizer.get(), &stepper->scaler(), true,
                                                  c.getStringList("TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN")});
    for (const auto& note : info.notes) rec.log("checkpoint: " + note);
    startEpoch = info.epochs_done;
    step = info.global_step;
    startIter = info.iter_in_epoch;
    bestTop1 = info.best_top1_err;
    rec.event("resumed", "from " + resumeFrom + " at step " + std::to_string(step), step,
              startEpoch + static_cast<double>(startIter) / static_cast<double>(itersPerEpoch));
  } else if (const std::string init = c.getString("TRAIN.CHECKPOINT_FILE_PATH"); !init.empty()) {
    const bool reset = c.getBool("TRAIN.CHECKPOINT_EPOCH_RESET");
    LoadTargets targets{net.get(), reset ? nullptr : optimizer.get(), reset ? nullptr : &stepper->scaler(), false,
                        c.getStringList("TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN"), /*subset=*/true};
    targets.caffe2 = c.getString("TRAIN.CHECKPOINT_TYPE") == "caffe2";
    targets.inflate = c.getBool("TRAIN.CHECKPOINT_INFLATE");
    const auto info = loadCheckpoint(init, targets);
    std::vector<std::string> fresh;
    for (const auto& note : info.notes) {
      rec.log("checkpoint: " + note);
      if (note.find("keeps its initialisation") != std::string::npos) fresh.push_back(note);
    }
    if (!fresh.empty())  // fine-tuning on other classes: say which weights start afresh, in the events too
      rec.event("checkpoint", std::to_string(fresh.size()) + " weight(s) of the model not loaded from " + init + ": " + fresh.front() +
                                  (fresh.size() > 1 ? " ..." : ""),
                step, startEpoch);
    if (!reset) {
      startEpoch = info.epochs_done;
      step = info.global_step;
      startIter = info.iter_in_epoch;
    }
    rec.event("initialised", "weights from " + init + (reset ? " (epoch count reset)" : ""), step, startEpoch);
  }
  // Sub batch norm: every group's running statistics start from the (loaded) merged ones.
  if (c.getString("BN.NORM_TYPE") == "sub_batchnorm") models::setBatchNormSplits(*net, c.getInt("BN.NUM_SPLITS"));
  ddp->attach(*net, *stepper, step);  // rank 0's weights to every rank; gradients averaged from here on
}

// Multigrid: entering a phase (at the start, on resuming, at each long-cycle boundary) builds its
// loaders and batch norm; weights, optimizer state, the loss scaler and the random state carry
// over (PySlowFast rebuilds the model and optimizer from the boundary's checkpoint and starts a
// new gradient scaler; the head pools globally here, so the model need not change).
void Trainer::Impl::enterPhase(int epoch) {
  const multigrid::Phase& ph = multigrid::phaseAtEpoch(*mg, epoch);
  if (phase && phase->index == ph.index) return;
  std::string note;
  const config::Config pc = multigrid::phaseConfig(t.cfg_, *mg, ph, machineProcesses, &note);
  if (&ph != loadersPhase) {
    buildLoaders(pc, &ph);
    loadersPhase = &ph;
  }
  const std::string norm = pc.getString("BN.NORM_TYPE");
  const std::int64_t splits = norm == "sub_batchnorm" ? pc.getInt("BN.NUM_SPLITS") : 1;
  ddp->setBatchNormSync(*net, "batchnorm", 1);
  models::setBatchNormSplits(*net, splits);
  ddp->setBatchNormSync(*net, norm, static_cast<int>(pc.getInt("BN.NUM_SYNC_DEVICES")));
  phase = &ph;
  {
    std::lock_guard<std::mutex> lock(t.mutex_);
    t.progress_.steps_per_epoch = itersPerEpoch;
  }
  if (!note.empty()) rec.log("multigrid: " + note);
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
  rec.event("shape_change", msg, step, epoch,
            {{"phase", ph.index},
             {"batch_size", static_cast<double>(pc.getInt("TRAIN.BATCH_SIZE"))},
             {"per_process_batch", static_cast<double>(perProcess)},
             {"frames", static_cast<double>(pc.getInt("DATA.NUM_FRAMES"))},
             {"crop", static_cast<double>(pc.getInt("DATA.TRAIN_CROP_SIZE"))},
             {"max_sampling_rate", static_cast<double>(std::max(maxRate, pc.getInt("DATA.SAMPLING_RATE")))},
             {"bn_splits", static_cast<double>(splits)},
             {"iterations_per_epoch", static_cast<double>(itersPerEpoch)},
             {"run_steps", static_cast<double>(totalSteps)}});
}

void Trainer::Impl::checkpoint(int epochsDone, std::int64_t iterInEpoch) {
  CheckpointInfo info;
  info.epochs_done = epochsDone;
  info.iter_in_epoch = iterInEpoch;
  info.global_step = step;
  info.best_top1_err = bestTop1;
  info.cfg_yaml = config::toYaml(t.cfg_);
  info.layer_decay = layerDecay;
  if (!rec.writes()) return;
  const std::string path = saveCheckpoint(t.runDir_, *net, optimizer.get(), &stepper->scaler(), info);
  rec.event("checkpoint", path, step, epochsDone + static_cast<double>(iterInEpoch) / static_cast<double>(itersPerEpoch));
}

// A stop outside the step loop's agreement: the ranks see SIGINT at slightly different times,
// and work with collectives (precise BN over sync batch norm, the test) must be entered by all or
// none, and a validation one rank cut short is not the set's. Every rank calls it at the same
// points (conditions before it in an && are the same on every rank); once agreed, the stop holds
// on every rank.
bool Trainer::Impl::stopAgreed() {
  if (ddp->control(t.stopRequested_, false).stop) t.stopRequested_ = true;
  return t.stopRequested_.load();
}

// Validation, in FP32 as PySlowFast, of the clips the loader draws for `epoch` (0-based); the
// records carry epoch + 1, TensorBoard's steps are len(val_loader) * tbEpoch + cur_iter.
void Trainer::Impl::validate(int epoch, int tbEpoch) {
  torch::NoGradGuard noGrad;
  net->eval();
  valLoader->startEpoch(epoch);
  double correct1 = 0, correct5 = 0, n = 0, lossSum = 0;
  std::vector<double> batchCounts;  // per batch: clips wrong at top-1, at top-5, clips (TensorBoard)
  const std::string headAct = t.cfg_.getString("MODEL.HEAD_ACT");
  while (auto vb = valLoader->next()) {
    if (t.stopRequested_) break;
    auto inputs = batchTensors(*vb, device, channelsLast);
    auto labels = torch::tensor(vb->labels, torch::kLong).to(device);
    auto probs = net->forward(inputs);
    // Cross entropy from what the head gives: probabilities (softmax) or logits (none); a sigmoid
    // head's outputs are no distribution over the classes, so no loss is logged.
    if (headAct == "softmax")
      lossSum += torch::nn::functional::nll_loss(torch::log(probs.clamp_min(1e-12)), labels).item<double>() * labels.size(0);
    else if (headAct == "none")
      lossSum += torch::nn::functional::cross_entropy(probs.to(torch::kFloat), labels).item<double>() * labels.size(0);
    const auto [e1, e5] = topErrors(probs, labels);
    correct1 += (100.0 - e1) * labels.size(0) / 100.0;
    correct5 += (100.0 - e5) * labels.size(0) / 100.0;
    n += static_cast<double>(labels.size(0));
    if (tensorBoardWanted)
      batchCounts.insert(batchCounts.end(),
                         {e1 * labels.size(0) / 100.0, e5 * labels.size(0) / 100.0, static_cast<double>(labels.size(0))});
    valLoader->recycle(std::move(*vb));
    util::killIfArmed("validation");
  }
  valLoader->stop();
  if (!valLoader->error().empty()) throw std::runtime_error(valLoader->error());
  const bool stopped = stopAgreed();  // a rank stopped inside: no result for the set
  // Each rank evaluated its own share: the counts add up to one process's over the whole set.
  std::tie(correct1, correct5, n, lossSum) = ddp->sum(correct1, correct5, n, lossSum);
  if (tensorBoardWanted) {
    // PySlowFast: each batch's errors averaged over the ranks, at len(val_loader) * cur_epoch +
    // cur_iter. Ranks' shares differ by at most one clip; batch i pools rank r's batch i.
    auto batches = torch::tensor({static_cast<double>(batchCounts.size() / 3)}, torch::kDouble);
    ddp->maxInPlace(batches, "validation batches");
    const auto perRank = static_cast<std::int64_t>(batches.item<double>());
    auto counts = torch::zeros({perRank * 3}, torch::kDouble);
    std::copy(batchCounts.begin(), batchCounts.end(), counts.data_ptr<double>());
    ddp->sumInPlace(counts, "validation batch errors");
    const double* k = counts.data_ptr<double>();
    for (std::int64_t i = 0; i < perRank && !stopped; ++i)
      if (k[3 * i + 2] > 0)
        rec.toTensorBoard({{"Val/Top1_err", 100.0 * k[3 * i] / k[3 * i + 2]}, {"Val/Top5_err", 100.0 * k[3 * i + 1] / k[3 * i + 2]}},
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
    rec.record(v);
    char line[160];
    std::snprintf(line, sizeof line, "epoch %d/%d: val top-1 error %.2f%%, top-5 %.2f%%, best top-1 %.2f%%", epoch + 1, maxEpoch, top1,
                  top5, bestTop1);
    rec.log(line);
  }
}

// Pause and stop between iterations; with several ranks, any rank's request holds for all.
// True when the ranks agreed to stop.
bool Trainer::Impl::waitWhilePaused() {
  auto control = ddp->control(t.stopRequested_, t.pauseRequested_);
  while (control.pause && !control.stop) {
    t.state_ = TrainerState::Paused;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    control = ddp->control(t.stopRequested_, t.pauseRequested_);
  }
  if (t.state_ == TrainerState::Paused) t.state_ = TrainerState::Running;
  return control.stop;
}

// The step's SOLVER.GRAD_ACCUM_STEPS micro-batches from the loader (or the fixed random one),
// mixed by MIXUP.* as train_net.py does before the forward; `dataWait` gets the seconds waited.
std::vector<MicroBatch> Trainer::Impl::nextMicroBatches(int epoch, std::int64_t it, double& dataWait) {
  std::vector<MicroBatch> micro;
  dataWait = 0;
  if (t.synthetic_) return std::vector<MicroBatch>(static_cast<std::size_t>(accum), syntheticBatch);
  for (std::int64_t k = 0; k < accum; ++k) {
    const auto t0 = Clock::now();
    auto batch = trainLoader->next();
    dataWait += since(t0);
    if (!batch) throw std::runtime_error(trainLoader->error().empty() ? "the training loader ended early" : trainLoader->error());
    for (const auto& f : trainLoader->takeFailures())
      rec.event("decode_failure", f.path + ": " + f.reason, step, epoch,
                {{"decode_failures_total", static_cast<double>(trainLoader->totalFailures())}});
    MicroBatch mb;
    mb.inputs = batchTensors(*batch, device, channelsLast);
    mb.labels = torch::tensor(batch->labels, torch::kLong).to(device);
    trainLoader->recycle(std::move(*batch));
    if (mixup.enabled) {
      const auto& x = mb.inputs.front();
      const auto mix = drawMix(mixup, x.size(-2), x.size(-1), mixSeed(static_cast<std::uint64_t>(c.getInt("RNG_SEED")), epoch, it, k, ddp->rank()));
      applyMix(mb.inputs, mix);
      mb.targets = mixTargets(mb.labels, mixup.num_classes, mix.lam, mixup.smoothing);
    }
    micro.push_back(std::move(mb));
  }
  return micro;
}

// What a step's outcome says of the run's health: divergence ends it with a message naming the
// key to change; the loss scaler's back-offs and growths are events (the back-off's with the
// first layer whose gradients overflowed).
void Trainer::Impl::checkStep(const StepOutcome& out, double fracEpoch) {
  if (!out.finite_loss)
    throw std::runtime_error("diverged: the loss is " + std::to_string(out.loss) + " at step " + std::to_string(step + 1) + " (" + noScaler +
                             ", nothing to skip); lower SOLVER.BASE_LR or SOLVER.LR_SCALE");
  if (std::isfinite(out.loss))  // a non-finite loss under a scaler is a skipped step, handled below
    if (const auto why = explosion->add(out.loss)) throw std::runtime_error(*why);
  skippedInARow = out.stepped ? 0 : skippedInARow + 1;
  const auto& update = out.update;
  if (update.backed_off) {
    // Where the overflow starts: the skipped step's gradients are still in .grad (the next step
    // zeroes them); one isfinite reduction per parameter, only on skipped steps.
    const std::string layer = audit::firstNonFiniteGradLayer(*net);
    rec.event("scaler_backoff", "inf/NaN gradients: step skipped, loss scale " + std::to_string(update.scale_before) + " -> " +
                                    std::to_string(update.scale_after) + (layer.empty() ? std::string() : "; first in " + layer),
              step + 1, fracEpoch, {{"loss_scale", update.scale_after}}, layer);
  }
  if (!out.stepped && !scaling)
    rec.event("nonfinite_gradients", "inf/NaN gradients of a finite loss (" + noScaler + "): step skipped, weights kept", step + 1,
              fracEpoch, {});
  if (update.grew)
    rec.event("scaler_growth", "loss scale " + std::to_string(update.scale_before) + " -> " + std::to_string(update.scale_after), step + 1,
              fracEpoch, {{"loss_scale", update.scale_after}});
  if (skippedInARow > maxSkipped)
    throw std::runtime_error("diverged: " + std::to_string(skippedInARow) + " optimizer steps in a row had inf/NaN gradients "
                             "(AMP.MAX_SKIPPED_STEPS " + std::to_string(maxSkipped) + "); lower SOLVER.BASE_LR or SOLVER.LR_SCALE" +
                             (scaling ? std::string(", or try AMP.DTYPE bfloat16") : std::string()));
  if (stepper->scaler().enabled() && minScale > 0 && update.scale_after < minScale)
    throw std::runtime_error("diverged: the loss scale fell to " + std::to_string(update.scale_after) + ", below AMP.MIN_LOSS_SCALE " +
                             std::to_string(minScale) + "; lower SOLVER.BASE_LR or try bfloat16");
}

// The step's record (metrics.jsonl, TensorBoard) and the progress the studio and the CLI read.
void Trainer::Impl::recordStep(const StepOutcome& out, double top1, double top5, double lr, double iterTime, double dataWait, int epoch,
                               std::int64_t it) {
  const auto& update = out.update;
  const double clips = static_cast<double>(out.labels.size(0) * ddp->worldSize());  // global
  runlog::MetricEvent e;
  e.kind = runlog::kind::kTrain;
  e.step = ++step;
  e.epoch = epoch + static_cast<double>(it + 1) / static_cast<double>(itersPerEpoch);
  e.values = {{"loss", out.loss},         {"top1_err", top1},
              {"top5_err", top5},         {"lr", lr},
              {"loss_scale", update.scale_after}, {"skipped", out.stepped ? 0.0 : 1.0},
              {"grad_norm", out.grad_norm}, {"iter_time_s", iterTime},
              {"data_wait_s", dataWait},   {"clips_per_s", clips / iterTime}};
  if (ddp->active()) e.values["sync_wait_s"] = ddp->lastSyncWaitSeconds();
  if (cuda) {
    const auto m = system::cudaMemory(device.index());
    e.values["mem_allocated_bytes"] = static_cast<double>(m.allocated_bytes);
    e.values["mem_reserved_bytes"] = static_cast<double>(m.reserved_bytes);
    e.values["mem_peak_bytes"] = static_cast<double>(m.peak_allocated_bytes);
  } else {
    e.values["mem_rss_bytes"] = static_cast<double>(system::processRssBytes());
    e.values["mem_peak_rss_bytes"] = static_cast<double>(system::processPeakRssBytes());
  }
  rec.record(e);
  rec.checkLog();
  {  // PySlowFast's global_step: data_size * cur_epoch + cur_iter
    std::vector<runlog::TensorBoardScalar> tb = {{"Train/loss", out.loss}, {"Train/lr", lr}, {"Train/Top1_err", top1}, {"Train/Top5_err", top5}};
    if (stepper->scaler().enabled()) tb.push_back({"AMP/loss_scale", update.scale_after});
    rec.toTensorBoard(tb, itersPerEpoch * epoch + it, step, e.epoch);
  }
  util::killIfArmed("step");  // fault drills (docs/reliability.md)
  std::lock_guard<std::mutex> lock(t.mutex_);
  t.progress_.epoch = epoch;
  t.progress_.step = step;
  t.progress_.last_loss = out.loss;
}

// One epoch's optimizer steps, then its end (epoch record, precise BN, validation, checkpoint).
// False when the ranks agreed to stop: the run is checkpointed where it is and finished.
bool Trainer::Impl::trainEpoch(int epoch) {
  if (mg) enterPhase(epoch);
  net->train();
  explosion->startEpoch();
  const std::int64_t firstIter = epoch == startEpoch ? startIter : 0;
  if (!t.synthetic_) trainLoader->startEpoch(epoch, static_cast<int>(firstIter * accum));
  EpochTotals totals;
  for (std::int64_t it = firstIter; it < itersPerEpoch; ++it) {
    if (waitWhilePaused()) {
      trainLoader->stop();
      checkpoint(epoch, it);  // a consistent point to resume from
      finish(TrainerState::Stopped, "");
      return false;
    }
    double dataWait = 0;
    std::vector<MicroBatch> micro = nextMicroBatches(epoch, it, dataWait);
    const auto iterStart = Clock::now();
    const double fracEpoch = epoch + static_cast<double>(it) / static_cast<double>(itersPerEpoch);
    const double lr = schedule->at(fracEpoch);
    setLearningRate(*optimizer, lr, layerDecay);
    StepOutcome out = stepper->run(micro);
    if (cuda) torch::cuda::synchronize();
    // Loss and errors averaged over the ranks, so every rank logs and decides on the same values.
    auto [top1, top5] = out.targets.defined() ? std::apply(topErrors, mixedPredictionsForErrors(out.logits, out.targets))
                                              : topErrors(out.logits, out.labels);
    std::tie(out.loss, top1, top5) = ddp->average(out.loss, top1, top5);
    checkStep(out, fracEpoch);
    recordStep(out, top1, top5, lr, since(iterStart) + dataWait, dataWait, epoch, it);
    totals.loss += out.loss, totals.top1 += top1, totals.top5 += top5, ++totals.iterations;
  }
  endEpoch(epoch, totals);
  return true;
}

// PySlowFast: precise BN statistics before the checkpoint and the evaluation, in FP32.
void Trainer::Impl::preciseBn(int epoch) {
  const int want = static_cast<int>(
      std::min<std::int64_t>(c.getInt("BN.NUM_BATCHES_PRECISE"), static_cast<std::int64_t>(preciseLoader->batchesPerEpoch())));
  preciseLoader->startEpoch(epoch);
  const bool canStop = !ddp->active();  // with several ranks every one runs all batches (sync BN meets in them)
  const auto pr = updatePreciseBnStats(*net, want, [&](std::vector<torch::Tensor>& in) {
    if (canStop && t.stopRequested_) return false;
    auto b = preciseLoader->next();
    if (!b) return false;
    in = batchTensors(*b, device, channelsLast);
    preciseLoader->recycle(std::move(*b));
    return true;
  });
  preciseLoader->stop();
  if (!preciseLoader->error().empty()) throw std::runtime_error(preciseLoader->error());
  if (pr.layers > 0 && !pr.aborted)
    rec.event("precise_bn",
              "running statistics of " + std::to_string(pr.layers) + " batch norms recomputed over " + std::to_string(pr.batches) +
                  " training batches (BN.USE_PRECISE_STATS, BN.NUM_BATCHES_PRECISE)",
              step, epoch + 1, {{"layers", pr.layers}, {"batches", pr.batches}});
}

void Trainer::Impl::endEpoch(int epoch, const EpochTotals& totals) {
  runlog::MetricEvent summary;
  summary.kind = runlog::kind::kEpoch;
  summary.step = step;
  summary.epoch = epoch + 1;
  if (totals.iterations)
    summary.values = {{"loss", totals.loss / totals.iterations},
                      {"top1_err", totals.top1 / totals.iterations},
                      {"top5_err", totals.top5 / totals.iterations},
                      {"mem_peak_rss_bytes", static_cast<double>(system::processPeakRssBytes())}};
  rec.record(summary);
  rec.writeMetadata();

  // With long cycles MULTIGRID.EVAL_FREQ times per phase, the last epoch of each among them.
  const bool evalEpoch = !t.synthetic_ && (mg ? multigrid::isPhaseEvalEpoch(*mg, epoch, c.getInt("MULTIGRID.EVAL_FREQ"), evalPeriod)
                                              : (epoch + 1) % evalPeriod == 0 || epoch + 1 == maxEpoch);
  const bool checkpointEpoch = mg ? multigrid::isPhaseEvalEpoch(*mg, epoch, c.getInt("MULTIGRID.EVAL_FREQ"), checkpointPeriod)
                                  : (epoch + 1) % checkpointPeriod == 0 || epoch + 1 == maxEpoch;
  if (util::injectedFault("epoch_end") == util::FaultAction::Stop) t.stopRequested_ = true;  // a drill's stop here
  const bool stopNow = stopAgreed();
  if (preciseLoader && (evalEpoch || checkpointEpoch) && !stopNow) preciseBn(epoch);
  if (evalEpoch) validate(epoch, epoch);
  rec.checkLog();
  if (checkpointEpoch) checkpoint(epoch + 1, 0);
}

}  // namespace amp::train
