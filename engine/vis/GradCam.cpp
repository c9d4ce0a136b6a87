#include "vis/GradCam.h"

#include <torch/torch.h>

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "config/Config.h"
#include "models/ActivationTap.h"
#include "models/VideoModels.h"
#include "system/ErrorText.h"
#include "train/MultiViewTest.h"
#include "train/PrecisionPolicy.h"
#include "train/Tester.h"
#include "train/TrainingDevice.h"
#include "vis/GradCamMaps.h"

namespace amp::vis {
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

struct GradCam::Impl {
  config::Config cfg;
  std::shared_ptr<models::VideoNetImpl> net;
  torch::Device device{torch::kCPU};
  train::PrecisionPolicy policy;
  std::string checkpoint;
  std::vector<std::string> layers, available;
  std::vector<const torch::nn::Module*> modules;
  int classes = 0;
  int pathways = 1;
  bool useTrueLabel = false;
  GradCamOptions options;
};

GradCam::GradCam(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GradCam::~GradCam() = default;
const std::string& GradCam::checkpoint() const {
  return impl_->checkpoint;
}
const std::vector<std::string>& GradCam::layers() const {
  return impl_->layers;
}
const std::vector<std::string>& GradCam::availableLayers() const {
  return impl_->available;
}
int GradCam::classes() const {
  return impl_->classes;
}

std::unique_ptr<GradCam> GradCam::open(const config::Config& runCfg, const GradCamOptions& o,
                                       std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return std::unique_ptr<GradCam>();
  };
  if (runCfg.getBool("DETECTION.ENABLE"))
    return fail(
        "DETECTION.ENABLE: Grad-CAM is built for classification; PySlowFast's Grad-CAM refuses "
        "detection (AVA) models too");
  auto impl = std::make_unique<Impl>();
  impl->cfg = runCfg;
  // Activation checkpointing recomputes blocks in backward, outside the pass that the tap
  // watches: Grad-CAM runs without it (it changes memory, never the result).
  impl->cfg.setOrThrow("MODEL.ACT_CHECKPOINT", false);
  const config::Config& cfg = impl->cfg;
  impl->options = o;
  impl->pathways = cfg.getString("MODEL.ARCH") == "slowfast" ? 2 : 1;
  impl->classes = static_cast<int>(cfg.getInt("MODEL.NUM_CLASSES"));
  impl->useTrueLabel = cfg.getBool("TENSORBOARD.MODEL_VIS.GRAD_CAM.USE_TRUE_LABEL");
  if (o.target_class >= impl->classes)
    return fail("--target-class " + std::to_string(o.target_class) + ": the model has " +
                std::to_string(impl->classes) + " classes (0 .. " +
                std::to_string(impl->classes - 1) + ", MODEL.NUM_CLASSES)");
  try {
    if (const auto why = train::unsupportedTask(cfg, false)) return fail(*why);
    impl->checkpoint = o.checkpoint.empty() ? train::testCheckpoint(cfg) : o.checkpoint;
    if (impl->checkpoint.empty())
      return fail(o.checkpoint_source +
                  ": no checkpoint given, and neither TEST.CHECKPOINT_FILE_PATH, OUTPUT_DIR (" +
                  cfg.getString("OUTPUT_DIR") + ") nor TRAIN.CHECKPOINT_FILE_PATH has one");
    impl->device = train::trainingDevice(cfg, 0);
    impl->policy = train::PrecisionPolicy::fromConfig(cfg);
    impl->net = models::buildVideoNet(cfg);
    (void)train::loadTestWeights(cfg, impl->checkpoint, *impl->net);  // its notes: none, all fit
    impl->net->to(impl->device);
    impl->net->eval();
  } catch (const std::exception& e) {
    return fail(system::errorText(e));
  }
  impl->available = models::tapLayerNames(*impl->net);
  const std::string source =
      o.layers.empty() || o.layers_source.empty() ? kLayerListKey : o.layers_source;
  impl->layers = o.layers;
  if (impl->layers.empty()) impl->layers = cfg.getStringList(kLayerListKey);
  if (impl->layers.empty()) impl->layers = defaultGradCamLayers(impl->available, impl->pathways);
  if (static_cast<int>(impl->layers.size()) != impl->pathways)
    return fail(source + ": " + std::to_string(impl->layers.size()) + " layer(s) for " +
                std::to_string(impl->pathways) +
                " pathway(s); give one per pathway, in pathway order (e.g. " +
                joined(defaultGradCamLayers(impl->available, impl->pathways)) + ")");
  for (const auto& name : impl->layers) {
    std::string why;
    const auto* m = models::findTapLayer(*impl->net, name, &why);
    if (!m) return fail(source + ": " + why);
    impl->modules.push_back(m);
  }
  return std::unique_ptr<GradCam>(new GradCam(std::move(impl)));
}

bool GradCam::run(const data::PreviewClip& clip, GradCamResult& out, std::string* error) {
  Impl& m = *impl_;
  out = GradCamResult{};
  const bool slowfast = m.pathways == 2;
  if (clip.input_fast.empty() || (slowfast && clip.input_slow.empty())) {
    if (error) *error = "the clip carries no model input (made by hand, not by previewClips)";
    return false;
  }
  const auto options = torch::TensorOptions().dtype(torch::kFloat);
  auto pathway = [&](const std::vector<float>& v, int frames) {
    return torch::from_blob(const_cast<float*>(v.data()), {1, 3, frames, clip.height, clip.width},
                            options)
        .to(m.device);
  };
  std::vector<torch::Tensor> inputs;
  if (slowfast) inputs.push_back(pathway(clip.input_slow, clip.slow_frames));
  inputs.push_back(pathway(clip.input_fast, clip.frames));
  int target = m.options.target_class;
  const bool byLabel = target < 0 && (m.options.true_label || m.useTrueLabel);
  if (byLabel) {
    if (clip.label < 0 || clip.label >= m.classes) {
      if (error)
        *error = "the clip's label " + std::to_string(clip.label) + " is outside the model's " +
                 std::to_string(m.classes) + " classes";
      return false;
    }
    target = clip.label;
  }
  try {
    CamMaps maps;
    {
      models::ActivationTap tap(m.modules);
      maps = gradCamMaps(*m.net, tap, inputs, {target}, m.policy);
    }
    out.target_class = static_cast<int>(maps.targets.at(0));
    out.target_is_label = byLabel;
    out.target_is_prediction = m.options.target_class < 0 && !byLabel;
    const auto scores = maps.scores[0].contiguous();
    const float* score = scores.data_ptr<float>();
    out.target_score = score[out.target_class];
    // Ties (an untrained model's equal outputs) in class order, as argmax picks the top-1.
    std::vector<int> order(static_cast<std::size_t>(scores.size(0)));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score[a] > score[b]; });
    for (std::size_t i = 0; i < order.size() && i < 5; ++i)
      out.top.emplace_back(order[i], score[order[i]]);
    out.precision = m.policy.mixed ? m.policy.name : "fp32";
    for (std::size_t p = 0; p < maps.maps.size(); ++p) {
      const auto map = maps.maps[p][0].contiguous();
      GradCamMap g;
      g.pathway = static_cast<int>(p);
      g.layer = m.layers[p];
      g.frames = static_cast<int>(map.size(0));
      g.height = static_cast<int>(map.size(1));
      g.width = static_cast<int>(map.size(2));
      g.values.assign(map.data_ptr<float>(), map.data_ptr<float>() + map.numel());
      g.flat = map.max().item<float>() <= 0.0f;
      out.maps.push_back(std::move(g));
    }
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
  return true;
}

std::vector<std::string> defaultGradCamLayers(const std::vector<std::string>& names, int pathways) {
  std::vector<std::string> out;
  for (int p = 0; p < pathways; ++p) {
    const std::regex block("s[0-9]+/pathway" + std::to_string(p) + "_res[0-9]+");
    std::string last;
    for (const auto& n : names)
      if (std::regex_match(n, block)) last = n;
    if (last.empty())
      for (const auto& n : names)
        if (n.rfind("blocks/", 0) == 0) last = n;
    if (!last.empty()) out.push_back(last);
  }
  return out;
}

std::vector<std::vector<std::string>> layerChoices(const std::vector<std::string>& layers,
                                                   int pathways) {
  std::vector<std::vector<std::string>> out;
  if (pathways <= 1) {
    for (const auto& l : layers) out.push_back({l});
    return out;
  }
  // Pathway 0's blocks, each with the same block of every other pathway where it exists.
  const std::string first = "pathway0_";
  for (const auto& l : layers) {
    const auto at = l.find(first);
    if (at == std::string::npos) continue;
    std::vector<std::string> set{l};
    for (int p = 1; p < pathways; ++p) {
      std::string other = l;
      other.replace(at, first.size(), "pathway" + std::to_string(p) + "_");
      if (std::find(layers.begin(), layers.end(), other) == layers.end()) break;
      set.push_back(other);
    }
    if (static_cast<int>(set.size()) == pathways) out.push_back(std::move(set));
  }
  return out;
}

}  // namespace amp::vis
