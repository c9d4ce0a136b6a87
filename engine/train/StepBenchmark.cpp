#include "train/StepBenchmark.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "config/Config.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "system/MemoryProbe.h"
#include "train/LrSchedule.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"

namespace amp::train {
namespace {

using Clock = std::chrono::steady_clock;

MicroBatch randomBatch(const config::Config& c, int64_t batch, const torch::Device& device, bool channelsLast) {
  const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t t = c.getInt("DATA.NUM_FRAMES"), crop = c.getInt("DATA.TRAIN_CROP_SIZE");
  const bool slowfast = c.getString("MODEL.ARCH") == "slowfast";
  MicroBatch mb;
  for (size_t p = 0; p < channels.size(); ++p)
    mb.inputs.push_back(torch::randn({batch, channels[p], slowfast && p == 0 ? t / c.getInt("SLOWFAST.ALPHA") : t, crop, crop}));
  mb.inputs = toDevice(std::move(mb.inputs), device, channelsLast);
  mb.labels = torch::randint(c.getInt("MODEL.NUM_CLASSES"), {batch}, torch::TensorOptions().dtype(torch::kLong)).to(device);
  return mb;
}

bool isOutOfMemory(const std::exception& e) {
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos || what.find("CUDA error: out of memory") != std::string::npos;
}

// Largest batch one training step fits in on the GPU: doubling, then bisection.
int searchMaxBatch(const config::Config& c, const PrecisionPolicy& policy, const torch::Device& device) {
  auto fits = [&](int b) {
    try {
      torch::manual_seed(0);
      auto net = models::buildVideoNet(c);
      net->to(device);
      const bool cl = useChannelsLast3d(c, device);
      if (cl) toChannelsLast3d(*net);
      auto opt = buildOptimizer(c, *net);
      TrainStep step(c, *net, *opt, policy);
      step.run({randomBatch(c, b, device, cl)});
      torch::cuda::synchronize();
      return true;
    } catch (const std::exception& e) {
      if (!isOutOfMemory(e)) throw;
      return false;
    }
  };
  int good = 0, bad = 0;
  for (int b = 1; b <= 65536; b *= 2) {
    const bool ok = fits(b);
    system::releaseCudaCache();
    if (!ok) {
      bad = b;
      break;
    }
    good = b;
  }
  if (bad == 0) return good;
  while (bad - good > 1) {
    const int mid = (good + bad) / 2;
    const bool ok = fits(mid);
    system::releaseCudaCache();
    (ok ? good : bad) = mid;
  }
  return good;
}

}  // namespace

bool benchmarkTrainingStep(const config::Config& cfg, const StepBenchOptions& o, std::vector<StepBenchResult>& out,
                           std::string* error) {
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
    if (o.max_batch && !cuda)
      return fail("--max-batch needs CUDA (NUM_GPUS 1): on the CPU the limit is the machine's RAM, not an allocator");
    for (const auto& requested : o.precisions) {
      const PrecisionPolicy policy = PrecisionPolicy::forced(cfg, requested);
      torch::manual_seed(static_cast<uint64_t>(cfg.getInt("RNG_SEED")));
      auto net = models::buildVideoNet(cfg);
      net->to(device);
      if (channelsLast) toChannelsLast3d(*net);
      net->train();
      auto optimizer = buildOptimizer(cfg, *net);
      TrainStep step(cfg, *net, *optimizer, policy);
      const LrSchedule schedule(cfg);

      std::unique_ptr<data::VideoLoader> loader;
      double itersPerEpoch = 1;
      if (o.real_data) {
        data::KineticsList list;
        std::string err;
        if (!data::readKineticsList(cfg.getString("DATA.PATH_TO_DATA_DIR"), "train", cfg.getString("DATA.PATH_LABEL_SEPARATOR"),
                                    cfg.getString("DATA.PATH_PREFIX"), static_cast<int>(cfg.getInt("DATA.SKIP_ROWS")), list, &err))
          return fail(err);
        auto lo = data::LoaderOptions::fromConfig(cfg, data::Split::Train);
        lo.batch_size = o.batch;
        loader = std::make_unique<data::VideoLoader>(std::move(list), data::ClipParams::fromConfig(cfg), data::Split::Train, lo);
        if (loader->batchesPerEpoch() == 0) return fail("--batch: " + std::to_string(o.batch) + " clips is more than the training set holds");
        itersPerEpoch = static_cast<double>(loader->batchesPerEpoch());
        loader->startEpoch(0);
      }
      int epoch = 0;
      auto nextBatch = [&]() -> MicroBatch {
        if (!loader) return randomBatch(cfg, o.batch, device, channelsLast);
        auto b = loader->next();
        if (!b) {
          if (!loader->error().empty()) throw std::runtime_error(loader->error());
          loader->startEpoch(++epoch);
          b = loader->next();
          if (!b) throw std::runtime_error(loader->error().empty() ? "the training loader delivered nothing" : loader->error());
        }
        MicroBatch mb;
        if (b->slow_frames > 0)
          mb.inputs.push_back(torch::from_blob(b->slow.data(), {b->size, b->channels, b->slow_frames, b->height, b->width}).clone());
        mb.inputs.push_back(torch::from_blob(b->fast.data(), {b->size, b->channels, b->frames, b->height, b->width}).clone());
        mb.inputs = toDevice(std::move(mb.inputs), device, channelsLast);
        mb.labels = torch::tensor(b->labels, torch::kLong).to(device);
        loader->recycle(std::move(*b));
        return mb;
      };
      const MicroBatch fixed = o.real_data ? MicroBatch{} : nextBatch();  // random clips: the same batch every step

      StepBenchResult r;
      r.precision = policy.name;
      r.device = cuda ? "cuda:0" : "cpu";
      r.batch = o.batch;
      {
        torch::NoGradGuard noGrad;
        net->eval();  // one clip: batch norm on running statistics
        models::FlopCounter counter;
        net->forward(randomBatch(cfg, 1, device, channelsLast).inputs);
        r.macs_per_step = 3.0 * static_cast<double>(counter.macs()) * o.batch;  // backward costs about twice the forward
        net->train();
      }
      const std::int64_t rssBefore = system::processRssBytes();
      system::resetPeakRss();
      if (cuda) system::resetCudaPeak(0);
      std::vector<double> times;
      double waitSum = 0;
      for (int i = 0; i < o.warmup + o.iterations; ++i) {
        const auto t0 = Clock::now();
        MicroBatch mb = o.real_data ? nextBatch() : fixed;
        const double wait = std::chrono::duration<double>(Clock::now() - t0).count();
        const auto start = Clock::now();
        const double frac = o.real_data ? static_cast<double>(i) / itersPerEpoch : cfg.getFloat("SOLVER.WARMUP_EPOCHS");
        setLearningRate(*optimizer, schedule.at(frac));
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
          waitSum += wait;
        }
      }
      if (loader) loader->stop();
      std::sort(times.begin(), times.end());
      r.median_step_s = times.empty() ? 0.0 : times[times.size() / 2];
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
        r.max_batch = searchMaxBatch(cfg, policy, device);
      }
      out.push_back(r);
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return true;
}

}  // namespace amp::train
