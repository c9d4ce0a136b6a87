// The engine thread's run (Trainer::run): PySlowFast's run_net for one process, split by
// responsibility into the methods of Trainer::Impl (TrainerImpl.h), whose members are the run's
// state. This file: the run from start to end, the model and its position, the epochs and steps.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <thread>
#include <tuple>

#include "amp/NonFiniteGrad.h"
#include "config/BatchLayout.h"
#include "configfile/ConfigWriter.h"
#include "runlog/CheckpointFiles.h"
#include "system/DeviceInfo.h"
#include "system/ErrorText.h"
#include "system/MemoryProbe.h"
#include "train/Checkpoint.h"
#include "train/Optimizer.h"
#include "train/TrainerImpl.h"
#include "util/FaultInjection.h"

namespace amp::train {
namespace {

runlog::RunStatus runStatus(TrainerState s) {
  return s == TrainerState::Finished  ? runlog::RunStatus::Finished
         : s == TrainerState::Stopped ? runlog::RunStatus::Stopped
                                      : runlog::RunStatus::Failed;
}

}  // namespace

double Trainer::Impl::since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::pair<double, double> Trainer::Impl::topErrors(const torch::Tensor& logits,
                                                   const torch::Tensor& labels) {
  const int64_t k = std::min<int64_t>(5, logits.size(1));
  const auto top = std::get<1>(logits.topk(k, 1));
  const auto hit = top.eq(labels.unsqueeze(1));
  const double n = static_cast<double>(labels.size(0));
  const double top1 = hit.narrow(1, 0, 1).any(1).sum().item<double>();
  const double top5 = hit.any(1).sum().item<double>();
  return {100.0 * (1.0 - top1 / n), 100.0 * (1.0 - top5 / n)};
}

void Trainer::run() {
  struct ReleaseLast {  // declared first: the run's files are closed before another writer may come
    runlog::RunLock& lock;
    ~ReleaseLast() { lock.release(); }
  } releaseLock{lock_};
  runlog::RunRecorder rec(runDir_, dist_.rank == 0,
                          sink_);  // only global rank 0 writes the run directory
  std::string failure;
  {
    std::optional<Impl> impl;  // built inside the try: a member that throws is a failed run too
    try {
      impl.emplace(*this, rec);
      impl->run();
      return;
    } catch (const std::exception& e) {
      failure = system::errorText(e);
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
  explosion =
      std::make_unique<LossExplosionGuard>(killFactor, static_cast<int>(c.getInt("LOG_PERIOD")));
  for (int epoch = startEpoch; epoch < maxEpoch; ++epoch)
    if (!trainEpoch(epoch)) return;  // stopped: checkpointed and finished
  if (startEpoch == maxEpoch && startIter == 0 && !t.synthetic_ && !stopAgreed()) {
    // PySlowFast's train_net: a run that starts at its last epoch (resumed after its end, or
    // initialised from a checkpoint of MAX_EPOCH epochs) evaluates that checkpoint once. The
    // clips are the last epoch's (validation draws as training does: random clip and crop), so
    // the errors repeat the last validation's; TensorBoard's steps follow it, as PySlowFast's.
    if (mg) enterPhase(maxEpoch - 1);
    rec.log("training already ended (epoch " + std::to_string(maxEpoch) + "/" +
            std::to_string(maxEpoch) + "): validating the checkpoint once, as PySlowFast does");
    validate(maxEpoch - 1, startEpoch);
  }
  if (c.getBool("TEST.ENABLE") && !t.synthetic_ && !stopAgreed()) {
    const std::string last =
        rec.writes() ? latestCheckpoint(t.runDir_, c.getString("TASK")) : std::string();
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
  if ((cfg.getBool("MULTIGRID.LONG_CYCLE") || cfg.getBool("MULTIGRID.SHORT_CYCLE")) &&
      cfg.getBool("TRAIN.ENABLE") && !t.synthetic_)
    mg = multigrid::buildSchedule(cfg);
  machineProcesses = config::processesPerShard(cfg);
  firstPhase = mg ? &multigrid::phaseAtEpoch(*mg, 0) : nullptr;
  c = mg ? multigrid::phaseConfig(cfg, *mg, *firstPhase, machineProcesses) : cfg;
  device = trainingDevice(c, t.dist_.local_rank);
  ddp = std::make_unique<DataParallel>(
      t.dist_, c, device);  // joins the other ranks (nothing to join with one process)
  ddp->checkSameConfig(c);
  policy = PrecisionPolicy::fromConfig(c);
  channelsLast = useChannelsLast3d(c, device);
  cuda = device.is_cuda();
  torch::manual_seed(static_cast<uint64_t>(c.getInt("RNG_SEED")));
}

// run.json (resuming, TRAIN.AUTO_RESUME with a checkpoint of the config's TASK in OUTPUT_DIR,
// keeps the run's identity), the config as written, the metrics log opened, the first line of
// the text log.
void Trainer::Impl::describeRun() {
  resumeFrom = c.getBool("TRAIN.AUTO_RESUME") ? latestCheckpoint(t.runDir_, c.getString("TASK"))
                                              : std::string();
  runlog::RunMetadata& meta = rec.meta;
  if (!resumeFrom.empty())
    if (auto old = rec.dir().readMetadata()) meta = *old;
  meta.name = std::filesystem::path(t.runDir_).filename().string();
  meta.status = runlog::RunStatus::Running;
  meta.error.clear();
  meta.endedAt = 0;
  meta.precision = policy.name;
  meta.model = c.getString("MODEL.MODEL_NAME") + " (" + c.getString("MODEL.ARCH") + ")";
  // Scored by mAP (Charades' multi-label, AVA's detection): the studio shows mAP from the start.
  meta.multiLabel = c.getBool("DATA.MULTI_LABEL") || c.getBool("DETECTION.ENABLE");
  meta.configSource = t.configSource_;
  meta.host = runlog::hostName();
  meta.pid = getpid();
  meta.startedAt = meta.updatedAt = runlog::unixTimeNow();
  if (meta.createdAt == 0) meta.createdAt = meta.startedAt;
  const auto devInfo = system::probeDevices();
  const int threads = at::get_num_threads();
  const std::string cpu = "cpu (" + std::to_string(threads) +
                          (threads == 1 ? " thread" : " threads") +
                          (ddp->active() ? " each, " : ", ") + devInfo.blas + ")";
  meta.device = cuda ? "cuda:" + std::to_string(device.index()) : cpu;
  if (ddp->active())
    meta.device = std::to_string(ddp->worldSize()) + " x " + (cuda ? std::string("cuda") : cpu);
  meta.worldSize = ddp->worldSize();
  meta.distBackend = ddp->backend();
  meta.versions = {{"ampstudio", AMPSTUDIO_VERSION},
                   {"libtorch", devInfo.libtorch_version},
                   {"ffmpeg", devInfo.ffmpeg_version}};
  earlierLog = rec.open(t.cfg_);
  rec.log("run started: " + meta.model + ", " + policy.name + ", " + meta.device +
          (ddp->active() ? ", data parallel over " + ddp->backend() : std::string()));
}

void Trainer::Impl::buildModel() {
  net = models::buildVideoNet(c);
  net->to(device);
  if (channelsLast) toChannelsLast3d(*net);
  optimizer = buildOptimizer(c, *net, &layerDecay);
  stepper = std::make_unique<TrainStep>(c, *net, *optimizer, policy);
  scaling = stepper->scaler().enabled();
  noScaler = policy.mixed ? "autocast without a loss scaler" : "FP32";
  if (t.synthetic_)
    syntheticBatch = randomMicroBatch(c, c.getInt("TRAIN.BATCH_SIZE"), device, channelsLast);
  schedule = std::make_unique<config::LrSchedule>(c);
  mixup = MixupParams::fromConfig(c);
  if (mixup.enabled && !t.synthetic_) {
    rec.log("mixup: ALPHA " + std::to_string(mixup.alpha) + ", CUTMIX_ALPHA " +
            std::to_string(mixup.cutmix_alpha) + ", PROB " + std::to_string(mixup.prob) +
            ", SWITCH_PROB " + std::to_string(mixup.switch_prob) + ", label smoothing " +
            std::to_string(mixup.smoothing) +
            "; training errors are scored on mixed targets as PySlowFast does");
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
// PySlowFast's train_net: an "ssl_eval" TASK with nothing of its own to resume starts from the
// pre-training run's checkpoint in the same folder (preTrainedCheckpoint).
void Trainer::Impl::restore() {
  if (rec.writes()) {  // this process holds the run's lock: a temporary checkpoint file is a dead
                       // writer's
    for (const auto& f : runlog::removeUnfinishedCheckpoints(t.runDir_))
      rec.log("removed " + f + ": a checkpoint an earlier process did not finish writing");
  }
  if (resumeFrom.empty() && earlierLog && c.getBool("TRAIN.ENABLE")) {
    // An earlier start here left no checkpoint (killed in its first epoch): training starts
    // over, and its logged steps are superseded, as after any resume (docs/run-format.md).
    rec.event("resumed", "from the beginning: the earlier start in this folder left no checkpoint",
              0, 0);
  }
  const std::string preTrained = resumeFrom.empty() ? preTrainedCheckpoint() : std::string();
  if (!resumeFrom.empty()) {
    // PySlowFast resumes without TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN: the run's own names.
    const auto info =
        loadCheckpoint(resumeFrom, {net.get(), optimizer.get(), &stepper->scaler(), true, {}});
    for (const auto& note : info.notes) rec.log("checkpoint: " + note);
    startEpoch = info.epochs_done;
    step = info.global_step;
    startIter = info.iter_in_epoch;
    bestTop1 = info.best_top1_err;
    rec.event("resumed", "from " + resumeFrom + " at step " + std::to_string(step), step,
              startEpoch + static_cast<double>(startIter) / static_cast<double>(itersPerEpoch));
  } else if (const std::string init =
                 preTrained.empty() ? c.getString("TRAIN.CHECKPOINT_FILE_PATH") : preTrained;
             !init.empty()) {
    // The pre-training checkpoint loads as PySlowFast's: epoch reset, pytorch format, no
    // inflation; TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN acts where there is no inflation (PySlowFast's
    // inflate_weight never reads it).
    const bool reset = !preTrained.empty() || c.getBool("TRAIN.CHECKPOINT_EPOCH_RESET");
    LoadTargets targets{net.get(),
                        reset ? nullptr : optimizer.get(),
                        reset ? nullptr : &stepper->scaler(),
                        false,
                        c.getStringList("TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN"),
                        /*subset=*/true};
    if (preTrained.empty()) {
      targets.caffe2 = c.getString("TRAIN.CHECKPOINT_TYPE") == "caffe2";
      targets.inflate = c.getBool("TRAIN.CHECKPOINT_INFLATE");
    }
    if (targets.inflate) targets.clear_name_patterns.clear();
    const auto info = loadCheckpoint(init, targets);
    std::vector<std::string> fresh;
    for (const auto& note : info.notes) {
      rec.log("checkpoint: " + note);
      if (note.find("keeps its initialisation") != std::string::npos) fresh.push_back(note);
    }
    if (!fresh.empty())  // fine-tuning on other classes: say which weights start afresh, in the
                         // events too
      rec.event("checkpoint",
                std::to_string(fresh.size()) + " weight(s) of the model not loaded from " + init +
                    ": " + fresh.front() + (fresh.size() > 1 ? " ..." : ""),
                step, startEpoch);
    if (!reset) {
      startEpoch = info.epochs_done;
      step = info.global_step;
      startIter = info.iter_in_epoch;
    }
    rec.event("initialised",
              "weights from " + init +
                  (preTrained.empty() ? "" : " (TASK " + c.getString("TASK") + ": pre-training)") +
                  (reset ? " (epoch count reset)" : ""),
              step, startEpoch);
  }
  // Sub batch norm: every group's running statistics start from the (loaded) merged ones.
  if (c.getString("BN.NORM_TYPE") == "sub_batchnorm")
    models::setBatchNormSplits(*net, c.getInt("BN.NUM_SPLITS"));
  ddp->attach(*net, *stepper,
              step);  // rank 0's weights to every rank; gradients averaged from here on
}

// PySlowFast's train_net with TRAIN.AUTO_RESUME, when OUTPUT_DIR holds checkpoints (of any TASK)
// but none of this TASK: a TASK containing "ssl_eval" loads the newest one of TASK "ssl" (the
// self-supervised pre-training's). "" where that does not apply.
std::string Trainer::Impl::preTrainedCheckpoint() const {
  const std::string task = c.getString("TASK");
  if (!c.getBool("TRAIN.AUTO_RESUME") || task.find("ssl_eval") == std::string::npos ||
      !runlog::hasAnyCheckpointFile(t.runDir_))
    return {};
  const std::string ssl = latestCheckpoint(t.runDir_, "ssl");
  if (ssl.empty())  // PySlowFast's load_checkpoint(None) fails here
    throw std::runtime_error(
        "TASK: " + task + " starts from the newest ssl_checkpoint_epoch_*.pyth of " + t.runDir_ +
        "/checkpoints (TRAIN.AUTO_RESUME, as PySlowFast), and that folder holds checkpoints, but "
        "none of TASK ssl; put the pre-training checkpoint there, or set TRAIN.AUTO_RESUME False "
        "and name it in TRAIN.CHECKPOINT_FILE_PATH");
  return ssl;
}

void Trainer::Impl::checkpoint(int epochsDone, std::int64_t iterInEpoch) {
  CheckpointInfo info;
  info.epochs_done = epochsDone;
  info.iter_in_epoch = iterInEpoch;
  info.global_step = step;
  info.best_top1_err = bestTop1;
  info.cfg_yaml = config::toYaml(t.cfg_);
  info.layer_decay = layerDecay;
  info.task = c.getString("TASK");
  if (!rec.writes()) return;
  const std::string path =
      saveCheckpoint(t.runDir_, *net, optimizer.get(), &stepper->scaler(), info);
  rec.event("checkpoint", path, step,
            epochsDone + static_cast<double>(iterInEpoch) / static_cast<double>(itersPerEpoch));
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

// What a step's outcome says of the run's health: divergence ends it with a message naming the
// key to change; the loss scaler's back-offs and growths are events (the back-off's with the
// first layer whose gradients overflowed).
void Trainer::Impl::checkStep(const StepOutcome& out, double fracEpoch) {
  if (!out.finite_loss)
    throw std::runtime_error("diverged: the loss is " + std::to_string(out.loss) + " at step " +
                             std::to_string(step + 1) + " (" + noScaler +
                             ", nothing to skip); lower SOLVER.BASE_LR or SOLVER.LR_SCALE");
  if (std::isfinite(out.loss))  // a non-finite loss under a scaler is a skipped step, handled below
    if (const auto why = explosion->add(out.loss)) throw std::runtime_error(*why);
  skippedInARow = out.stepped ? 0 : skippedInARow + 1;
  const auto& update = out.update;
  if (update.backed_off) {
    // Where the overflow starts: the skipped step's gradients are still in .grad (the next step
    // zeroes them); one isfinite reduction per parameter, only on skipped steps.
    const std::string layer = precision::firstNonFiniteGradLayer(*net);
    rec.event("scaler_backoff",
              "inf/NaN gradients: step skipped, loss scale " + std::to_string(update.scale_before) +
                  " -> " + std::to_string(update.scale_after) +
                  (layer.empty() ? std::string() : "; first in " + layer),
              step + 1, fracEpoch, {{"loss_scale", update.scale_after}}, layer);
  }
  if (!out.stepped && !scaling)
    rec.event("nonfinite_gradients",
              "inf/NaN gradients of a finite loss (" + noScaler + "): step skipped, weights kept",
              step + 1, fracEpoch, {});
  if (update.grew)
    rec.event("scaler_growth",
              "loss scale " + std::to_string(update.scale_before) + " -> " +
                  std::to_string(update.scale_after),
              step + 1, fracEpoch, {{"loss_scale", update.scale_after}});
  if (skippedInARow > maxSkipped)
    throw std::runtime_error(
        "diverged: " + std::to_string(skippedInARow) +
        " optimizer steps in a row had inf/NaN gradients "
        "(AMP.MAX_SKIPPED_STEPS " +
        std::to_string(maxSkipped) + "); lower SOLVER.BASE_LR or SOLVER.LR_SCALE" +
        (scaling ? std::string(", or try AMP.DTYPE bfloat16") : std::string()));
  if (stepper->scaler().enabled() && minScale > 0 && update.scale_after < minScale)
    throw std::runtime_error("diverged: the loss scale fell to " +
                             std::to_string(update.scale_after) + ", below AMP.MIN_LOSS_SCALE " +
                             std::to_string(minScale) + "; lower SOLVER.BASE_LR or try bfloat16");
}

// The step's record (metrics.jsonl, TensorBoard) and the progress the studio and the CLI read.
void Trainer::Impl::recordStep(const StepOutcome& out, double top1, double top5, double lr,
                               double iterTime, double dataWait, int epoch, std::int64_t it) {
  const auto& update = out.update;
  const double clips = static_cast<double>(out.labels.size(0) * ddp->worldSize());  // global
  runlog::MetricEvent e;
  e.kind = runlog::kind::kTrain;
  e.step = ++step;
  e.epoch = epoch + static_cast<double>(it + 1) / static_cast<double>(itersPerEpoch);
  e.values = {{"loss", out.loss},
              {"lr", lr},
              {"loss_scale", update.scale_after},
              {"skipped", out.stepped ? 0.0 : 1.0},
              {"grad_norm", out.grad_norm},
              {"iter_time_s", iterTime},
              {"data_wait_s", dataWait},
              {"clips_per_s", clips / iterTime}};
  if (!multiLabel) {
    e.values["top1_err"] = top1;
    e.values["top5_err"] = top5;
  }
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
    std::vector<runlog::TensorBoardScalar> tb = {{"Train/loss", out.loss}, {"Train/lr", lr}};
    if (!multiLabel) tb.insert(tb.end(), {{"Train/Top1_err", top1}, {"Train/Top5_err", top5}});
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
  trainingMode(*net, c);  // again each epoch: validation left the model in evaluation mode
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
    // Multi-label training logs the loss alone (PySlowFast's train meter skips top-k there).
    auto [top1, top5] =
        multiLabel ? std::pair<double, double>{std::nan(""), std::nan("")}
        : out.targets.defined()
            ? std::apply(topErrors, mixedPredictionsForErrors(out.logits, out.targets))
            : topErrors(out.logits, out.labels);
    std::tie(out.loss, top1, top5) = ddp->average(out.loss, top1, top5);
    checkStep(out, fracEpoch);
    recordStep(out, top1, top5, lr, since(iterStart) + dataWait, dataWait, epoch, it);
    totals.loss += out.loss, totals.top1 += top1, totals.top5 += top5, ++totals.iterations;
  }
  endEpoch(epoch, totals);
  return true;
}

void Trainer::Impl::endEpoch(int epoch, const EpochTotals& totals) {
  runlog::MetricEvent summary;
  summary.kind = runlog::kind::kEpoch;
  summary.step = step;
  summary.epoch = epoch + 1;
  if (totals.iterations) {
    summary.values = {{"loss", totals.loss / totals.iterations},
                      {"mem_peak_rss_bytes", static_cast<double>(system::processPeakRssBytes())}};
    if (!multiLabel) {
      summary.values["top1_err"] = totals.top1 / totals.iterations;
      summary.values["top5_err"] = totals.top5 / totals.iterations;
    }
  }
  rec.record(summary);
  rec.writeMetadata();

  // With long cycles MULTIGRID.EVAL_FREQ times per phase, the last epoch of each among them.
  const bool evalEpoch =
      !t.synthetic_ &&
      (mg ? multigrid::isPhaseEvalEpoch(*mg, epoch, c.getInt("MULTIGRID.EVAL_FREQ"), evalPeriod)
          : (epoch + 1) % evalPeriod == 0 || epoch + 1 == maxEpoch);
  const bool checkpointEpoch =
      mg ? multigrid::isPhaseEvalEpoch(*mg, epoch, c.getInt("MULTIGRID.EVAL_FREQ"),
                                       checkpointPeriod)
         : (epoch + 1) % checkpointPeriod == 0 || epoch + 1 == maxEpoch;
  if (util::injectedFault("epoch_end") == util::FaultAction::Stop)
    t.stopRequested_ = true;  // a drill's stop here
  const bool stopNow = stopAgreed();
  // MODEL.FROZEN_BN leaves no batch norm in training mode, and PySlowFast's precise BN (fvcore's
  // get_bn_modules) updates only those: nothing to recompute.
  if (preciseLoader && (evalEpoch || checkpointEpoch) && !stopNow && !c.getBool("MODEL.FROZEN_BN"))
    preciseBn(epoch);
  if (evalEpoch) validate(epoch, epoch);
  rec.checkLog();
  if (checkpointEpoch) checkpoint(epoch + 1, 0);
}

}  // namespace amp::train
