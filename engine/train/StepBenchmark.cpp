#include "train/StepBenchmark.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "amp/AutocastGuard.h"
#include "config/Config.h"
#include "models/VideoModels.h"
#include "system/MemoryProbe.h"

namespace amp::train {
namespace {

std::vector<torch::Tensor> randomInputs(const config::Config& c, int64_t batch, const torch::Device& device) {
  const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t t = c.getInt("DATA.NUM_FRAMES"), crop = c.getInt("DATA.TRAIN_CROP_SIZE");
  const bool slowfast = c.getString("MODEL.ARCH") == "slowfast";
  std::vector<torch::Tensor> x;
  for (size_t p = 0; p < channels.size(); ++p)
    x.push_back(torch::randn({batch, channels[p], slowfast && p == 0 ? t / c.getInt("SLOWFAST.ALPHA") : t, crop, crop},
                             torch::TensorOptions().device(device)));
  return x;
}

}  // namespace

bool benchmarkTrainingStep(const config::Config& cfg, const StepBenchOptions& o, std::vector<StepBenchResult>& out,
                           std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  const bool cuda = cfg.getInt("NUM_GPUS") > 0;
  if (cuda && !torch::cuda::is_available())
    return fail("NUM_GPUS: " + std::to_string(cfg.getInt("NUM_GPUS")) +
                " but this LibTorch sees no CUDA device; set NUM_GPUS 0 to run on the CPU");
  const torch::Device device = cuda ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  torch::set_num_threads(o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  const std::string ampType = cfg.getString("AMP.DTYPE");
  out.clear();
  for (const auto& requested : o.precisions) {
    std::string precision = requested;
    if (precision == "amp") precision = ampType == "float16" ? "fp16" : ampType == "bfloat16" ? "bf16" : (cuda ? "fp16" : "bf16");
    if (precision != "fp32" && precision != "bf16" && precision != "fp16")
      return fail("unknown precision '" + requested + "'; use fp32, amp, bf16 or fp16");
    if (precision == "fp16" && !cuda)
      return fail("AMP.DTYPE: float16 mixed precision needs CUDA (NUM_GPUS > 0); on the CPU use bfloat16 or auto");
    if (precision == "fp16")
      return fail("AMP.DTYPE: the float16 step needs the gradient scaler, which comes with the training engine; "
                  "benchmark bfloat16 (AMP.DTYPE bfloat16) until then");
    torch::manual_seed(static_cast<uint64_t>(cfg.getInt("RNG_SEED")));
    std::shared_ptr<models::VideoNetImpl> net;
    try {
      net = models::buildVideoNet(cfg);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
    net->to(device);
    net->train();
    torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(cfg.getFloat("SOLVER.BASE_LR"))
                                                       .momentum(cfg.getFloat("SOLVER.MOMENTUM"))
                                                       .weight_decay(cfg.getFloat("SOLVER.WEIGHT_DECAY"))
                                                       .nesterov(cfg.getBool("SOLVER.NESTEROV")));
    const auto inputs = randomInputs(cfg, o.batch, device);
    const auto labels = torch::randint(cfg.getInt("MODEL.NUM_CLASSES"), {o.batch}, torch::TensorOptions().dtype(torch::kLong).device(device));
    StepBenchResult r;
    r.precision = precision;
    r.device = cuda ? "cuda:0" : "cpu";
    {
      torch::NoGradGuard noGrad;
      models::FlopCounter counter;
      net->forward(inputs);
      r.macs_per_step = 3.0 * static_cast<double>(counter.macs());  // backward costs about twice the forward
    }
    const bool autocast = precision != "fp32";
    const auto type = precision == "fp16" ? precision::AutocastType::Float16 : precision::AutocastType::BFloat16;
    const auto where = cuda ? precision::AutocastDevice::CUDA : precision::AutocastDevice::CPU;
    const std::int64_t rssBefore = system::processRssBytes();
    system::resetPeakRss();
    if (cuda) system::resetCudaPeak(0);
    std::vector<double> times;
    for (int i = 0; i < o.warmup + o.iterations; ++i) {
      const auto start = std::chrono::steady_clock::now();
      torch::Tensor logits;
      {
        precision::AutocastGuard guard(autocast, where, type);
        logits = net->forward(inputs);
      }
      auto loss = torch::nn::functional::cross_entropy(logits.to(torch::kFloat), labels);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      const double value = loss.item<double>();  // also waits for the GPU
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i == 0) r.first_loss = value;
      r.last_loss = value;
      r.finite = r.finite && std::isfinite(value);
      if (i >= o.warmup) times.push_back(seconds);
    }
    std::sort(times.begin(), times.end());
    r.median_step_s = times.empty() ? 0.0 : times[times.size() / 2];
    r.iterations_per_s = r.median_step_s > 0 ? 1.0 / r.median_step_s : 0.0;
    r.clips_per_s = r.iterations_per_s * o.batch;
    r.achieved_flops = r.median_step_s > 0 ? 2.0 * r.macs_per_step / r.median_step_s : 0.0;
    r.peak_bytes = cuda ? system::cudaMemory(0).peak_allocated_bytes : std::max<std::int64_t>(0, system::processPeakRssBytes() - rssBefore);
    out.push_back(r);
  }
  return true;
}

}  // namespace amp::train
