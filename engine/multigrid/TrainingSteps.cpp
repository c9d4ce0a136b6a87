#include "multigrid/TrainingSteps.h"

#include <algorithm>
#include <tuple>

#include "config/BatchLayout.h"

namespace amp::multigrid {
namespace {

std::int64_t bnCountOf(const std::string& norm, std::int64_t splits, std::int64_t syncDevices) {
  if (norm == "sub_batchnorm") return splits;
  if (norm == "sync_batchnorm") return syncDevices;
  return 1;
}

void addSteps(std::vector<ShapeSteps>& perEpoch, const StepShape& shape, std::int64_t steps) {
  for (auto& e : perEpoch)
    if (e.shape == shape) {
      e.steps += steps;
      return;
    }
  perEpoch.push_back({shape, steps});
}

}  // namespace

bool StepShape::operator==(const StepShape& o) const {
  return clips == o.clips && frames == o.frames && crop == o.crop && norm_type == o.norm_type &&
         bn_count == o.bn_count;
}

bool StepShape::operator<(const StepShape& o) const {
  // Largest clips first: the order a reader meets them in a long cycle.
  return std::make_tuple(-clips, frames, crop, norm_type, bn_count) <
         std::make_tuple(-o.clips, o.frames, o.crop, o.norm_type, o.bn_count);
}

std::string StepShape::text() const {
  std::string out = std::to_string(clips) + " x " + std::to_string(frames) + " x " +
                    std::to_string(crop) + ", " + norm_type;
  if (norm_type != "batchnorm") out += " " + std::to_string(bn_count);
  return out;
}

std::int64_t PhaseSteps::stepsPerEpoch() const {
  std::int64_t n = 0;
  for (const auto& e : per_epoch) n += e.steps;
  return n;
}

std::int64_t RunSteps::totalSteps() const {
  std::int64_t n = 0;
  for (const auto& p : phases) n += p.epochs() * p.stepsPerEpoch();
  return n;
}

double RunSteps::phaseSeconds(const PhaseSteps& p,
                              const std::function<double(const StepShape&)>& stepSeconds) {
  double epoch = 0;
  for (const auto& e : p.per_epoch) epoch += static_cast<double>(e.steps) * stepSeconds(e.shape);
  return epoch * static_cast<double>(p.epochs());
}

double RunSteps::seconds(const std::function<double(const StepShape&)>& stepSeconds) const {
  double total = 0;
  for (const auto& p : phases) total += phaseSeconds(p, stepSeconds);
  return total;
}

std::int64_t samplesPerProcess(std::int64_t samples, int world) {
  const std::int64_t w = std::max(1, world);
  return (samples + w - 1) / w;
}

RunSteps plainRunSteps(const config::Config& c, std::int64_t samples) {
  RunSteps r;
  r.samples_per_process = samplesPerProcess(samples, config::configuredWorldSize(c));
  const std::int64_t batch = config::perProcessBatch(c, /*test=*/false);
  const std::string norm = c.getString("BN.NORM_TYPE");
  StepShape shape;
  shape.clips = batch * config::clipsPerTrainVideo(c);
  shape.frames = c.getInt("DATA.NUM_FRAMES");
  shape.crop = c.getInt("DATA.TRAIN_CROP_SIZE");
  shape.norm_type = norm;
  shape.bn_count = bnCountOf(norm, c.getInt("BN.NUM_SPLITS"), c.getInt("BN.NUM_SYNC_DEVICES"));
  PhaseSteps p;
  p.end_epoch = c.getInt("SOLVER.MAX_EPOCH");
  p.per_epoch.push_back({shape, r.samples_per_process / batch});
  if (p.epochs() > 0) r.phases.push_back(p);
  return r;
}

RunSteps multigridRunSteps(const config::Config& c, const Schedule& s, std::int64_t samples) {
  RunSteps r;
  r.samples_per_process = samplesPerProcess(samples, config::configuredWorldSize(c));
  const std::int64_t perVideo = config::clipsPerTrainVideo(c);
  for (const auto& ph : s.phases) {
    if (ph.end_epoch <= ph.start_epoch) continue;  // a phase rounding left empty is never trained
    PhaseSteps p;
    p.phase = ph.index;
    p.start_epoch = ph.start_epoch;
    p.end_epoch = ph.end_epoch;
    StepShape base;
    base.frames = ph.t;
    if (s.long_cycle) {
      base.norm_type = ph.bn.norm_type;
      base.bn_count = bnCountOf(ph.bn.norm_type, ph.bn.num_splits, ph.bn.num_sync_devices);
      // As phaseConfig: a sync group larger than the machine's processes trains with plain BN.
      if (base.norm_type == "sync_batchnorm" && base.bn_count > config::processesPerShard(c)) {
        base.norm_type = "batchnorm";
        base.bn_count = 1;
      }
    } else {  // short cycles alone keep the configured batch norm
      base.norm_type = c.getString("BN.NORM_TYPE");
      base.bn_count =
          bnCountOf(base.norm_type, c.getInt("BN.NUM_SPLITS"), c.getInt("BN.NUM_SYNC_DEVICES"));
    }
    // Whole batches in cycle order until the next one no longer fits (drop_last), as the
    // loader: whole cycles first, then what the rest of the epoch holds of the next one.
    const std::int64_t cycleLength = ph.short_cycle.empty() ? 1 : 3;
    std::int64_t perCycle = 0;
    // The loader takes at least one clip per batch (a short-cycle multiplier can round to 0).
    auto batchOf = [&](std::int64_t k) {
      return std::max<std::int64_t>(1, shortCycleStep(ph, k).per_device_batch);
    };
    for (std::int64_t k = 0; k < cycleLength; ++k) perCycle += batchOf(k);
    const std::int64_t cycles = r.samples_per_process / perCycle;
    std::int64_t left = r.samples_per_process - cycles * perCycle;
    for (std::int64_t k = 0; k < cycleLength; ++k) {
      const std::int64_t batch = batchOf(k);
      const bool oneMore = left >= batch;
      left = oneMore ? left - batch : -1;  // nothing after the first batch that does not fit
      StepShape shape = base;
      shape.clips = batch * perVideo;
      shape.crop = shortCycleStep(ph, k).crop;
      if (cycles + (oneMore ? 1 : 0) > 0) addSteps(p.per_epoch, shape, cycles + (oneMore ? 1 : 0));
    }
    r.phases.push_back(p);
  }
  return r;
}

std::vector<StepShape> distinctShapes(const std::vector<const RunSteps*>& runs) {
  std::vector<StepShape> out;
  for (const RunSteps* r : runs)
    for (const auto& p : r->phases)
      for (const auto& e : p.per_epoch)
        if (e.steps > 0 && std::find(out.begin(), out.end(), e.shape) == out.end())
          out.push_back(e.shape);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace amp::multigrid
