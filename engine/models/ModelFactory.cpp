#include "models/ModelFactory.h"

#include "config/Config.h"
#include "models/VideoModels.h"

namespace amp::models {

std::string shapeText(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

ModelSummary summarizeModel(const config::Config& cfg, bool runForward) {
  auto net = buildVideoNet(cfg);
  ModelSummary m;
  m.name = cfg.getString("MODEL.MODEL_NAME") + " (" + cfg.getString("MODEL.ARCH") + ")";
  // State-dict order: PyTorch lists each module's parameters, then its buffers, depth-first.
  std::function<void(const torch::nn::Module&, const std::string&)> walk =
      [&](const torch::nn::Module& mod, const std::string& prefix) {
        for (const auto& p : mod.named_parameters(/*recurse=*/false)) {
          m.state.push_back({prefix + p.key(), p.value().sizes().vec(), true});
          m.parameters += p.value().numel();
        }
        for (const auto& b : mod.named_buffers(/*recurse=*/false))
          m.state.push_back({prefix + b.key(), b.value().sizes().vec(), false});
        for (const auto& c : mod.named_children()) walk(*c.value(), prefix + c.key() + ".");
      };
  walk(*net, "");
  const auto channels = cfg.getIntList("DATA.INPUT_CHANNEL_NUM");
  const int64_t frames = cfg.getInt("DATA.NUM_FRAMES"), crop = cfg.getInt("DATA.TRAIN_CROP_SIZE");
  const bool slowfast = cfg.getString("MODEL.ARCH") == "slowfast";
  for (size_t p = 0; p < channels.size(); ++p)
    m.input_shapes.push_back({1, channels[p],
                              slowfast && p == 0 ? frames / cfg.getInt("SLOWFAST.ALPHA") : frames,
                              crop, crop});
  if (runForward) {
    torch::NoGradGuard noGrad;
    net->eval();
    std::vector<torch::Tensor> inputs;
    for (const auto& s : m.input_shapes) inputs.push_back(torch::randn(s));
    FlopCounter counter;
    // A detection model scores one box, as PySlowFast counts its FLOPs (misc.py: one proposal,
    // [0, 0, 1, 0, 1]).
    m.output_shape =
        (net->detection() ? net->forward(inputs, torch::tensor({{0.0F, 0.0F, 1.0F, 0.0F, 1.0F}}))
                          : net->forward(inputs))
            .sizes()
            .vec();
    m.macs = counter.macs();
  }
  return m;
}

}  // namespace amp::models
