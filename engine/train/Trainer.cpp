#include "train/Trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>

#include "amp/AutocastGuard.h"
#include "amp/GradScaler.h"
#include "config/ConfigWriter.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"
#include "system/DeviceInfo.h"
#include "system/MemoryProbe.h"
#include "train/LrSchedule.h"
#include "train/Optimizer.h"

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

std::vector<torch::Tensor> batchTensors(data::Batch& b, const torch::Device& device) {
  std::vector<torch::Tensor> x;
  const bool twoPathways = b.slow_frames > 0;
  if (twoPathways)
    x.push_back(torch::from_blob(b.slow.data(), {b.size, b.channels, b.slow_frames, b.height, b.width}).to(device, true));
  x.push_back(torch::from_blob(b.fast.data(), {b.size, b.channels, b.frames, b.height, b.width}).to(device, true));
  if (device.is_cpu())
    for (auto& t : x) t = t.clone();  // the batch's buffer goes back to the loader
  return x;
}

}  // namespace

const char* toString(TrainerState s) {
  switch (s) {
    case TrainerState::Idle: return "idle";
    case TrainerState::Running: return "running";
    case TrainerState::Paused: return "paused";
    case TrainerState::Finished: return "finished";
    case TrainerState::Stopped: return "stopped";
    case TrainerState::Failed: return "failed";
  }
  return "?";
}

Trainer::Trainer(config::Config cfg, std::string configSource) : cfg_(std::move(cfg)), configSource_(std::move(configSource)) {
  runDir_ = cfg_.getString("OUTPUT_DIR");
}

Trainer::~Trainer() {
  stop();
  wait();
}

void Trainer::setEventSink(std::function<void(const runlog::MetricEvent&)> sink) { sink_ = std::move(sink); }
void Trainer::pause() { pauseRequested_ = true; }
void Trainer::resume() { pauseRequested_ = false; }
void Trainer::stop() { stopRequested_ = true; }
void Trainer::wait() {
  if (thread_.joinable()) thread_.join();
}

std::string Trainer::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

TrainerProgress Trainer::progress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_;
}

bool Trainer::start(std::string* error) {
  if (thread_.joinable()) {
    if (error) *error = "this trainer has already been started";
    return false;
  }
  runlog::RunDirectory dir(runDir_);
  const std::string why = dir.ensureExists();
  if (!why.empty()) {
    if (error) *error = "OUTPUT_DIR: " + why;
    return false;
  }
  state_ = TrainerState::Running;
  thread_ = std::thread(&Trainer::run, this);
  return true;
}

void Trainer::run() {
  runlog::RunDirectory dir(runDir_);
  runlog::MetricsWriter writer;
  runlog::RunMetadata meta;
  const auto started = Clock::now();
  auto emit = [&](runlog::MetricEvent e) {
    e.time_s = since(started);
    e.unix_time_s = runlog::unixTimeNow();
    writer.write(e);
    if (sink_) sink_(e);
  };
  auto event = [&](const std::string& name, const std::string& message, std::int64_t step, double epoch,
                   std::map<std::string, double> values = {}) {
    runlog::MetricEvent e;
    e.kind = runlog::kind::kEvent;
    e.name = name;
    e.message = message;
    e.step = step;
    e.epoch = epoch;
    e.values = std::move(values);
    emit(e);
    dir.appendLog(name + ": " + message);
  };
  auto finish = [&](TrainerState s, const std::string& err) {
    meta.status = s == TrainerState::Finished ? runlog::RunStatus::Finished
                  : s == TrainerState::Stopped ? runlog::RunStatus::Stopped
                                               : runlog::RunStatus::Failed;
    meta.error = err;
    meta.endedAt = meta.updatedAt = runlog::unixTimeNow();
    dir.writeMetadata(meta);
    if (!err.empty()) dir.appendLog("error: " + err);
    dir.appendLog(std::string("run ") + toString(s));
    writer.close();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = err;
    }
    state_ = s;
  };

  try {
    const config::Config& c = cfg_;
    // Precision policy (ARCHITECTURE.md): fp16 + scaler on CUDA, bf16 on the CPU for "auto".
    const bool cuda = c.getInt("NUM_GPUS") > 0;
    if (cuda && !torch::cuda::is_available()) throw std::runtime_error("NUM_GPUS: this LibTorch sees no CUDA device; set NUM_GPUS 0");
    const torch::Device device = cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    const bool mixed = c.getBool("TRAIN.MIXED_PRECISION");
    const std::string dtype = c.getString("AMP.DTYPE");
    const bool fp16 = mixed && (dtype == "float16" || (dtype == "auto" && cuda));
    const std::string scalerMode = c.getString("AMP.SCALER");
    const bool scalerOn = mixed && (scalerMode == "on" || (scalerMode == "auto" && fp16));
    const std::string precisionName = !mixed ? "fp32" : fp16 ? "fp16" : "bf16";
    if (!cuda) torch::set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    torch::manual_seed(static_cast<uint64_t>(c.getInt("RNG_SEED")));

    meta.name = std::filesystem::path(runDir_).filename().string();
    meta.status = runlog::RunStatus::Running;
    meta.precision = precisionName;
    meta.model = c.getString("MODEL.MODEL_NAME") + " (" + c.getString("MODEL.ARCH") + ")";
    meta.configSource = configSource_;
    meta.host = runlog::hostName();
    meta.pid = getpid();
    meta.createdAt = meta.startedAt = meta.updatedAt = runlog::unixTimeNow();
    const auto devInfo = system::probeDevices();
    meta.device = cuda ? "cuda:0" : "cpu (" + std::to_string(devInfo.cpu_cores) + " cores, " + devInfo.blas + ")";
    meta.versions = {{"ampstudio", AMPSTUDIO_VERSION}, {"libtorch", devInfo.libtorch_version}, {"ffmpeg", devInfo.ffmpeg_version}};
    const std::string metaError = dir.writeMetadata(meta);
    if (!metaError.empty()) throw std::runtime_error(metaError);
    config::saveConfigFile(c, dir.configPath());
    const std::string openError = writer.open(dir.metricsPath());
    if (!openError.empty()) throw std::runtime_error(openError);
    dir.appendLog("run started: " + meta.model + ", " + precisionName + ", " + meta.device);

    // Data.
    auto readList = [&](const char* split) {
      data::KineticsList list;
      std::string err;
      if (!data::readKineticsList(c.getString("DATA.PATH_TO_DATA_DIR"), split, c.getString("DATA.PATH_LABEL_SEPARATOR"),
                                  c.getString("DATA.PATH_PREFIX"), static_cast<int>(c.getInt("DATA.SKIP_ROWS")), list, &err))
        throw std::runtime_error(err);
      return list;
    };
    const auto params = data::ClipParams::fromConfig(c);
    data::VideoLoader trainLoader(readList("train"), params, data::Split::Train, data::LoaderOptions::fromConfig(c, data::Split::Train));
    auto valOptions = data::LoaderOptions::fromConfig(c, data::Split::Val);
    data::VideoLoader valLoader(readList("val"), params, data::Split::Val, valOptions);
    const auto itersPerEpoch = static_cast<std::int64_t>(trainLoader.batchesPerEpoch());
    if (itersPerEpoch == 0) throw std::runtime_error("TRAIN.BATCH_SIZE: larger than the training set; no full batch");

    // Model, optimizer, schedule, precision.
    auto net = models::buildVideoNet(c);
    net->to(device);
    auto optimizer = buildOptimizer(c, *net);
    const LrSchedule schedule(c);
    precision::GradScaler scaler({c.getFloat("AMP.INIT_SCALE"), c.getFloat("AMP.GROWTH_FACTOR"), c.getFloat("AMP.BACKOFF_FACTOR"),
                                  c.getInt("AMP.GROWTH_INTERVAL"), scalerOn});
    const auto autocastDevice = cuda ? precision::AutocastDevice::CUDA : precision::AutocastDevice::CPU;
    const auto autocastType = fp16 ? precision::AutocastType::Float16 : precision::AutocastType::BFloat16;
    const auto clipVal = c.getOptionalFloat("SOLVER.CLIP_GRAD_VAL");
    const auto clipNorm = c.getOptionalFloat("SOLVER.CLIP_GRAD_L2NORM");
    const double killFactor = c.getFloat("TRAIN.KILL_LOSS_EXPLOSION_FACTOR");
    const int maxEpoch = static_cast<int>(c.getInt("SOLVER.MAX_EPOCH"));
    const int evalPeriod = static_cast<int>(c.getInt("TRAIN.EVAL_PERIOD"));
    constexpr int kMaxSkippedInARow = 50;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      progress_.max_epoch = maxEpoch;
      progress_.steps_per_epoch = itersPerEpoch;
    }

    std::int64_t step = 0;
    int skippedInARow = 0;
    double bestTop1 = 100.0;
    std::deque<double> recentLosses;
    for (int epoch = 0; epoch < maxEpoch; ++epoch) {
      net->train();
      trainLoader.startEpoch(epoch);
      double epochLoss = 0, epochTop1 = 0, epochTop5 = 0;
      int epochIters = 0;
      for (std::int64_t it = 0;; ++it) {
        while (pauseRequested_ && !stopRequested_) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (stopRequested_) {
          trainLoader.stop();
          finish(TrainerState::Stopped, "");
          return;
        }
        const auto waitStart = Clock::now();
        auto batch = trainLoader.next();
        const double dataWait = since(waitStart);
        if (!batch) {
          if (!trainLoader.error().empty()) throw std::runtime_error(trainLoader.error());
          break;
        }
        for (const auto& f : trainLoader.takeFailures())
          event("decode_failure", f.path + ": " + f.reason, step, epoch, {{"decode_failures_total", static_cast<double>(trainLoader.totalFailures())}});
        const auto iterStart = Clock::now();
        const double fracEpoch = epoch + static_cast<double>(it) / static_cast<double>(itersPerEpoch);
        const double lr = schedule.at(fracEpoch);
        setLearningRate(*optimizer, lr);
        auto inputs = batchTensors(*batch, device);
        auto labels = torch::tensor(batch->labels, torch::kLong).to(device);
        trainLoader.recycle(std::move(*batch));

        torch::Tensor logits;
        {
          precision::AutocastGuard guard(mixed, autocastDevice, autocastType);
          logits = net->forward(inputs);
        }
        auto loss = torch::nn::functional::cross_entropy(logits.to(torch::kFloat), labels);
        const double lossValue = loss.item<double>();
        if (!std::isfinite(lossValue) && !mixed)
          throw std::runtime_error("diverged: the loss is " + std::to_string(lossValue) + " at step " + std::to_string(step) +
                                   " (FP32); lower SOLVER.BASE_LR or SOLVER.LR_SCALE");
        if (killFactor > 0 && recentLosses.size() == 5) {
          double mean = 0;
          for (double l : recentLosses) mean += l / 5;
          if (lossValue > killFactor * mean)
            throw std::runtime_error("loss exploded: " + std::to_string(lossValue) + " > TRAIN.KILL_LOSS_EXPLOSION_FACTOR x " +
                                     std::to_string(mean));
        }
        optimizer->zero_grad();
        scaler.scale(loss).backward();
        scaler.unscale(*optimizer);
        const double gradNorm = globalGradNorm(*net);
        if (clipVal) clipGradientsByValue(*net, *clipVal);
        else if (clipNorm) clipGradientsByNorm(*net, *clipNorm);
        const bool stepped = scaler.step(*optimizer);
        const auto update = scaler.update();
        if (cuda) torch::cuda::synchronize();
        skippedInARow = stepped ? 0 : skippedInARow + 1;
        if (update.backed_off)
          event("scaler_backoff", "inf/NaN gradients: step skipped, loss scale " + std::to_string(update.scale_before) + " -> " +
                                      std::to_string(update.scale_after), step, fracEpoch, {{"loss_scale", update.scale_after}});
        if (update.grew)
          event("scaler_growth", "loss scale " + std::to_string(update.scale_before) + " -> " + std::to_string(update.scale_after),
                step, fracEpoch, {{"loss_scale", update.scale_after}});
        if (skippedInARow > kMaxSkippedInARow)
          throw std::runtime_error("diverged: " + std::to_string(skippedInARow) +
                                   " optimizer steps in a row had inf/NaN gradients; lower SOLVER.BASE_LR or try bfloat16");
        if (std::isfinite(lossValue)) {
          recentLosses.push_back(lossValue);
          if (recentLosses.size() > 5) recentLosses.pop_front();
        }
        const auto [top1, top5] = topErrors(logits.detach().to(torch::kFloat), labels);
        const double iterTime = since(iterStart) + dataWait;
        runlog::MetricEvent e;
        e.kind = runlog::kind::kTrain;
        e.step = ++step;
        e.epoch = epoch + static_cast<double>(it + 1) / static_cast<double>(itersPerEpoch);
        e.values = {{"loss", lossValue}, {"top1_err", top1}, {"top5_err", top5}, {"lr", lr},
                    {"loss_scale", scaler.enabled() ? update.scale_after : 1.0}, {"skipped", stepped ? 0.0 : 1.0},
                    {"grad_norm", gradNorm}, {"iter_time_s", iterTime}, {"data_wait_s", dataWait},
                    {"clips_per_s", static_cast<double>(labels.size(0)) / iterTime}};
        if (cuda) {
          const auto m = system::cudaMemory(0);
          e.values["mem_allocated_bytes"] = static_cast<double>(m.allocated_bytes);
          e.values["mem_reserved_bytes"] = static_cast<double>(m.reserved_bytes);
          e.values["mem_peak_bytes"] = static_cast<double>(m.peak_allocated_bytes);
        } else {
          e.values["mem_rss_bytes"] = static_cast<double>(system::processRssBytes());
          e.values["mem_peak_rss_bytes"] = static_cast<double>(system::processPeakRssBytes());
        }
        emit(e);
        epochLoss += lossValue, epochTop1 += top1, epochTop5 += top5, ++epochIters;
        std::lock_guard<std::mutex> lock(mutex_);
        progress_.epoch = epoch;
        progress_.step = step;
        progress_.last_loss = lossValue;
      }
      runlog::MetricEvent summary;
      summary.kind = runlog::kind::kEpoch;
      summary.step = step;
      summary.epoch = epoch + 1;
      if (epochIters)
        summary.values = {{"loss", epochLoss / epochIters}, {"top1_err", epochTop1 / epochIters}, {"top5_err", epochTop5 / epochIters},
                          {"mem_peak_rss_bytes", static_cast<double>(system::processPeakRssBytes())}};
      emit(summary);
      meta.updatedAt = runlog::unixTimeNow();
      dir.writeMetadata(meta);

      if ((epoch + 1) % evalPeriod == 0 || epoch + 1 == maxEpoch) {  // validation, in FP32 as PySlowFast
        torch::NoGradGuard noGrad;
        net->eval();
        valLoader.startEpoch(epoch);
        double correct1 = 0, correct5 = 0, n = 0, lossSum = 0;
        while (auto vb = valLoader.next()) {
          if (stopRequested_) break;
          auto inputs = batchTensors(*vb, device);
          auto labels = torch::tensor(vb->labels, torch::kLong).to(device);
          auto probs = net->forward(inputs);
          lossSum += torch::nn::functional::nll_loss(torch::log(probs.clamp_min(1e-12)), labels).item<double>() * labels.size(0);
          const auto [e1, e5] = topErrors(probs, labels);
          correct1 += (100.0 - e1) * labels.size(0) / 100.0;
          correct5 += (100.0 - e5) * labels.size(0) / 100.0;
          n += static_cast<double>(labels.size(0));
          valLoader.recycle(std::move(*vb));
        }
        if (!valLoader.error().empty()) throw std::runtime_error(valLoader.error());
        if (n > 0) {
          const double top1 = 100.0 * (1.0 - correct1 / n), top5 = 100.0 * (1.0 - correct5 / n);
          bestTop1 = std::min(bestTop1, top1);
          runlog::MetricEvent v;
          v.kind = runlog::kind::kVal;
          v.step = step;
          v.epoch = epoch + 1;
          v.values = {{"top1_err", top1}, {"top5_err", top5}, {"min_top1_err", bestTop1}, {"loss", lossSum / n}};
          emit(v);
          dir.appendLog("epoch " + std::to_string(epoch + 1) + "/" + std::to_string(maxEpoch) + ": val top-1 error " +
                        std::to_string(top1) + "%, best " + std::to_string(bestTop1) + "%");
        }
      }
    }
    finish(TrainerState::Finished, "");
  } catch (const std::exception& e) {
    try {
      event("error", e.what(), progress().step, progress().epoch);
    } catch (...) {
    }
    finish(TrainerState::Failed, e.what());
  }
}

}  // namespace amp::train
