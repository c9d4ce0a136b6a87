#include "configfile/Validator.h"

#include <algorithm>
#include <cmath>

#include "config/BatchLayout.h"
#include "config/Refusals.h"
#include "config/ValueFormat.h"
#include "multigrid/Schedule.h"

namespace amp::config {
namespace {

class Checker {
 public:
  Checker(const Config& c, const std::string& file, Diagnostics& out)
      : c_(c), file_(file), out_(out) {}

  void error(const std::string& key, const std::string& msg) {
    add(Diagnostic::Severity::Error, key, msg);
  }
  void warning(const std::string& key, const std::string& msg) {
    add(Diagnostic::Severity::Warning, key, msg);
  }

  Origin where(const std::string& key) const {
    if (const Origin* o = c_.origin(key)) return *o;
    return Origin{file_, 0, 0};
  }

  // The key the user set last among several, so a cross-key error points at what they touched.
  std::string blame(std::initializer_list<const char*> keys) const {
    std::string best = *keys.begin();
    for (const char* k : keys)
      if (c_.origin(k) && !c_.origin(best)) best = k;
    return best;
  }

  const Config& c_;

 private:
  void add(Diagnostic::Severity s, const std::string& key, const std::string& msg) {
    out_.push_back(Diagnostic{s, where(key), key, msg});
  }
  const std::string& file_;
  Diagnostics& out_;
};

void checkKeys(Checker& ck) {
  for (const auto& def : ck.c_.schema().keys()) {
    if (def.constraint.empty()) continue;
    if (auto p = def.constraint.check(ck.c_.get(def.key))) ck.error(def.key, *p);
  }
}

std::vector<std::string> archChoices(const Config& c) {
  std::vector<std::string> out;
  for (const char* k : {"MODEL.SINGLE_PATHWAY_ARCH", "MODEL.MULTI_PATHWAY_ARCH"})
    for (const auto& a : c.getStringList(k)) out.push_back(a);
  return out;
}

void checkModel(Checker& ck) {
  const Config& c = ck.c_;
  // PySlowFast passes detach_final_fc to the ResNet, SlowFast and MViT heads, not to X3DHead: an
  // X3D "linear probe" trains every layer there, and so here; said, not hidden.
  if (c.getBool("MODEL.DETACH_FINAL_FC") && c.getString("MODEL.MODEL_NAME") == "X3D")
    ck.warning("MODEL.DETACH_FINAL_FC",
               "does nothing to X3D: PySlowFast's X3D head has no detach, so every layer trains "
               "(a full fine-tune, not a linear probe), here as there");
  // Nor to MViT's detection head (video_model_builder.py builds its ResNetRoIHead without it).
  if (c.getBool("MODEL.DETACH_FINAL_FC") && c.getBool("DETECTION.ENABLE") &&
      c.getString("MODEL.MODEL_NAME") == "MViT")
    ck.warning("MODEL.DETACH_FINAL_FC",
               "does nothing to MViT's detection head: PySlowFast builds it without the detach, "
               "so every layer trains, here as there");
  const std::string arch = c.getString("MODEL.ARCH");
  const auto choices = archChoices(c);
  if (std::find(choices.begin(), choices.end(), arch) == choices.end()) {
    std::string list;
    for (const auto& a : choices) list += (list.empty() ? "" : ", ") + a;
    ck.error("MODEL.ARCH", "'" + arch + "' is not a known architecture; allowed: " + list);
    return;
  }
  const auto multi = c.getStringList("MODEL.MULTI_PATHWAY_ARCH");
  // The clips follow these lists, the models are built by name: SlowFast is the one model with
  // two pathways, so a list that says otherwise would feed a model the wrong number of inputs.
  for (const auto& a : multi)
    if (a != "slowfast")
      ck.error("MODEL.MULTI_PATHWAY_ARCH",
               "lists '" + a +
                   "', which the studio builds with one pathway; SlowFast is the only " +
                   "two-pathway model, so leave the list as [slowfast]");
  const auto single = c.getStringList("MODEL.SINGLE_PATHWAY_ARCH");
  if (std::find(single.begin(), single.end(), "slowfast") != single.end())
    ck.error("MODEL.SINGLE_PATHWAY_ARCH",
             "lists 'slowfast', which has two pathways; leave it to MODEL.MULTI_PATHWAY_ARCH");
  const bool twoPathways = std::find(multi.begin(), multi.end(), arch) != multi.end();
  const size_t pathways = twoPathways ? 2 : 1;
  const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
  if (channels.size() != pathways)
    ck.error("DATA.INPUT_CHANNEL_NUM", "has " + std::to_string(channels.size()) +
                                           " entries but MODEL.ARCH '" + arch + "' has " +
                                           std::to_string(pathways) + " pathway" +
                                           (pathways == 1 ? "; use [3]" : "s; use [3, 3]"));
  if (twoPathways) {
    const auto frames = c.getInt("DATA.NUM_FRAMES");
    const auto alpha = c.getInt("SLOWFAST.ALPHA");
    if (alpha > 0 && frames % alpha != 0)
      ck.error(ck.blame({"DATA.NUM_FRAMES", "SLOWFAST.ALPHA"}),
               "DATA.NUM_FRAMES " + std::to_string(frames) +
                   " is not divisible by SLOWFAST.ALPHA " + std::to_string(alpha) +
                   "; the slow pathway takes every ALPHA-th frame, so pick NUM_FRAMES " +
                   "as a multiple of ALPHA (e.g. " +
                   std::to_string(std::max<std::int64_t>(alpha, frames / alpha * alpha)) + ")");
  }
}

void checkData(Checker& ck) {
  const Config& c = ck.c_;
  const auto jitter = c.getIntList("DATA.TRAIN_JITTER_SCALES");
  if (jitter.size() != 2)
    ck.error("DATA.TRAIN_JITTER_SCALES",
             "needs exactly two sizes [min, max], got " + std::to_string(jitter.size()));
  else if (jitter[0] <= 0 || jitter[0] > jitter[1])
    ck.error("DATA.TRAIN_JITTER_SCALES",
             "is " + formatValueForMessage(c.get("DATA.TRAIN_JITTER_SCALES")) +
                 "; it must be [min, max] with 0 < min <= max");
  // PySlowFast's get_random_sampling_rate asserts it (clips draw from [SAMPLING_RATE, this]).
  if (const auto longRate = c.getInt("MULTIGRID.LONG_CYCLE_SAMPLING_RATE"),
      rate = c.getInt("DATA.SAMPLING_RATE");
      longRate > 0 && longRate < rate)
    ck.error(
        "MULTIGRID.LONG_CYCLE_SAMPLING_RATE",
        "is " + std::to_string(longRate) + ", below DATA.SAMPLING_RATE (" + std::to_string(rate) +
            "): clips draw their rate from [DATA.SAMPLING_RATE, this]; set 0 (off) or at least " +
            std::to_string(rate));
  const auto mean = c.getFloatList("DATA.MEAN");
  const auto stdv = c.getFloatList("DATA.STD");
  if (mean.size() != 3)
    ck.error("DATA.MEAN", "needs 3 values (R, G, B), got " + std::to_string(mean.size()));
  if (stdv.size() != 3)
    ck.error("DATA.STD", "needs 3 values (R, G, B), got " + std::to_string(stdv.size()));
  if (std::any_of(stdv.begin(), stdv.end(), [](double s) { return !(s > 0); }))
    ck.error("DATA.STD", "values must be > 0 (pixels are divided by them)");
}

void checkSolver(Checker& ck) {
  const Config& c = ck.c_;
  if (c.getString("SOLVER.LR_POLICY") == "steps_with_relative_lrs") {
    const auto steps = c.getFloatList("SOLVER.STEPS");
    const auto lrs = c.getFloatList("SOLVER.LRS");
    if (steps.empty())
      ck.error("SOLVER.STEPS",
               "is empty; steps_with_relative_lrs needs the epochs where the rate changes, e.g. "
               "[0, 40, 60]");
    else {
      // PySlowFast reads LRS[get_step_index(epoch)]: the index of each step below MAX_EPOCH, and
      // LRS[-1] before STEPS[0]. More rates than steps are fine (unused); fewer only when a
      // training epoch needs a missing one.
      const double maxEpoch = static_cast<double>(c.getInt("SOLVER.MAX_EPOCH"));
      size_t needed = 0;
      for (size_t k = 0; k < steps.size(); ++k)
        if (steps[k] < maxEpoch) needed = k + 1;
      if (steps[0] > 0) needed = std::max<size_t>(needed, 1);  // LRS[-1] before the first step
      if (lrs.size() < needed)
        ck.error(ck.blame({"SOLVER.LRS", "SOLVER.STEPS"}),
                 "SOLVER.LRS has " + std::to_string(lrs.size()) +
                     " rates but the steps below SOLVER.MAX_EPOCH need " + std::to_string(needed) +
                     " (one per step in SOLVER.STEPS that training reaches)");
    }
    if (!std::is_sorted(steps.begin(), steps.end()))
      ck.warning("SOLVER.STEPS",
                 "is not in increasing order; the schedule switches at the first step above the "
                 "current epoch, so a smaller step after a larger one never takes effect");
    if (std::any_of(lrs.begin(), lrs.end(), [](double v) { return v < 0; }))
      ck.error("SOLVER.LRS", "relative learning rates must be >= 0");
  }
  // (A negative BASE_LR is already reported on its own; do not report it twice.)
  if (c.getString("SOLVER.LR_POLICY") == "cosine" && c.getFloat("SOLVER.BASE_LR") >= 0 &&
      c.getFloat("SOLVER.COSINE_END_LR") >= 0 &&
      !(c.getFloat("SOLVER.COSINE_END_LR") < c.getFloat("SOLVER.BASE_LR")))
    ck.error(ck.blame({"SOLVER.COSINE_END_LR", "SOLVER.BASE_LR"}),
             "SOLVER.COSINE_END_LR must be below SOLVER.BASE_LR for the cosine schedule");
  if (c.getFloat("SOLVER.WARMUP_EPOCHS") > static_cast<double>(c.getInt("SOLVER.MAX_EPOCH")))
    ck.error("SOLVER.WARMUP_EPOCHS",
             "is longer than SOLVER.MAX_EPOCH " + std::to_string(c.getInt("SOLVER.MAX_EPOCH")));
  const auto betas = c.getFloatList("SOLVER.BETAS");
  if (betas.size() != 2 ||
      std::any_of(betas.begin(), betas.end(), [](double b) { return b < 0 || b >= 1; }))
    ck.error("SOLVER.BETAS", "must be two numbers in [0, 1), e.g. [0.9, 0.999]");
}

void checkRun(Checker& ck) {
  const Config& c = ck.c_;
  if (c.getInt("SHARD_ID") >= c.getInt("NUM_SHARDS"))
    ck.error("SHARD_ID", "is " + std::to_string(c.getInt("SHARD_ID")) + " but NUM_SHARDS is " +
                             std::to_string(c.getInt("NUM_SHARDS")) +
                             "; it must be below NUM_SHARDS");
  const auto gpus = c.getInt("NUM_GPUS");
  // As PySlowFast: TRAIN.BATCH_SIZE is per machine, split over its processes (NUM_GPUS, or
  // DIST.CPU_PROCESSES on the CPU); the global batch is it x NUM_SHARDS.
  const int perShard = config::processesPerShard(c);
  const char* procKey = gpus > 0 ? "NUM_GPUS" : "DIST.CPU_PROCESSES";
  if (c.getInt("TRAIN.BATCH_SIZE") % perShard != 0)
    ck.error(ck.blame({"TRAIN.BATCH_SIZE", procKey}),
             "TRAIN.BATCH_SIZE " + std::to_string(c.getInt("TRAIN.BATCH_SIZE")) +
                 " is not divisible by " + procKey + " " + std::to_string(perShard) +
                 " (it is split evenly over this machine's processes)");
  if (c.getString("BN.NORM_TYPE") == "sync_batchnorm" && !c.getBool("BN.GLOBAL_SYNC") &&
      perShard % c.getInt("BN.NUM_SYNC_DEVICES") != 0)
    ck.error("BN.NUM_SYNC_DEVICES",
             "is " + std::to_string(c.getInt("BN.NUM_SYNC_DEVICES")) +
                 ", which does not divide the " + std::to_string(perShard) +
                 " processes of a machine (" + procKey +
                 ") into groups; choose a divisor, or set BN.GLOBAL_SYNC True");
  const bool longCycle = c.getBool("MULTIGRID.LONG_CYCLE"),
             shortCycle = c.getBool("MULTIGRID.SHORT_CYCLE");
  const auto clipsPerDevice =
      c.getInt("TRAIN.BATCH_SIZE") / perShard * config::clipsPerTrainVideo(c);
  if (c.getString("BN.NORM_TYPE") == "sub_batchnorm" && !longCycle &&
      c.getInt("BN.NUM_SPLITS") > 0 && clipsPerDevice % c.getInt("BN.NUM_SPLITS") != 0)
    ck.error(ck.blame({"BN.NUM_SPLITS", "TRAIN.BATCH_SIZE"}),
             "sub_batchnorm splits each device's " + std::to_string(clipsPerDevice) +
                 " clips into BN.NUM_SPLITS " + std::to_string(c.getInt("BN.NUM_SPLITS")) +
                 " equal groups; choose a divisor");
  if (longCycle && c.origin("BN.NORM_TYPE") && !c.isDefault("BN.NORM_TYPE"))
    ck.warning(
        "BN.NORM_TYPE",
        "is replaced in every long-cycle phase by the batch norm MULTIGRID.BN_BASE_SIZE chooses "
        "(as PySlowFast's multigrid does)");
  if ((longCycle || shortCycle) && c.getString("MODEL.ARCH") == "mvit")
    ck.error(longCycle ? "MULTIGRID.LONG_CYCLE" : "MULTIGRID.SHORT_CYCLE",
             "multigrid changes the clip shape during training, but MViT's positional embeddings "
             "and pooling are built "
             "for one shape (PySlowFast has no multigrid MViT either); set it False");
  if (longCycle || shortCycle) {
    try {
      (void)multigrid::buildSchedule(c);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      const auto colon = what.find(':');
      const std::string key =
          colon == std::string::npos ? "MULTIGRID.LONG_CYCLE" : what.substr(0, colon);
      ck.error(c.schema().find(key) ? key : std::string("MULTIGRID.LONG_CYCLE"),
               colon == std::string::npos ? what : what.substr(colon + 2));
    }
  }
  if (gpus > 0 && c.getInt("DIST.CPU_PROCESSES") != 1)
    ck.warning("DIST.CPU_PROCESSES",
               "is used only when NUM_GPUS is 0; with GPUs there is one process per GPU");
  // Batch norm after the head's global pooling sees one value per channel and clip: training
  // needs at least two clips on each device (LibTorch fails deep inside otherwise).
  const auto perDevice = c.getInt("TRAIN.BATCH_SIZE") / perShard;
  if (c.getBool("TRAIN.ENABLE") && c.getString("MODEL.ARCH") == "x3d" && c.getBool("X3D.BN_LIN5") &&
      perDevice < 2)
    ck.error(ck.blame({"TRAIN.BATCH_SIZE", "X3D.BN_LIN5"}),
             "X3D.BN_LIN5 normalises the pooled head over the batch, which needs at least 2 clips "
             "per device; "
             "TRAIN.BATCH_SIZE gives " +
                 std::to_string(perDevice) + ". Raise the batch or set X3D.BN_LIN5 False");
  if (c.getBool("TRAIN.MIXED_PRECISION") && gpus == 0 && c.getString("AMP.DTYPE") == "float16")
    ck.error("AMP.DTYPE",
             "float16 mixed precision needs a CUDA GPU (NUM_GPUS 0 trains on the CPU); "
             "use bfloat16 or auto on the CPU");
  if (gpus == 0 && c.getBool("AMP.CHANNELS_LAST_3D"))
    ck.warning("AMP.CHANNELS_LAST_3D",
               "is used on CUDA only; NUM_GPUS 0 trains on the CPU in the usual layout");
  if (!c.getBool("TRAIN.MIXED_PRECISION")) {
    for (const char* k : {"AMP.DTYPE", "AMP.SCALER"})
      if (c.origin(k) && !c.isDefault(k))
        ck.warning(k, "has no effect while TRAIN.MIXED_PRECISION is False");
  }
}

// What train and test would refuse, said at the key: the config is valid PySlowFast, but not a
// run the studio makes (the pre-flight checks make these errors before a start).
void warnRefused(Checker& ck) {
  for (const auto& r : refusedSettings(ck.c_, ck.c_.getBool("TRAIN.ENABLE")))
    ck.warning(r.key, r.message + " (train and test refuse it)");
}

void warnInactive(Checker& ck, const std::string& file, Diagnostics& out) {
  std::vector<std::string> keys;
  for (const auto& k : ck.c_.changedKeys())
    if (ck.c_.schema().find(k)->status == KeyStatus::Inactive) keys.push_back(k);
  if (keys.empty()) return;
  std::string list;
  for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
  out.push_back(
      Diagnostic{Diagnostic::Severity::Warning, Origin{file, 0, 0}, "",
                 std::to_string(keys.size()) + " key" + (keys.size() == 1 ? " is" : "s are") +
                     " set but not acted on by AMP Studio yet (training runs as if they had "
                     "their defaults): " +
                     list});
}

}  // namespace

void validateConfig(const Config& config, const std::string& file, Diagnostics& out) {
  Checker ck(config, file, out);
  checkKeys(ck);
  // Cross-key rules read typed values; skip them when a key they read is malformed.
  const size_t errorsBefore = countErrors(out);
  try {
    checkModel(ck);
    checkData(ck);
    checkSolver(ck);
    checkRun(ck);
    warnRefused(ck);
  } catch (const std::exception&) {
    if (countErrors(out) == errorsBefore)
      out.push_back(Diagnostic{Diagnostic::Severity::Error, Origin{file, 0, 0}, "",
                               "config is inconsistent"});
  }
  warnInactive(ck, file, out);
}

}  // namespace amp::config
