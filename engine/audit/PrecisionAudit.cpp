#include "audit/PrecisionAudit.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "audit/LayerProbe.h"
#include "config/Config.h"
#include "data/KineticsCsv.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "train/Checkpoint.h"
#include "train/ErrorText.h"
#include "train/LrSchedule.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"

namespace amp::audit {

std::string scaleText(double scale) {
  if (std::isinf(scale)) return scale > 0 ? "inf" : "-inf";
  if (std::isnan(scale)) return "n/a";
  if (scale > 0) {
    int e = 0;
    if (std::frexp(scale, &e) == 0.5) return "2^" + std::to_string(e - 1);
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", scale);
  return buf;
}

void summarizeAudit(const std::vector<LayerAudit>& layers, AuditSummary& s) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  s.safe_scale_min = 0;
  s.safe_scale_max = kInf;
  s.overflow_layer.clear();
  s.underflow_layer.clear();
  s.layers_overflowing = s.layers_underflowing = 0;
  s.min_headroom_log2 = kInf;
  s.min_headroom_layer.clear();
  s.max_bf16_rel_error = std::numeric_limits<double>::quiet_NaN();
  s.max_bf16_error_layer.clear();
  for (const auto& l : layers) {
    if (l.headroom_log2 < s.min_headroom_log2) {
      s.min_headroom_log2 = l.headroom_log2;
      s.min_headroom_layer = l.name;
    }
    if (!std::isnan(l.bf16_rel_error) && !(l.bf16_rel_error <= s.max_bf16_rel_error)) {
      s.max_bf16_rel_error = l.bf16_rel_error;
      s.max_bf16_error_layer = l.name;
    }
    if (!l.has_grad || l.grad_absmax == 0) continue;
    const bool finite = std::isfinite(l.grad_absmax);
    const double over = finite ? kFp16Max / l.grad_absmax : 0.0;
    if (over < s.safe_scale_max) {
      s.safe_scale_max = over;
      s.overflow_layer = l.name;
    }
    const double under = finite ? kFp16MinNormal / l.grad_absmax : 0.0;
    if (under > s.safe_scale_min) {
      s.safe_scale_min = under;
      s.underflow_layer = l.name;
    }
    if (!finite || l.grad_absmax * s.report_scale > kFp16Max) ++s.layers_overflowing;
    if (l.fp16_underflow_fraction > 0.01) ++s.layers_underflowing;
  }
  s.safe_range_exists = s.safe_scale_min <= s.safe_scale_max && s.safe_scale_max > 0;
  if (std::isinf(s.safe_scale_max)) {
    s.suggested_init_scale = 65536.0;  // no gradient seen: PyTorch's default
  } else {
    const int e =
        s.safe_scale_max > 0 ? static_cast<int>(std::floor(std::log2(s.safe_scale_max))) : -24;
    s.suggested_init_scale = std::ldexp(1.0, std::max(-24, std::min(24, e)));
  }
  std::string fp16Trouble;
  if (!s.safe_range_exists)
    fp16Trouble = "no float16 loss scale keeps every layer safe (overflow from " +
                  scaleText(s.safe_scale_max) + " in " + s.overflow_layer +
                  ", total underflow below " + scaleText(s.safe_scale_min) + " in " +
                  s.underflow_layer + ")";
  else if (s.min_headroom_log2 < 1.0)
    fp16Trouble =
        s.min_headroom_layer + "'s activation is within a factor 2 of float16's 65504 (headroom " +
        (std::isfinite(s.min_headroom_log2) ? std::to_string(s.min_headroom_log2).substr(0, 5)
                                            : std::string("-inf")) +
        " bits), which no loss scale helps";
  s.bf16_safer = !fp16Trouble.empty();
  std::string r;
  if (std::isinf(s.safe_scale_max)) {
    r = "no gradient reached the audited layers: keep AMP.INIT_SCALE 65536";
  } else {
    r = "AMP.INIT_SCALE " + scaleText(s.suggested_init_scale) +
        " (the largest power of two not above " + scaleText(s.safe_scale_max) + ", where " +
        s.overflow_layer + " overflows)";
  }
  if (s.bf16_safer)
    r += "; bfloat16 is safer for this model: " + fp16Trouble;
  else if (!std::isinf(s.safe_scale_max))
    r += "; float16 with the scaler fits (every layer is safe from " + scaleText(s.safe_scale_min) +
         " to " + scaleText(s.safe_scale_max) + "), bfloat16 needs no scaler";
  if (!std::isnan(s.max_bf16_rel_error) && s.max_bf16_rel_error > 0.05)
    r += "; note bfloat16's error reaches " + std::to_string(s.max_bf16_rel_error).substr(0, 5) +
         " at " + s.max_bf16_error_layer;
  r += "; SOLVER.LR_SCALE 0.6 when turning mixed precision on is a rule of thumb, not a result of "
       "this audit";
  s.recommendation = r;
}

namespace {

int smallestBatch(const config::Config& c) {
  return c.getString("MODEL.ARCH") == "x3d" && c.getBool("X3D.BN_LIN5") ? 2 : 1;
}

}  // namespace

bool auditPrecision(const config::Config& base, const PrecisionAuditOptions& o,
                    PrecisionAuditReport& report, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  report = {};
  try {
    config::Config c = base;
    if (c.getBool("MODEL.ACT_CHECKPOINT")) {
      c.set("MODEL.ACT_CHECKPOINT", false);
      report.notes.push_back(
          "MODEL.ACT_CHECKPOINT off for the audit: recomputation would observe layers twice; the "
          "numbers are the same");
    }
    if (o.batches < 1) return fail("--batches: at least one batch");
    const torch::Device device = train::trainingDevice(c);
    if (o.threads > 0 && device.is_cpu()) torch::set_num_threads(o.threads);
    const train::PrecisionPolicy policy = train::PrecisionPolicy::forced(c, o.precision);
    const bool channelsLast = train::useChannelsLast3d(c, device);
    const int batchSize =
        o.batch_size > 0 ? o.batch_size : static_cast<int>(c.getInt("TRAIN.BATCH_SIZE"));
    if (batchSize < smallestBatch(c))
      return fail("--batch " + std::to_string(batchSize) +
                  ": X3D.BN_LIN5 normalises the pooled head over the batch, which needs at least " +
                  std::to_string(smallestBatch(c)) + " clips");
    const std::string lossFunc = c.getString("MODEL.LOSS_FUNC");
    train::checkLossFunc(lossFunc);

    torch::manual_seed(static_cast<std::uint64_t>(c.getInt("RNG_SEED")));
    auto net = models::buildVideoNet(c);
    net->to(device);
    if (channelsLast) train::toChannelsLast3d(*net);
    net->train();
    std::vector<double> layerDecay;
    auto optimizer = train::buildOptimizer(c, *net, &layerDecay);
    precision::GradScaler scaler({c.getFloat("AMP.INIT_SCALE"), c.getFloat("AMP.GROWTH_FACTOR"),
                                  c.getFloat("AMP.BACKOFF_FACTOR"), c.getInt("AMP.GROWTH_INTERVAL"),
                                  policy.scaler});
    double epoch = 0;
    if (!o.checkpoint.empty()) {
      // As the trainer's initial checkpoint: the entries that fit; the scaler's scale when it runs.
      train::LoadTargets t{net.get(),
                           nullptr,
                           &scaler,
                           false,
                           c.getStringList("TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN"),
                           /*subset=*/true};
      t.caffe2 = c.getString("TRAIN.CHECKPOINT_TYPE") == "caffe2";
      t.inflate = c.getBool("TRAIN.CHECKPOINT_INFLATE");
      const auto info = train::loadCheckpoint(o.checkpoint, t);
      for (const auto& n : info.notes) report.notes.push_back("checkpoint: " + n);
      epoch = info.epochs_done;
      report.notes.push_back("weights from " + o.checkpoint + " (epochs done " +
                             std::to_string(info.epochs_done) + ", step " +
                             std::to_string(info.global_step) + "); the optimizer starts afresh");
    }
    train::setLearningRate(*optimizer, train::LrSchedule(c).at(epoch), layerDecay);

    std::unique_ptr<data::VideoLoader> loader;
    if (!o.synthetic) {
      data::KineticsList list;
      std::string err;
      if (!data::readKineticsList(c.getString("DATA.PATH_TO_DATA_DIR"), "train",
                                  c.getString("DATA.PATH_LABEL_SEPARATOR"),
                                  c.getString("DATA.PATH_PREFIX"), /*skipRows=*/0, list, &err))
        return fail(err + " (or audit on random clips with --synthetic)");
      auto lo = data::LoaderOptions::fromConfig(c, data::Split::Train);
      lo.batch_size = batchSize;
      loader = std::make_unique<data::VideoLoader>(std::move(list), data::ClipParams::fromConfig(c),
                                                   data::Split::Train, lo);
      if (loader->batchesPerEpoch() == 0)
        return fail("--batch: " + std::to_string(batchSize) +
                    " clips is more than the training set holds");
      loader->startEpoch(0);
    }
    int loaderEpoch = 0;
    std::vector<train::MicroBatch>
        batches;  // kept until the audit ends: the closures refer to them
    auto nextBatch = [&]() -> train::MicroBatch {
      if (!loader) return train::randomMicroBatch(c, batchSize, device, channelsLast);
      auto b = loader->next();
      if (!b) {
        if (!loader->error().empty()) throw std::runtime_error(loader->error());
        loader->startEpoch(++loaderEpoch);
        b = loader->next();
        if (!b)
          throw std::runtime_error(loader->error().empty() ? "the training loader delivered nothing"
                                                           : loader->error());
      }
      train::MicroBatch mb;
      if (b->slow_frames > 0)
        mb.inputs.push_back(torch::from_blob(b->slow.data(), {b->size, b->channels, b->slow_frames,
                                                              b->height, b->width})
                                .clone());
      mb.inputs.push_back(
          torch::from_blob(b->fast.data(), {b->size, b->channels, b->frames, b->height, b->width})
              .clone());
      mb.inputs = train::toDevice(std::move(mb.inputs), device, channelsLast);
      mb.labels = torch::tensor(b->labels, torch::kLong).to(device);
      loader->recycle(std::move(*b));
      return mb;
    };
    for (int i = 0; i < o.batches; ++i)
      batches.push_back(nextBatch());  // loaded before the audit starts
    if (o.time_plain_steps) {  // warm-up (first-use kernel and allocator costs), weights unchanged
      const train::MicroBatch& w = batches.front();
      torch::Tensor y;
      {
        precision::AutocastGuard guard(policy.mixed, policy.autocastDevice(),
                                       policy.autocastType());
        y = net->forward(w.inputs);
      }
      train::classificationLoss(lossFunc, y, w.labels).backward();
      optimizer->zero_grad();
    }

    audit::ModelAuditOptions mo;
    mo.mixed = policy.mixed;
    mo.device = policy.autocastDevice();
    mo.type = policy.autocastType();
    mo.compare_batches = o.compare_batches;
    mo.report_scale = o.report_scale > 0 ? o.report_scale
                                         : (scaler.enabled() ? scaler.currentScale()
                                                             : c.getFloat("AMP.INIT_SCALE"));
    mo.scaler = &scaler;
    mo.optimizer = optimizer.get();
    auto* model = net.get();
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto result = auditModel(
        *net, o.batches,
        [&](int i) {
          const train::MicroBatch* mb = &batches[static_cast<std::size_t>(i)];
          return ModelAuditBatch{[model, mb] { return model->forward(mb->inputs); },
                                 [mb, lossFunc](const torch::Tensor& y) {
                                   return train::classificationLoss(lossFunc, y, mb->labels);
                                 }};
        },
        mo);
    if (device.is_cuda()) torch::cuda::synchronize();
    report.audit_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (loader) loader->stop();
    if (o.time_plain_steps) {
      train::TrainStep step(c, *net, *optimizer, policy);
      for (const auto& mb : batches) {
        const auto t0 = Clock::now();
        step.run({mb});
        if (device.is_cuda()) torch::cuda::synchronize();
        report.plain_step_seconds.push_back(
            std::chrono::duration<double>(Clock::now() - t0).count());
      }
    }

    report.layers = result.layers;
    report.losses = result.losses;
    report.skipped_steps = result.skipped_steps;
    for (const auto& n : result.notes) report.notes.push_back(n);
    auto& s = report.summary;
    s.precision = policy.name;
    s.device = device.is_cuda() ? device.str() : "cpu";
    s.batches = o.batches;
    s.batch_size = batchSize;
    s.report_scale = mo.report_scale;
    s.applied_scale = result.applied_scale;
    summarizeAudit(report.layers, s);
    s.nonfinite_layer = result.nonfinite_layer;
    return true;
  } catch (const std::exception& e) {
    return fail(train::errorText(e));
  }
}

}  // namespace amp::audit
