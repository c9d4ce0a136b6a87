#include "train/StepBenchmark.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <filesystem>
#include <mutex>
#include "config/Config.h"
#include "config/LrSchedule.h"
#include "configfile/ConfigLoader.h"
#include "models/VideoModels.h"
#include "runlog/MetricEvent.h"
#include "system/ErrorText.h"
#include "system/MemoryProbe.h"
#include "train/BatchSource.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"
#include "train/Trainer.h"

namespace amp::train {
namespace {

using Clock = std::chrono::steady_clock;

bool isOutOfMemory(const std::exception& e) {
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos ||
         what.find("CUDA error: out of memory") != std::string::npos;
}

// The smallest batch the model trains on: batch norm over the pooled X3D head needs two clips.
int smallestBatch(const config::Config& c) {
  return c.getString("MODEL.ARCH") == "x3d" && c.getBool("X3D.BN_LIN5") ? 2 : 1;
}

// Largest batch one training step fits in on the GPU: doubling from a batch known to fit (the
// benchmark's), then bisection until the gap is at most 1/16 of the batch found (each trial
// builds the model afresh, a few seconds for SlowFast at a hundred clips).
int searchMaxBatch(const config::Config& c, const PrecisionPolicy& policy,
                   const torch::Device& device, int fits0) {
  auto fits = [&](int b) {
    bool ok = true;
    try {
      torch::manual_seed(0);
      auto net = models::buildVideoNet(c);
      net->to(device);
      const bool cl = useChannelsLast3d(c, device);
      if (cl) toChannelsLast3d(*net);
      auto opt = buildOptimizer(c, *net);
      TrainStep step(c, *net, *opt, policy);
      step.run({randomMicroBatch(c, b, device, cl)});
      torch::cuda::synchronize();
    } catch (const std::exception& e) {
      if (!isOutOfMemory(e)) throw;
      ok = false;
    }
    system::releaseCudaCache();
    return ok;
  };
  int good = std::max(fits0, smallestBatch(c)), bad = 0;
  for (int b = good * 2; b <= 65536; b *= 2) {
    if (!fits(b)) {
      bad = b;
      break;
    }
    good = b;
  }
  if (bad == 0) return good;
  while (bad - good > std::max(1, good / 16)) {
    const int mid = (good + bad) / 2;
    (fits(mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace

bool benchmarkTrainingStep(const config::Config& cfg, const StepBenchOptions& o,
                           std::vector<StepBenchResult>& out, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  out.clear();
  try {
    const torch::Device device = trainingDevice(cfg);
    if (o.threads > 0 && device.is_cpu()) torch::set_num_threads(o.threads);
    const bool cuda = device.is_cuda();
    const bool channelsLast = useChannelsLast3d(cfg, device);
    if (cuda && o.tf32 >= 0) {
      at::globalContext().setAllowTF32CuDNN(o.tf32 == 1);
      at::globalContext().setAllowTF32CuBLAS(o.tf32 == 1);
    }
    if (o.max_batch && !cuda)
      return fail(
          "--max-batch needs CUDA (NUM_GPUS 1): on the CPU the limit is the machine's RAM, not an "
          "allocator");
    if (o.batch < smallestBatch(cfg))
      return fail("--batch " + std::to_string(o.batch) +
                  ": X3D.BN_LIN5 normalises the pooled head over the batch, which needs at least " +
                  std::to_string(smallestBatch(cfg)) + " clips");
    for (const auto& requested : o.precisions) {
      const PrecisionPolicy policy = PrecisionPolicy::forced(cfg, requested);
      torch::manual_seed(static_cast<uint64_t>(cfg.getInt("RNG_SEED")));
      auto net = models::buildVideoNet(cfg);
      net->to(device);
      if (channelsLast) toChannelsLast3d(*net);
      trainingMode(*net, cfg);
      std::vector<double> layerDecay;
      auto optimizer = buildOptimizer(cfg, *net, &layerDecay);
      TrainStep step(cfg, *net, *optimizer, policy);
      step.synchronizePhases(true);
      const config::LrSchedule schedule(cfg);

      std::string sourceError;
      auto source =
          BatchSource::open(cfg, o.batch, device, channelsLast, !o.real_data, &sourceError);
      if (!source) return fail(sourceError);
      const double itersPerEpoch = static_cast<double>(source->batchesPerEpoch());
      const MicroBatch fixed =
          o.real_data ? MicroBatch{} : source->next();  // random clips: the same batch every step

      StepBenchResult r;
      r.precision = policy.name;
      r.device = cuda ? "cuda:0" : "cpu";
      r.tf32_cudnn = cuda && at::globalContext().allowTF32CuDNN();
      r.tf32_cublas = cuda && at::globalContext().allowTF32CuBLAS();
      r.batch = o.batch;
      {
        torch::NoGradGuard noGrad;
        net->eval();  // one clip: batch norm on running statistics
        models::FlopCounter counter;
        forwardMicroBatch(*net, randomMicroBatch(cfg, 1, device, channelsLast));
        r.macs_per_step = 3.0 * static_cast<double>(counter.macs()) *
                          o.batch;  // backward costs about twice the forward
        trainingMode(*net, cfg);
      }
      const std::int64_t rssBefore = system::processRssBytes();
      system::resetPeakRss();
      if (cuda) system::resetCudaPeak(0);
      std::vector<double> times, forwardTimes, backwardTimes;
      double waitSum = 0;
      for (int i = 0; i < o.warmup + o.iterations; ++i) {
        // On CUDA the peak is that of the measured steps: the warm-up's cuDNN algorithm search
        // (cudnn benchmark, as PySlowFast) allocates trial workspaces a steady step does not.
        if (cuda && i == o.warmup && i > 0) {
          torch::cuda::synchronize();
          system::resetCudaPeak(0);
        }
        const auto t0 = Clock::now();
        MicroBatch mb = o.real_data ? source->next() : fixed;
        const double wait = std::chrono::duration<double>(Clock::now() - t0).count();
        const auto start = Clock::now();
        const double frac = o.real_data ? static_cast<double>(i) / itersPerEpoch
                                        : cfg.getFloat("SOLVER.WARMUP_EPOCHS");
        setLearningRate(*optimizer, schedule.at(frac), layerDecay);
        const StepOutcome s = step.run({mb});
        if (cuda) torch::cuda::synchronize();
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (i == 0) r.first_loss = s.loss;
        r.last_loss = s.loss;
        r.finite = r.finite && std::isfinite(s.loss) && s.finite_loss;
        r.skipped_steps += s.stepped ? 0 : 1;
        r.final_loss_scale = s.update.scale_after;
        if (i >= o.warmup) {
          times.push_back(seconds);
          forwardTimes.push_back(s.forward_s);
          backwardTimes.push_back(s.backward_s);
          waitSum += wait;
        }
      }
      source->stop();
      // The median step, and its own forward and backward (so that they add up within it).
      std::vector<size_t> order(times.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::sort(order.begin(), order.end(),
                [&](size_t x, size_t y) { return times[x] < times[y]; });
      if (!order.empty()) {
        const size_t m = order[order.size() / 2];
        r.median_step_s = times[m];
        r.median_forward_s = forwardTimes[m];
        r.median_backward_s = backwardTimes[m];
      }
      r.iterations_per_s = r.median_step_s > 0 ? 1.0 / r.median_step_s : 0.0;
      r.clips_per_s = r.iterations_per_s * o.batch;
      r.achieved_flops = r.median_step_s > 0 ? 2.0 * r.macs_per_step / r.median_step_s : 0.0;
      r.data_wait_s = times.empty() ? 0.0 : waitSum / static_cast<double>(times.size());
      r.peak_bytes = cuda ? system::cudaMemory(0).peak_allocated_bytes
                          : std::max<std::int64_t>(0, system::processPeakRssBytes() - rssBefore);
      if (o.max_batch) {
        net.reset();
        optimizer.reset();
        system::releaseCudaCache();
        r.max_batch = searchMaxBatch(cfg, policy, device, o.batch);
      }
      out.push_back(r);
    }
  } catch (const std::exception& e) {
    return fail(system::errorText(e));
  }
  return true;
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Median seconds per iteration of the bare loop over `iterations` after `warmup` (the median
// keeps a shared machine's hiccups out of the figure).
double bareLoop(const config::Config& cfg, const PrecisionPolicy& policy,
                const torch::Device& device, int warmup, int iterations) {
  torch::manual_seed(0);
  auto net = models::buildVideoNet(cfg);
  net->to(device);
  const bool cl = useChannelsLast3d(cfg, device);
  if (cl) toChannelsLast3d(*net);
  trainingMode(*net, cfg);
  auto opt = buildOptimizer(cfg, *net);
  precision::GradScaler scaler({cfg.getFloat("AMP.INIT_SCALE"), cfg.getFloat("AMP.GROWTH_FACTOR"),
                                cfg.getFloat("AMP.BACKOFF_FACTOR"),
                                cfg.getInt("AMP.GROWTH_INTERVAL"), policy.scaler});
  const MicroBatch b = randomMicroBatch(cfg, cfg.getInt("TRAIN.BATCH_SIZE"), device, cl);
  std::vector<double> durations;
  Clock::time_point last = Clock::now();
  for (int i = 0; i < warmup + iterations; ++i) {
    opt->zero_grad();
    torch::Tensor y;
    {
      precision::AutocastGuard guard(policy.mixed, policy.autocastDevice(), policy.autocastType());
      y = forwardMicroBatch(*net, b);
    }
    auto loss = b.boxes.defined()
                    ? microBatchLoss(cfg.getString("MODEL.LOSS_FUNC"), y, b)
                    : torch::nn::functional::cross_entropy(y.to(torch::kFloat), b.labels);
    scaler.scale(loss).backward();
    scaler.step(*opt);
    scaler.update();
    if (device.is_cuda()) torch::cuda::synchronize();
    const auto now = Clock::now();
    if (i >= warmup) durations.push_back(std::chrono::duration<double>(now - last).count());
    last = now;
  }
  return median(durations);
}

// Median seconds per iteration through the Trainer: the gaps between its own events' times
// (steps warmup..warmup+iterations), everything the loop does between two steps included.
double trainerLoop(const config::Config& base, const std::string& dir, int warmup, int iterations,
                   double& bookkeeping, std::string* error) {
  config::Config c = base;
  std::filesystem::remove_all(dir);
  c.setOrThrow("OUTPUT_DIR", dir);
  c.setOrThrow("TRAIN.AUTO_RESUME", false);
  c.setOrThrow("TRAIN.EVAL_PERIOD", 100000);
  c.setOrThrow("TRAIN.CHECKPOINT_PERIOD", 100000);
  c.setOrThrow("SOLVER.MAX_EPOCH", 100000);
  c.setOrThrow("RNG_SEED", 0);
  Trainer t(c, "bench overhead");
  t.setSyntheticClips(true);
  std::mutex m;
  std::vector<double> times, stepTimes;
  const std::int64_t last = warmup + iterations;
  t.setEventSink([&](const runlog::MetricEvent& e) {
    if (e.kind != runlog::kind::kTrain) return;
    std::lock_guard<std::mutex> lock(m);
    times.push_back(e.time_s);
    stepTimes.push_back(e.value("iter_time_s").value_or(0.0));
    if (e.step >= last) t.stop();
  });
  if (!t.start(error)) return -1;
  t.wait();
  std::filesystem::remove_all(dir);
  if (static_cast<std::int64_t>(times.size()) < last) {
    if (error)
      *error = "the trainer ended after " + std::to_string(times.size()) + " steps: " + t.error();
    return -1;
  }
  std::vector<double> gaps, outside;
  for (std::int64_t i = warmup; i < last; ++i) {
    const auto k = static_cast<std::size_t>(i);
    gaps.push_back(times[k] - times[k - 1]);
    outside.push_back(gaps.back() - stepTimes[k]);
  }
  bookkeeping = median(outside);
  return median(gaps);
}

}  // namespace

bool benchmarkEngineOverhead(const config::Config& cfg, const OverheadOptions& o,
                             OverheadResult& out, std::string* error) {
  try {
    const torch::Device device = trainingDevice(cfg);
    const PrecisionPolicy policy = PrecisionPolicy::fromConfig(cfg);
    out.precision = policy.name;
    out.device = device.str();
    out.batch = static_cast<int>(cfg.getInt("TRAIN.BATCH_SIZE"));
    if (cfg.getInt("SOLVER.GRAD_ACCUM_STEPS") != 1) {
      if (error)
        *error = "SOLVER.GRAD_ACCUM_STEPS: bench overhead compares single-batch steps; set it to 1";
      return false;
    }
    const int warmup = std::max(1, o.warmup);
    for (int r = 0; r < std::max(1, o.rounds); ++r) {
      out.bare_s.push_back(bareLoop(cfg, policy, device, warmup, o.iterations));
      double bookkeeping = 0;
      const double t =
          trainerLoop(cfg, o.work_dir + "/overhead-run", warmup, o.iterations, bookkeeping, error);
      if (t < 0) return false;
      out.trainer_s.push_back(t);
      out.bookkeeping_s.push_back(bookkeeping);
    }
    out.bare_median_s = median(out.bare_s);
    out.trainer_median_s = median(out.trainer_s);
    std::vector<double> ratios;
    for (std::size_t i = 0; i < out.bare_s.size(); ++i)
      ratios.push_back(out.trainer_s[i] / out.bare_s[i]);
    out.overhead = median(ratios) - 1;  // paired rounds: the machine's drift cancels
    out.bookkeeping_median_s = median(out.bookkeeping_s);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
}

}  // namespace amp::train
