#include "train/CudaChecks.h"

#include <cmath>
#include <sstream>

#include "amp/AutocastGuard.h"
#include "amp/GradScaler.h"
#include "configfile/ConfigLoader.h"
#include "models/VideoModels.h"
#include "system/ErrorText.h"
#include "train/TrainStep.h"

namespace amp::train {
namespace {

std::string fmt(double v) {
  std::ostringstream o;
  o.precision(4);
  o << v;
  return o.str();
}

// The scaler on CUDA (fused _amp_foreach_non_finite_check_and_unscale_ / _amp_update_scale_):
// an inf gradient skips the step, leaves the weights bit-identical and halves the scale; clean
// steps grow it after the interval.
CudaCheck scalerCheck() {
  CudaCheck c{"gradient scaler, fused CUDA kernels, injected inf", false, ""};
  const torch::Device dev(torch::kCUDA, 0);
  auto w = torch::ones({4}, torch::TensorOptions().device(dev).requires_grad(true));
  torch::optim::SGD opt({w}, torch::optim::SGDOptions(0.1));
  precision::GradScaler scaler({1024.0, 2.0, 0.5, 2, true});
  auto lossOf = [&](float poison) {
    return (w * torch::tensor({1.0f, 1.0f, 1.0f, poison}, dev)).sum();
  };
  opt.zero_grad();
  scaler.scale(lossOf(std::numeric_limits<float>::infinity())).backward();
  const auto before = w.detach().clone();
  const bool stepped = scaler.step(opt);
  const auto u = scaler.update();
  const bool untouched = torch::equal(before, w.detach());
  int grown = 0;
  for (int i = 0; i < 2; ++i) {
    opt.zero_grad();
    scaler.scale(lossOf(1.0f)).backward();
    scaler.step(opt);
    grown += scaler.update().grew ? 1 : 0;
  }
  c.passed = !stepped && u.backed_off && u.scale_after == 512.0 && untouched && grown == 1 &&
             scaler.currentScale() == 1024.0;
  c.detail = "skipped " + std::string(stepped ? "no" : "yes") + ", scale 1024 -> " +
             fmt(u.scale_after) + " -> " + fmt(scaler.currentScale()) +
             " after 2 clean steps, weights " + (untouched ? "unchanged" : "CHANGED");
  return c;
}

std::vector<torch::Tensor> inputs(const config::Config& cfg, int64_t n, const torch::Device& dev,
                                  bool channelsLast) {
  const auto channels = cfg.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t t = cfg.getInt("DATA.NUM_FRAMES"), crop = cfg.getInt("DATA.TRAIN_CROP_SIZE");
  std::vector<torch::Tensor> x;
  for (size_t p = 0; p < channels.size(); ++p) {
    const bool slow = cfg.getString("MODEL.ARCH") == "slowfast" && p == 0;
    x.push_back(
        torch::randn({n, channels[p], slow ? t / cfg.getInt("SLOWFAST.ALPHA") : t, crop, crop}));
  }
  return toDevice(std::move(x), dev, channelsLast);
}

// Autocast forward + backward of a tiny model of one family: finite, gradients in float32 for
// every parameter, class probabilities close to float32.
CudaCheck autocastCheck(const std::string& label, const config::Config& cfg,
                        precision::AutocastType type, bool channelsLast) {
  const std::string typeName = type == precision::AutocastType::Float16 ? "float16" : "bfloat16";
  CudaCheck c{label + ", " + typeName + " autocast" + (channelsLast ? ", channels-last-3d" : ""),
              false, ""};
  const torch::Device dev(torch::kCUDA, 0);
  torch::manual_seed(0);
  auto net = models::buildVideoNet(cfg);
  net->to(dev);
  if (channelsLast) toChannelsLast3d(*net);
  const auto x = inputs(cfg, 2, dev, channelsLast);
  net->eval();
  torch::Tensor ref, out;
  {
    torch::NoGradGuard noGrad;
    ref = net->forward(x).to(torch::kFloat);
    precision::AutocastGuard guard(true, precision::AutocastDevice::CUDA, type);
    out = net->forward(x).to(torch::kFloat);
  }
  const double diff = (out - ref).abs().max().item<double>();
  net->train();
  net->zero_grad();
  torch::Tensor logits;
  {
    precision::AutocastGuard guard(true, precision::AutocastDevice::CUDA, type);
    logits = net->forward(x);
  }
  const auto labels = torch::tensor({0, 1}, torch::TensorOptions().dtype(torch::kLong).device(dev));
  torch::nn::functional::cross_entropy(logits.to(torch::kFloat), labels).backward();
  bool gradsOk = true;
  std::string bad;
  for (const auto& p : net->named_parameters()) {
    const auto& g = p.value().grad();
    if (!g.defined() || g.scalar_type() != torch::kFloat ||
        !torch::isfinite(g).all().item<bool>()) {
      gradsOk = false;
      bad = p.key();
      break;
    }
  }
  const bool finite = torch::isfinite(out).all().item<bool>();
  const double bound = type == precision::AutocastType::Float16 ? 0.01 : 0.02;
  c.passed = finite && gradsOk && diff < bound;
  c.detail = "max |p - p_fp32| " + fmt(diff) + " (bound " + fmt(bound) + ")" +
             (finite ? "" : ", NOT FINITE") +
             (gradsOk ? ", float32 gradients finite" : ", bad gradient: " + bad);
  return c;
}

}  // namespace

std::vector<CudaCheck> runCudaChecks(const std::string& configDir, std::string* error) {
  std::vector<CudaCheck> out;
  if (!torch::cuda::is_available()) {
#ifdef AMPSTUDIO_WITH_CUDA
    const char* build = "a CUDA build";
#else
    const char* build = "built without CUDA";
#endif
    if (error) *error = std::string("no CUDA device is visible to this LibTorch (") + build + ")";
    return out;
  }
  auto guarded = [&](const std::string& name, auto&& fn) {
    try {
      out.push_back(fn());
    } catch (const std::exception& e) {
      out.push_back({name, false, system::errorText(e)});
    }
  };
  guarded("gradient scaler", scalerCheck);
  const std::vector<std::string> tiny = {"NUM_GPUS",
                                         "1",
                                         "MODEL.NUM_CLASSES",
                                         "5",
                                         "RESNET.WIDTH_PER_GROUP",
                                         "8",
                                         "DATA.TRAIN_CROP_SIZE",
                                         "64",
                                         "DATA.TEST_CROP_SIZE",
                                         "64"};
  struct Family {
    const char* label;
    const char* file;
    std::vector<std::string> extra;
  };
  const std::vector<Family> families = {
      {"C2D R50", "Kinetics/C2D_8x8_R50.yaml", {"DATA.NUM_FRAMES", "4"}},
      {"I3D R50", "Kinetics/I3D_8x8_R50.yaml", {"DATA.NUM_FRAMES", "4"}},
      {"Slow R50", "Kinetics/SLOW_8x8_R50.yaml", {"DATA.NUM_FRAMES", "4"}},
      {"SlowFast R50", "Kinetics/SLOWFAST_8x8_R50.yaml", {"DATA.NUM_FRAMES", "8"}},
      {"X3D", "Kinetics/X3D_XS.yaml", {"DATA.NUM_FRAMES", "4", "X3D.DIM_C5", "64"}},
      {"MViTv2",
       "Kinetics/MVITv2_S_16x4.yaml",
       {"DATA.NUM_FRAMES", "4", "MVIT.EMBED_DIM", "16", "MVIT.DEPTH", "4", "MVIT.DIM_MUL",
        "[[1, 2.0], [3, 2.0]]", "MVIT.HEAD_MUL", "[[1, 2.0], [3, 2.0]]", "MVIT.POOL_Q_STRIDE",
        "[[0, 1, 1, 1], [1, 1, 2, 2], [2, 1, 1, 1], [3, 1, 2, 2]]", "MVIT.POOL_KV_STRIDE_ADAPTIVE",
        "[1, 4, 4]"}},
  };
  for (const auto& f : families) {
    auto ov = tiny;
    ov.insert(ov.end(), f.extra.begin(), f.extra.end());
    const auto r = config::ConfigLoader().loadFile(configDir + "/" + f.file, ov);
    if (!r.ok()) {
      out.push_back({f.label, false, config::formatDiagnostics(r.diagnostics)});
      continue;
    }
    for (auto type : {precision::AutocastType::Float16, precision::AutocastType::BFloat16})
      guarded(f.label, [&] { return autocastCheck(f.label, r.config, type, false); });
    if (std::string(f.label) != "MViTv2")
      guarded(f.label, [&] {
        return autocastCheck(f.label, r.config, precision::AutocastType::Float16, true);
      });
  }
  return out;
}

}  // namespace amp::train
