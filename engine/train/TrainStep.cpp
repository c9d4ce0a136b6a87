#include "train/TrainStep.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "config/Config.h"
#include "dist/DistEnv.h"
#include "dist/GradientReducer.h"
#include "models/Net.h"
#include "system/MemoryProbe.h"
#include "train/Optimizer.h"

namespace amp::train {

PrecisionPolicy PrecisionPolicy::fromConfig(const config::Config& c) {
  if (!c.getBool("TRAIN.MIXED_PRECISION")) {
    PrecisionPolicy p;
    p.cuda = c.getInt("NUM_GPUS") > 0;
    return p;
  }
  return forced(c, "amp");
}

PrecisionPolicy PrecisionPolicy::forced(const config::Config& c, const std::string& precision) {
  PrecisionPolicy p;
  p.cuda = c.getInt("NUM_GPUS") > 0;
  std::string name = precision;
  if (name == "amp") {
    const std::string dtype = c.getString("AMP.DTYPE");
    name = dtype == "float16" ? "fp16" : dtype == "bfloat16" ? "bf16" : (p.cuda ? "fp16" : "bf16");
  }
  if (name != "fp32" && name != "bf16" && name != "fp16")
    throw std::invalid_argument("precision: '" + precision +
                                "' is not one of fp32, amp, bf16, fp16");
  if (name == "fp16" && !p.cuda)
    throw std::invalid_argument(
        "AMP.DTYPE: float16 mixed precision needs CUDA (NUM_GPUS > 0); LibTorch's CPU autocast "
        "takes bfloat16 only, so use AMP.DTYPE bfloat16 or auto");
  p.name = name;
  p.mixed = name != "fp32";
  p.fp16 = name == "fp16";
  const std::string scaler = c.getString("AMP.SCALER");
  p.scaler = p.mixed && (scaler == "on" || (scaler == "auto" && p.fp16));
  return p;
}

torch::Device trainingDevice(const config::Config& c, int localRank) {
  if (c.getInt("NUM_GPUS") > 0) {
    if (!torch::cuda::is_available())
      throw std::runtime_error(
          "NUM_GPUS: " + std::to_string(c.getInt("NUM_GPUS")) +
          " but this LibTorch sees no CUDA device; set NUM_GPUS 0 to train on the CPU");
    // Local rank r trains on device r; a process that sees one device (Slurm's --gpus-per-task, a
    // CUDA_VISIBLE_DEVICES per rank) on that one.
    const int visible = static_cast<int>(torch::cuda::device_count());
    const int index = dist::cudaDeviceOfLocalRank(localRank, visible);
    if (index >= visible)
      throw std::runtime_error("NUM_GPUS: local rank " + std::to_string(localRank) +
                               " needs CUDA device " + std::to_string(index) +
                               " but this process sees " + std::to_string(visible) +
                               "; set NUM_GPUS to the GPUs of one machine");
    // cuDNN times its algorithms on each new shape and keeps the fastest. PySlowFast leaves
    // torch.backends.cudnn.benchmark at PyTorch's default (off); the results are the same
    // computation, the speed is not (docs/benchmarks.md).
    at::globalContext().setBenchmarkCuDNN(true);
    system::setCurrentCudaDevice(index);
    return {torch::kCUDA, static_cast<c10::DeviceIndex>(index)};
  }
  torch::set_num_threads(cpuTrainingThreads());
  return {torch::kCPU};
}

int cpuTrainingThreads() {
  // OMP_NUM_THREADS as PyTorch reads it (a shared server's way to cap a job); else every core
  // this process may run on (taskset / container limits, not the machine's total).
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<int>(n);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

bool useChannelsLast3d(const config::Config& c, const torch::Device& device) {
  return device.is_cuda() && c.getBool("AMP.CHANNELS_LAST_3D");
}

void toChannelsLast3d(torch::nn::Module& net) {
  torch::NoGradGuard noGrad;
  for (auto& p : net.parameters())
    if (p.dim() == 5) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast3d));
}

std::vector<torch::Tensor> toDevice(std::vector<torch::Tensor> clips, const torch::Device& device,
                                    bool channelsLast) {
  for (auto& t : clips) {
    t = t.to(device, /*non_blocking=*/true);
    if (channelsLast) t = t.contiguous(at::MemoryFormat::ChannelsLast3d);
  }
  return clips;
}

TrainStep::TrainStep(const config::Config& c, models::VideoNetImpl& net,
                     torch::optim::Optimizer& optimizer, PrecisionPolicy policy)
    : net_(net),
      optimizer_(optimizer),
      policy_(policy),
      scaler_({c.getFloat("AMP.INIT_SCALE"), c.getFloat("AMP.GROWTH_FACTOR"),
               c.getFloat("AMP.BACKOFF_FACTOR"), c.getInt("AMP.GROWTH_INTERVAL"), policy.scaler}),
      clipVal_(c.getOptionalFloat("SOLVER.CLIP_GRAD_VAL")),
      clipNorm_(c.getOptionalFloat("SOLVER.CLIP_GRAD_L2NORM")),
      lossFunc_(c.getString("MODEL.LOSS_FUNC")) {
  checkLossFunc(lossFunc_);
}

void checkLossFunc(const std::string& f) {
  if (f == "cross_entropy" || f == "soft_cross_entropy" || f == "bce_logit") return;
  if (f == "bce")
    throw std::invalid_argument(
        "MODEL.LOSS_FUNC: bce takes probabilities and multi-hot labels (PySlowFast's multi-label "
        "tasks), which the studio does not train; use cross_entropy or bce_logit");
  throw std::invalid_argument("MODEL.LOSS_FUNC: " + f +
                              " belongs to a task the studio does not train (contrastive or "
                              "regression); use cross_entropy, soft_cross_entropy or bce_logit");
}

torch::Tensor classificationLoss(const std::string& f, const torch::Tensor& logits,
                                 const torch::Tensor& labels) {
  const auto x = logits.to(torch::kFloat);
  if (f == "cross_entropy") return torch::nn::functional::cross_entropy(x, labels);
  const auto target = torch::one_hot(labels, x.size(1)).to(torch::kFloat);
  if (f == "soft_cross_entropy") return torch::sum(-target * torch::log_softmax(x, -1), -1).mean();
  if (f == "bce_logit") return torch::nn::functional::binary_cross_entropy_with_logits(x, target);
  checkLossFunc(f);
  throw std::invalid_argument("MODEL.LOSS_FUNC: " + f);
}

torch::Tensor softTargetLoss(const std::string& f, const torch::Tensor& logits,
                             const torch::Tensor& targets) {
  const auto x = logits.to(torch::kFloat);
  const auto t = targets.to(torch::kFloat);
  if (f == "cross_entropy" || f == "soft_cross_entropy")
    return torch::sum(-t * torch::log_softmax(x, -1), -1).mean();
  if (f == "bce_logit") return torch::nn::functional::binary_cross_entropy_with_logits(x, t);
  checkLossFunc(f);
  throw std::invalid_argument("MODEL.LOSS_FUNC: " + f);
}

void TrainStep::setGradientReducer(dist::GradientReducer* reducer) {
  reducer_ = reducer;
  if (!reducer) {
    scaler_.setFoundInfSync(nullptr);
    return;
  }
  scaler_.setFoundInfSync([reducer](torch::Tensor& foundInf) {
    if (!reducer->allTrue(foundInf.item<float>() == 0.0f)) foundInf.fill_(1.0f);
  });
}

StepOutcome TrainStep::run(const std::vector<MicroBatch>& micro) {
  if (micro.empty()) throw std::invalid_argument("TrainStep::run: no micro-batch");
  StepOutcome out;
  optimizer_.zero_grad();
  std::vector<torch::Tensor> logits, labels, targets;
  const double parts = static_cast<double>(micro.size());
  double lossSum = 0;
  for (size_t k = 0; k < micro.size(); ++k) {
    const auto& mb = micro[k];
    if (reducer_) reducer_->beforeForward(k + 1 == micro.size());
    const auto forwardStart = std::chrono::steady_clock::now();
    torch::Tensor y;
    {
      precision::AutocastGuard guard(policy_.mixed, policy_.autocastDevice(),
                                     policy_.autocastType());
      y = net_.forward(mb.inputs);
    }
    // The loss in float32 outside autocast, as PySlowFast's loss on autocast logits.
    auto loss = mb.targets.defined() ? softTargetLoss(lossFunc_, y, mb.targets)
                                     : classificationLoss(lossFunc_, y, mb.labels);
    const double value = loss.item<double>();  // waits for the device
    out.forward_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - forwardStart).count();
    lossSum += value;
    logits.push_back(y.detach().to(torch::kFloat));
    labels.push_back(mb.labels);
    if (mb.targets.defined()) targets.push_back(mb.targets);
    // No scaler to skip the step: keep the weights. Over several ranks they skip this backward
    // together: sync batch norm's backward gathers over the ranks, and a rank that skipped it
    // alone would leave the others' collectives unmatched (a hang, or the wrong pairs).
    const bool finite = reducer_ && !scaler_.enabled() ? reducer_->allTrue(std::isfinite(value))
                                                       : std::isfinite(value);
    if (!finite && !scaler_.enabled()) {
      out.finite_loss = false;
      continue;
    }
    const auto backwardStart = std::chrono::steady_clock::now();
    scaler_.scale(parts > 1 ? loss / parts : loss).backward();
    if (syncPhases_ && y.is_cuda()) torch::cuda::synchronize();
    out.backward_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - backwardStart).count();
  }
  out.loss = lossSum / parts;
  out.logits = torch::cat(logits, 0);
  out.labels = torch::cat(labels, 0);
  if (targets.size() == micro.size()) out.targets = torch::cat(targets, 0);
  if (reducer_) {  // every rank takes part, also one whose loss was not finite
    reducer_->finish();
    out.finite_loss = reducer_->allTrue(out.finite_loss);
  }
  if (!out.finite_loss) {
    optimizer_.zero_grad();
    return out;
  }
  scaler_.unscale(optimizer_);
  out.grad_norm = globalGradNorm(net_);
  if (!scaler_.enabled() && !std::isfinite(out.grad_norm)) {
    // A finite loss with inf/NaN gradients and no scaler to catch them (FP32, bfloat16, AMP.SCALER
    // off): applying them would turn every weight into NaN. Skip the step as a scaler would; the
    // trainer counts it against AMP.MAX_SKIPPED_STEPS. (Seen: Debian's LibTorch 2.6 on the CPU,
    // whose bfloat16 convolution backward now and then returns NaN.)
    optimizer_.zero_grad();
    out.update.scale_before = out.update.scale_after = 1.0;
    return out;
  }
  if (clipVal_)
    clipGradientsByValue(net_, *clipVal_);
  else if (clipNorm_)
    clipGradientsByNorm(net_, *clipNorm_);
  out.stepped = scaler_.step(optimizer_);
  out.update = scaler_.update();
  if (!scaler_.enabled()) out.update.scale_before = out.update.scale_after = 1.0;
  return out;
}

MicroBatch randomMicroBatch(const config::Config& c, int64_t batch, const torch::Device& device,
                            bool channelsLast) {
  const auto channels = c.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t t = c.getInt("DATA.NUM_FRAMES"), crop = c.getInt("DATA.TRAIN_CROP_SIZE");
  const bool slowfast = c.getString("MODEL.ARCH") == "slowfast";
  MicroBatch mb;
  for (size_t p = 0; p < channels.size(); ++p)
    mb.inputs.push_back(torch::randn(
        {batch, channels[p], slowfast && p == 0 ? t / c.getInt("SLOWFAST.ALPHA") : t, crop, crop}));
  mb.inputs = toDevice(std::move(mb.inputs), device, channelsLast);
  mb.labels = torch::randint(c.getInt("MODEL.NUM_CLASSES"), {batch},
                             torch::TensorOptions().dtype(torch::kLong))
                  .to(device);
  return mb;
}

}  // namespace amp::train
