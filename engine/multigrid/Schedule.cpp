#include "multigrid/Schedule.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "config/BatchLayout.h"
#include "config/Config.h"

namespace amp::multigrid {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& why) {
  throw std::invalid_argument(key + ": " + why);
}

std::string numText(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

std::string listText(const std::vector<double>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + numText(v[i]);
  return out + "]";
}

// The settings the arithmetic reads, named as PySlowFast's cfg does.
struct Inputs {
  std::int64_t b0, t0, s0, samplingRate, jitterMin, maxEpoch, procs, bnBase;
  double epochFactor, gamma;
  bool longCycle, shortCycle, stepsPolicy;
  std::vector<double> steps, lrs, shortFactors;
  std::vector<std::pair<double, double>> longFactors;
  BnChoice configuredBn;
};

std::vector<std::pair<double, double>> readLongFactors(const config::Config& c) {
  const char* key = "MULTIGRID.LONG_CYCLE_FACTORS";
  const auto& v = c.get(key);
  if (!v.is_array() || v.empty())
    bad(key,
        "needs at least one [temporal, spatial] pair, e.g. [[0.25, 0.7071], [0.5, 0.7071], [0.5, "
        "1], [1, 1]]");
  std::vector<std::pair<double, double>> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& e = v[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_number() || !e[1].is_number())
      bad(key, "entry " + std::to_string(i) + " is " + e.dump() +
                   "; each entry must be a [temporal, spatial] pair of numbers");
    const double tf = e[0].get<double>(), sf = e[1].get<double>();
    if (!(tf > 0) || !(sf > 0))
      bad(key, "entry " + std::to_string(i) + " is " + e.dump() + "; both factors must be above 0");
    out.emplace_back(tf, sf);
  }
  return out;
}

Inputs readInputs(const config::Config& c) {
  Inputs in;
  in.b0 = c.getInt("TRAIN.BATCH_SIZE");
  in.t0 = c.getInt("DATA.NUM_FRAMES");
  in.s0 = c.getInt("DATA.TRAIN_CROP_SIZE");
  in.samplingRate = c.getInt("DATA.SAMPLING_RATE");
  const auto jitter = c.getIntList("DATA.TRAIN_JITTER_SCALES");
  in.jitterMin = jitter.empty() ? 0 : jitter.front();
  in.maxEpoch = c.getInt("SOLVER.MAX_EPOCH");
  in.procs = config::processesPerShard(c);
  in.bnBase = c.getInt("MULTIGRID.BN_BASE_SIZE");
  in.epochFactor = c.getFloat("MULTIGRID.EPOCH_FACTOR");
  in.gamma = c.getFloat("SOLVER.GAMMA");
  in.longCycle = c.getBool("MULTIGRID.LONG_CYCLE");
  in.shortCycle = c.getBool("MULTIGRID.SHORT_CYCLE");
  in.stepsPolicy = c.getString("SOLVER.LR_POLICY") == "steps_with_relative_lrs";
  in.steps = c.getFloatList("SOLVER.STEPS");
  in.lrs = c.getFloatList("SOLVER.LRS");
  in.configuredBn.norm_type = c.getString("BN.NORM_TYPE");
  in.configuredBn.num_splits = c.getInt("BN.NUM_SPLITS");
  in.configuredBn.num_sync_devices = c.getInt("BN.NUM_SYNC_DEVICES");
  in.configuredBn.factor = 0;
  if (in.shortCycle) {
    in.shortFactors = c.getFloatList("MULTIGRID.SHORT_CYCLE_FACTORS");
    if (in.shortFactors.size() != 2)
      bad("MULTIGRID.SHORT_CYCLE_FACTORS",
          "needs exactly two spatial factors (the two smaller crops of a short cycle), got " +
              listText(in.shortFactors));
    for (double f : in.shortFactors)
      if (!(f > 0))
        bad("MULTIGRID.SHORT_CYCLE_FACTORS",
            "factors must be above 0, got " + listText(in.shortFactors));
  }
  if (in.longCycle) {
    in.longFactors = readLongFactors(c);
    const auto& st = in.steps;
    if (st.size() < 2 || st.front() != 0)
      bad("SOLVER.STEPS",
          "long cycles split each learning-rate stage of SOLVER.STEPS across the shapes, so it "
          "needs at least "
          "two entries starting with 0, e.g. [0, 94, 154, 196]; got " +
              listText(st));
    for (size_t i = 1; i < st.size(); ++i)
      if (st[i] < st[i - 1]) bad("SOLVER.STEPS", "must not decrease, got " + listText(st));
    if (!(st.back() > 0))
      bad("SOLVER.STEPS", "the last step must be after epoch 0, got " + listText(st));
    if (static_cast<double>(in.maxEpoch) < st.back())
      bad("SOLVER.MAX_EPOCH", std::to_string(in.maxEpoch) +
                                  " is before the last SOLVER.STEPS entry " + numText(st.back()) +
                                  "; the fine-tune phase runs from the last step to MAX_EPOCH, so "
                                  "MAX_EPOCH must be at least the last step");
  }
  return in;
}

// The shapes of one long cycle as get_long_cycle_schedule lists them: (B, T, S) with S a float
// for the short-cycle crops (factor x DEFAULT_S, not rounded there).
struct RawShape {
  std::int64_t b, t;
  double s;
};

std::int64_t scheduleB(double defaultSize, std::int64_t t, double s) {
  return pyRound(defaultSize / (static_cast<double>(t) * s * s));
}

std::int64_t scaledJitterMin(const Inputs& in, std::int64_t crop) {
  // kinetics.py: min_scale = int(round(float(min_scale) * crop_size / DEFAULT_S)).
  return pyRound(static_cast<double>(in.jitterMin) * static_cast<double>(crop) /
                 static_cast<double>(in.s0));
}

std::vector<ShortCycleShape> shortShapes(const Inputs& in, std::int64_t t, std::int64_t s,
                                         double defaultSize) {
  std::vector<ShortCycleShape> out;
  for (double f : in.shortFactors) {
    ShortCycleShape sh;
    const double sFloat = static_cast<double>(in.s0) * f;
    sh.crop = pyRound(f * static_cast<double>(in.s0));
    // ShortCycleBatchSampler: int(round((TRAIN_CROP_SIZE / (factor * DEFAULT_S)) ** 2)).
    sh.batch_mult =
        pyRound(std::pow(static_cast<double>(s) / (f * static_cast<double>(in.s0)), 2.0));
    sh.schedule_b = scheduleB(defaultSize, t, sFloat);
    sh.jitter_min_scale = scaledJitterMin(in, sh.crop);
    out.push_back(sh);
  }
  ShortCycleShape own;
  own.crop = s;
  own.schedule_b = scheduleB(defaultSize, t, static_cast<double>(s));
  own.jitter_min_scale = scaledJitterMin(in, s);
  out.push_back(own);
  return out;
}

BnChoice bnFor(const Inputs& in, std::int64_t batchSize) {
  // update_long_cycle: float(TRAIN.BATCH_SIZE / NUM_GPUS) / BN_BASE_SIZE, then int() of it or of
  // its inverse.
  BnChoice bn;
  bn.factor = static_cast<double>(batchSize) / static_cast<double>(in.procs) /
              static_cast<double>(in.bnBase);
  // A batch, process count or BN size of 0 is refused by its key's own check; the schedule is
  // still built for the other messages, so its casts must stay defined (1/0 is inf).
  if (!std::isfinite(bn.factor) || !(bn.factor > 0) || bn.factor > 1e15 || 1.0 / bn.factor > 1e15)
    return bn;
  if (bn.factor < 1) {
    bn.norm_type = "sync_batchnorm";
    bn.num_sync_devices = static_cast<std::int64_t>(1.0 / bn.factor);
  } else if (bn.factor > 1) {
    bn.norm_type = "sub_batchnorm";
    bn.num_splits = static_cast<std::int64_t>(bn.factor);
  }
  return bn;
}

Phase basePhase(const Inputs& in, std::int64_t b, std::int64_t t, std::int64_t s) {
  Phase p;
  p.b = b;
  p.t = t;
  p.s = s;
  p.batch_size = b * in.b0;
  p.per_device_batch = std::max<std::int64_t>(1, p.batch_size / in.procs);
  p.sampling_rate = in.samplingRate;
  const bool multigrid = in.longCycle || in.shortCycle;  // only then does PySlowFast set DEFAULT_S
  p.jitter_min_scale = multigrid ? scaledJitterMin(in, s) : in.jitterMin;
  const double defaultSize = static_cast<double>(in.t0 * in.s0 * in.s0);
  if (in.shortCycle) {
    p.short_cycle = shortShapes(in, t, s, defaultSize);
    double sum = 0;
    for (const auto& sh : p.short_cycle) sum += static_cast<double>(sh.schedule_b);
    p.avg_b = sum / static_cast<double>(p.short_cycle.size());
  } else {
    p.avg_b = static_cast<double>(scheduleB(defaultSize, t, static_cast<double>(s)));
  }
  return p;
}

void buildLongCycles(const Inputs& in, Schedule& out) {
  const double defaultSize = static_cast<double>(in.t0 * in.s0 * in.s0);
  const double defaultIters = in.steps.back();
  std::vector<Phase> cycles;  // one per long-cycle factor, the base shape last
  std::vector<double> avgBs;
  for (const auto& [tf, sf] : in.longFactors) {
    const std::int64_t t = pyRound(static_cast<double>(in.t0) * tf);
    const std::int64_t s = pyRound(static_cast<double>(in.s0) * sf);
    if (t < 1 || s < 1)
      bad("MULTIGRID.LONG_CYCLE_FACTORS", "factors (" + std::to_string(tf) + ", " +
                                              std::to_string(sf) + ") give " + std::to_string(t) +
                                              " frames at crop " + std::to_string(s) +
                                              "; both must be at least 1");
    Phase p = basePhase(in, scheduleB(defaultSize, t, static_cast<double>(s)), t, s);
    avgBs.push_back(p.avg_b);
    cycles.push_back(p);
  }
  double sumAvg = 0;
  for (double a : avgBs) sumAvg += a;

  // Epochs per (stage, shape) before EPOCH_FACTOR: each stage's epochs in proportion to avg B,
  // so every shape gets the same number of iterations.
  std::vector<double> rawEpochs;
  double totalIters = 0;
  const size_t stages = in.steps.size() - 1;
  for (size_t stage = 0; stage < stages; ++stage) {
    const double stepEpochs = in.steps[stage + 1] - in.steps[stage];
    for (size_t k = 0; k < cycles.size(); ++k) {
      const double cur = stepEpochs * avgBs[k] / sumAvg;
      totalIters += cur / avgBs[k];
      Phase p = cycles[k];
      p.lr_stage = static_cast<int>(stage);
      out.phases.push_back(p);
      rawEpochs.push_back(cur);
    }
  }
  out.iter_saving = defaultIters / totalIters;
  // Fine-tune at the full shape with the same iteration saving. PySlowFast takes
  // all_shapes[-1][2], which exists only with short cycles; the last shape of the last long
  // cycle is the same shape there and the paper's full shape without them.
  const double finalStepEpochs = static_cast<double>(in.maxEpoch) - in.steps.back();
  Phase ft = cycles.back();
  ft.lr_stage = static_cast<int>(stages);
  ft.fine_tune = true;
  out.phases.push_back(ft);
  rawEpochs.push_back(finalStepEpochs / out.iter_saving * avgBs.back());

  double rawSum = 0;
  for (double e : rawEpochs) rawSum += e;
  const double x = static_cast<double>(in.maxEpoch) * in.epochFactor / rawSum;
  double total = 0;
  std::int64_t start = 0;
  for (size_t i = 0; i < out.phases.size(); ++i) {
    total += rawEpochs[i] * x;
    auto& p = out.phases[i];
    p.index = static_cast<int>(i);
    p.start_epoch = start;
    p.end_epoch = pyRound(total);
    start = p.end_epoch;
    p.long_cycle_sampling_rate = in.samplingRate * (in.t0 / p.t);
    p.bn = bnFor(in, p.batch_size);
  }

  // init_multigrid: STEPS = [0] + ends with the last moved half-way into the fine-tune phase;
  // LRS = GAMMA^stage x B, the second to last repeated so that the fine-tune phase starts at
  // the previous stage's rate.
  out.steps = {0};
  for (const auto& p : out.phases) out.steps.push_back(static_cast<double>(p.end_epoch));
  const auto n = out.steps.size();
  out.steps[n - 1] = static_cast<double>(
      (static_cast<std::int64_t>(out.steps[n - 2]) + static_cast<std::int64_t>(out.steps[n - 1])) /
      2);
  for (const auto& p : out.phases)
    out.lrs.push_back(std::pow(in.gamma, static_cast<double>(p.lr_stage)) *
                      static_cast<double>(p.b));
  out.lrs.insert(out.lrs.end() - 1, out.lrs[out.lrs.size() - 2]);
  out.max_epoch = out.phases.back().end_epoch;
  for (size_t i = 0; i < out.phases.size(); ++i) out.phases[i].lrs = {{out.steps[i], out.lrs[i]}};
  out.phases.back().lrs.push_back({out.steps[n - 1], out.lrs.back()});
}

// Without long cycles: one phase at the configured shape, the configured steps and rates.
void buildSinglePhase(const Inputs& in, const config::Config& c, Schedule& out) {
  out.steps = in.steps;
  out.lrs = in.lrs;
  out.max_epoch = in.maxEpoch;
  if (in.shortCycle) {  // init_multigrid: int() of each product
    for (auto& s : out.steps)
      s = static_cast<double>(static_cast<std::int64_t>(s * in.epochFactor));
    out.max_epoch = static_cast<std::int64_t>(static_cast<double>(in.maxEpoch) * in.epochFactor);
  }
  Phase p = basePhase(in, 1, in.t0, in.s0);
  p.end_epoch = out.max_epoch;
  p.long_cycle_sampling_rate = c.getInt("MULTIGRID.LONG_CYCLE_SAMPLING_RATE");
  p.bn = in.configuredBn;
  if (in.stepsPolicy) {
    for (size_t k = 0; k < out.steps.size() && k < out.lrs.size(); ++k) {
      const double end =
          k + 1 < out.steps.size() ? out.steps[k + 1] : static_cast<double>(out.max_epoch);
      if (end > out.steps[k] && out.steps[k] < static_cast<double>(out.max_epoch))
        p.lrs.push_back({std::max(0.0, out.steps[k]), out.lrs[k]});
    }
  }
  out.phases.push_back(p);
}

void addNotes(const Inputs& in, const config::Config& c, Schedule& out) {
  if (in.longCycle && !in.shortCycle)
    out.notes.push_back(
        "long cycles without short cycles: PySlowFast fails here (all_shapes[-1][2]); the "
        "fine-tune phase "
        "trains at the last long-cycle shape, the full shape of the paper");
  if (in.longCycle && !in.stepsPolicy)
    out.notes.push_back("SOLVER.LR_POLICY is " + c.getString("SOLVER.LR_POLICY") +
                        ": the rewritten STEPS and LRS act only with steps_with_relative_lrs, so "
                        "the rate will not follow the batch");
  if (in.longCycle && !in.lrs.empty())
    out.notes.push_back("SOLVER.LRS is replaced by GAMMA^stage x B (SOLVER.GAMMA " +
                        numText(in.gamma) + "); the configured rates are not used");
  if (c.getInt("NUM_GPUS") == 0 && in.longCycle)
    out.notes.push_back(
        "NUM_GPUS 0: batch per device and the batch-norm choice count the DIST.CPU_PROCESSES "
        "processes "
        "(PySlowFast divides by NUM_GPUS)");
}

}  // namespace

std::int64_t pyRound(double x) {
  // Every size, batch and epoch of a schedule is far below 2^53; anything else (inf or NaN from
  // extreme factors or steps) would be undefined as an integer (found by fuzzing the loader).
  if (!(std::abs(x) < 9.0e15))
    bad("MULTIGRID.LONG_CYCLE_FACTORS",
        "the schedule works out a size, batch or epoch of " + std::to_string(x) +
            ", out of range: check the cycle factors, SOLVER.STEPS, SOLVER.MAX_EPOCH, "
            "TRAIN.BATCH_SIZE, DATA.NUM_FRAMES and DATA.TRAIN_CROP_SIZE");
  const double fl = std::floor(x);
  const double diff = x - fl;
  double r = fl;
  if (diff > 0.5)
    r = fl + 1;
  else if (diff == 0.5)
    r = std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
  return static_cast<std::int64_t>(r);
}

Schedule buildSchedule(const config::Config& c) {
  const Inputs in = readInputs(c);
  Schedule out;
  out.long_cycle = in.longCycle;
  out.short_cycle = in.shortCycle;
  out.default_b = in.b0;
  out.default_t = in.t0;
  out.default_s = in.s0;
  out.original_max_epoch = in.maxEpoch;
  if (in.longCycle)
    buildLongCycles(in, out);
  else
    buildSinglePhase(in, c, out);
  out.multigrid_iterations_epochs = 0;
  for (const auto& p : out.phases)
    out.multigrid_iterations_epochs += static_cast<double>(p.end_epoch - p.start_epoch) / p.avg_b;
  out.overall_saving = out.multigrid_iterations_epochs > 0
                           ? static_cast<double>(in.maxEpoch) / out.multigrid_iterations_epochs
                           : 1.0;
  addNotes(in, c, out);
  return out;
}

const Phase& phaseAtEpoch(const Schedule& s, std::int64_t epoch) {
  for (const auto& p : s.phases)
    if (epoch < p.end_epoch) return p;
  return s.phases.back();
}

ShortCycleStep shortCycleStep(const Phase& p, std::int64_t iteration) {
  ShortCycleStep st;
  st.crop = p.s;
  st.per_device_batch = p.per_device_batch;
  st.jitter_min_scale = p.jitter_min_scale;
  if (p.short_cycle.empty()) return st;
  st.cycle_index = static_cast<int>(iteration % 3);
  const auto& sh = p.short_cycle[static_cast<size_t>(st.cycle_index)];
  st.crop = sh.crop;
  st.per_device_batch = p.per_device_batch * sh.batch_mult;
  st.jitter_min_scale = sh.jitter_min_scale;
  return st;
}

std::int64_t iterationsPerEpoch(const Phase& p, std::int64_t samples, bool drop_last) {
  double avg = static_cast<double>(p.per_device_batch);
  if (!p.short_cycle.empty()) {
    double sum = 0;
    for (const auto& sh : p.short_cycle)
      sum += static_cast<double>(p.per_device_batch * sh.batch_mult);
    avg = sum / 3.0;
  }
  const double q = static_cast<double>(samples) / avg;
  return static_cast<std::int64_t>(drop_last ? std::floor(q) : std::ceil(q));
}

bool isPhaseEvalEpoch(const Schedule& s, std::int64_t epoch, std::int64_t eval_freq,
                      std::int64_t period) {
  if (epoch + 1 == s.max_epoch) return true;
  if (s.long_cycle) {
    std::int64_t prev = 0;
    for (const auto& p : s.phases) {
      if (epoch < p.end_epoch) {
        const std::int64_t every = std::max<std::int64_t>((p.end_epoch - prev) / eval_freq + 1, 1);
        return (p.end_epoch - 1 - epoch) % every == 0;
      }
      prev = p.end_epoch;
    }
  }
  return period > 0 && (epoch + 1) % period == 0;
}

config::Config phaseConfig(const config::Config& base, const Schedule& s, const Phase& p,
                           int processes, std::string* note) {
  config::Config c = base;
  c.setOrThrow("MULTIGRID.DEFAULT_B", s.default_b);
  c.setOrThrow("MULTIGRID.DEFAULT_T", s.default_t);
  c.setOrThrow("MULTIGRID.DEFAULT_S", s.default_s);
  c.setOrThrow("SOLVER.STEPS", s.steps);
  c.setOrThrow("SOLVER.LRS", s.lrs);
  c.setOrThrow("SOLVER.MAX_EPOCH", s.max_epoch);
  if (!s.long_cycle) return c;
  c.setOrThrow("DATA.NUM_FRAMES", p.t);
  c.setOrThrow("DATA.TRAIN_CROP_SIZE", p.s);
  c.setOrThrow("TRAIN.BATCH_SIZE", p.batch_size);
  c.setOrThrow("MULTIGRID.LONG_CYCLE_SAMPLING_RATE", p.long_cycle_sampling_rate);
  std::string norm = p.bn.norm_type;
  if (norm == "sync_batchnorm" && p.bn.num_sync_devices > processes) {
    if (note)
      *note = "phase " + std::to_string(p.index) + ": " + std::to_string(p.per_device_batch) +
              " clips per device is below "
              "MULTIGRID.BN_BASE_SIZE " +
              std::to_string(base.getInt("MULTIGRID.BN_BASE_SIZE")) +
              ", which asks for sync_batchnorm over " + std::to_string(p.bn.num_sync_devices) +
              " devices, but this machine trains with " + std::to_string(processes) +
              "; it uses plain batchnorm";
    norm = "batchnorm";
  }
  c.setOrThrow("BN.NORM_TYPE", norm);
  c.setOrThrow("BN.NUM_SPLITS", norm == "sub_batchnorm" ? p.bn.num_splits : std::int64_t{1});
  if (norm == "sync_batchnorm") c.setOrThrow("BN.NUM_SYNC_DEVICES", p.bn.num_sync_devices);
  return c;
}

}  // namespace amp::multigrid
