#include "audit/PrecisionAudit.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "audit/ModelAudit.h"
#include "config/Config.h"
#include "config/LrSchedule.h"
#include "models/VideoModels.h"
#include "system/ErrorText.h"
#include "train/BatchSource.h"
#include "train/Checkpoint.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"

namespace amp::audit {

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
      c.setOrThrow("MODEL.ACT_CHECKPOINT", false);
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
    train::trainingMode(*net, c);
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
      if (t.inflate) t.clear_name_patterns.clear();  // as PySlowFast's inflate_weight
      const auto info = train::loadCheckpoint(o.checkpoint, t);
      for (const auto& n : info.notes) report.notes.push_back("checkpoint: " + n);
      epoch = info.epochs_done;
      report.notes.push_back("weights from " + o.checkpoint + " (epochs done " +
                             std::to_string(info.epochs_done) + ", step " +
                             std::to_string(info.global_step) + "); the optimizer starts afresh");
    }
    train::setLearningRate(*optimizer, config::LrSchedule(c).at(epoch), layerDecay);

    std::string sourceError;
    auto source =
        train::BatchSource::open(c, batchSize, device, channelsLast, o.synthetic, &sourceError);
    if (!source) return fail(sourceError + " (or audit on random clips with --synthetic)");
    std::vector<train::MicroBatch>
        batches;  // kept until the audit ends: the closures refer to them
    for (int i = 0; i < o.batches; ++i)
      batches.push_back(source->next());  // loaded before the audit starts
    if (o.time_plain_steps) {  // warm-up (first-use kernel and allocator costs), weights unchanged
      const train::MicroBatch& w = batches.front();
      torch::Tensor y;
      {
        precision::AutocastGuard guard(policy.mixed, policy.autocastDevice(),
                                       policy.autocastType());
        y = train::forwardMicroBatch(*net, w);
      }
      train::microBatchLoss(lossFunc, y, w).backward();
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
          return ModelAuditBatch{[model, mb] { return train::forwardMicroBatch(*model, *mb); },
                                 [mb, lossFunc](const torch::Tensor& y) {
                                   return train::microBatchLoss(lossFunc, y, *mb);
                                 }};
        },
        mo);
    if (device.is_cuda()) torch::cuda::synchronize();
    report.audit_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    source->stop();  // its prefetching workers would share the cores with the timed steps
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
    return fail(system::errorText(e));
  }
}

}  // namespace amp::audit
