// Trainer::Impl's data (TrainerImpl.h): the Kinetics lists, the loaders built for the config or
// for a multigrid phase, entering a phase, and each step's micro-batches.
#include <algorithm>

#include "config/BatchLayout.h"
#include "train/TrainerImpl.h"

namespace amp::train {

data::SampleList Trainer::Impl::readList(const char* split) const {
  data::SampleList list;
  std::string err;
  data::Split s = data::Split::Train;
  (void)data::splitFromName(split, s);  // callers pass "train", "val" or "test"
  if (!data::readSampleList(c, s, list, &err)) throw std::runtime_error(err);
  if (const auto classes = c.getInt("MODEL.NUM_CLASSES"); list.maxLabel >= classes)
    throw std::runtime_error(list.listPath + ": labels go up to " + std::to_string(list.maxLabel) +
                             " but MODEL.NUM_CLASSES is " + std::to_string(classes) +
                             " (labels are 0 .. NUM_CLASSES-1)");
  return list;
}

std::unique_ptr<data::VideoLoader> Trainer::Impl::makeTrainLoader(
    const config::Config& pc, const multigrid::Phase* ph) const {
  auto trainOptions =
      data::LoaderOptions::fromConfig(pc, data::Split::Train, ddp->rank(), ddp->worldSize());
  if (ph && mg->short_cycle)  // ShortCycleBatchSampler: the batch and crop change every iteration
    for (std::int64_t k = 0; k < 3; ++k) {
      const auto sc = multigrid::shortCycleStep(*ph, k);
      trainOptions.short_cycle.push_back({static_cast<int>(sc.per_device_batch),
                                          static_cast<int>(sc.crop),
                                          static_cast<int>(sc.jitter_min_scale)});
    }
  return std::make_unique<data::VideoLoader>(trainList, data::ClipParams::fromConfig(pc),
                                             data::Split::Train, trainOptions);
}

void Trainer::Impl::buildLoaders(const config::Config& pc, const multigrid::Phase* ph) {
  const auto params = data::ClipParams::fromConfig(pc);
  trainLoader = makeTrainLoader(pc, ph);
  valLoader = std::make_unique<data::VideoLoader>(
      valList, params, data::Split::Val,
      data::LoaderOptions::fromConfig(pc, data::Split::Val, ddp->rank(), ddp->worldSize()));
  // BN.USE_PRECISE_STATS: PySlowFast's separate training loader for precise BN (training
  // augmentation, its own shuffle: here its own seed; never short cycles).
  preciseLoader.reset();
  if (pc.getBool("BN.USE_PRECISE_STATS") && !t.synthetic_) {
    auto o = data::LoaderOptions::fromConfig(pc, data::Split::Train, ddp->rank(), ddp->worldSize());
    o.seed += 1;
    preciseLoader = std::make_unique<data::VideoLoader>(trainList, params, data::Split::Train, o);
  }
  itersPerEpoch = t.synthetic_ ? std::int64_t{1000}
                               : static_cast<std::int64_t>(trainLoader->batchesPerEpoch()) / accum;
  if (itersPerEpoch == 0)
    throw std::runtime_error(
        "TRAIN.BATCH_SIZE: " + std::to_string(pc.getInt("TRAIN.BATCH_SIZE")) +
        " clips x SOLVER.GRAD_ACCUM_STEPS " + std::to_string(accum) +
        " is more than the training set holds; no full optimizer step" +
        (ph ? " (multigrid phase " + std::to_string(ph->index) + ")" : std::string()));
}

// The lists and loaders; random clips (bench overhead) need no dataset: the lists stay empty and
// an epoch is 1000 steps.
void Trainer::Impl::prepareData() {
  if (!t.synthetic_) {
    trainList = readList("train");
    valList = readList("val");
    multiLabel = trainList.multi_label;
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
      const auto loader =
          makeTrainLoader(multigrid::phaseConfig(t.cfg_, *mg, ph, machineProcesses), &ph);
      const auto batches = static_cast<std::int64_t>(loader->batchesPerEpoch());
      totalSteps += (ph.end_epoch - ph.start_epoch) * (batches / accum);
    }
  }
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
  const std::int64_t perProcess = config::perProcessBatch(pc, false);
  std::string msg = "multigrid phase " + std::to_string(ph.index + 1) + "/" +
                    std::to_string(mg->phases.size()) + " (epochs " +
                    std::to_string(ph.start_epoch) + "-" + std::to_string(ph.end_epoch) +
                    "): batch " + std::to_string(pc.getInt("TRAIN.BATCH_SIZE")) + " (" +
                    std::to_string(perProcess) + " per process), " +
                    std::to_string(pc.getInt("DATA.NUM_FRAMES")) + " frames, crop " +
                    std::to_string(pc.getInt("DATA.TRAIN_CROP_SIZE"));
  const auto maxRate = pc.getInt("MULTIGRID.LONG_CYCLE_SAMPLING_RATE");
  if (maxRate > pc.getInt("DATA.SAMPLING_RATE"))
    msg += ", sampling rate " + std::to_string(pc.getInt("DATA.SAMPLING_RATE")) + "-" +
           std::to_string(maxRate);
  msg += ", " + norm + (splits > 1 ? " (" + std::to_string(splits) + " splits)" : std::string()) +
         (norm == "sync_batchnorm"
              ? " (" + std::to_string(pc.getInt("BN.NUM_SYNC_DEVICES")) + " devices)"
              : std::string());
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
             {"max_sampling_rate",
              static_cast<double>(std::max(maxRate, pc.getInt("DATA.SAMPLING_RATE")))},
             {"bn_splits", static_cast<double>(splits)},
             {"iterations_per_epoch", static_cast<double>(itersPerEpoch)},
             {"run_steps", static_cast<double>(totalSteps)}});
}

// The step's SOLVER.GRAD_ACCUM_STEPS micro-batches from the loader (or the fixed random one),
// mixed by MIXUP.* as train_net.py does before the forward; `dataWait` gets the seconds waited.
std::vector<MicroBatch> Trainer::Impl::nextMicroBatches(int epoch, std::int64_t it,
                                                        double& dataWait) {
  std::vector<MicroBatch> micro;
  dataWait = 0;
  if (t.synthetic_) return std::vector<MicroBatch>(static_cast<std::size_t>(accum), syntheticBatch);
  for (std::int64_t k = 0; k < accum; ++k) {
    const auto t0 = Clock::now();
    auto batch = trainLoader->next();
    dataWait += since(t0);
    if (!batch)
      throw std::runtime_error(trainLoader->error().empty() ? "the training loader ended early"
                                                            : trainLoader->error());
    for (const auto& f : trainLoader->takeFailures())
      rec.event("decode_failure", f.path + ": " + f.reason, step, epoch,
                {{"decode_failures_total", static_cast<double>(trainLoader->totalFailures())}});
    MicroBatch mb = toMicroBatch(*batch, device, channelsLast);
    trainLoader->recycle(std::move(*batch));
    if (mixup.enabled) {
      const auto& x = mb.inputs.front();
      const auto mix = drawMix(
          mixup, x.size(-2), x.size(-1),
          mixSeed(static_cast<std::uint64_t>(c.getInt("RNG_SEED")), epoch, it, k, ddp->rank()));
      applyMix(mb.inputs, mix);
      mb.targets = mixTargets(mb.labels, mixup.num_classes, mix.lam, mixup.smoothing);
    }
    micro.push_back(std::move(mb));
  }
  return micro;
}

}  // namespace amp::train
