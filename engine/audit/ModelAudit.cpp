#include "audit/ModelAudit.h"

#include "amp/NonFiniteGrad.h"
#include "audit/LayerProbe.h"

namespace amp::audit {

ModelAuditResult auditModel(torch::nn::Module& net, int batches,
                            const std::function<ModelAuditBatch(int)>& batchAt,
                            const ModelAuditOptions& o) {
  LayerProbe probe(net, o.device, o.report_scale);
  ModelAuditResult r;
  const auto params = net.parameters();
  const bool cuda = !params.empty() && params.front().device().is_cuda();
  auto generators = [&] {
    std::vector<at::Generator> g{at::globalContext().defaultGenerator(c10::Device(c10::kCPU))};
    if (cuda) g.push_back(at::globalContext().defaultGenerator(params.front().device()));
    return g;
  }();
  for (int b = 0; b < batches; ++b) {
    const ModelAuditBatch batch = batchAt(b);
    // Dropout and drop-path draw the same masks in all three forwards of the batch.
    std::vector<torch::Tensor> rng;
    for (auto& g : generators) rng.push_back(g.get_state());
    auto restoreRng = [&] {
      for (std::size_t i = 0; i < generators.size(); ++i) generators[i].set_state(rng[i]);
    };
    if (b < o.compare_batches) {
      std::vector<torch::Tensor>
          buffers;  // batch norm's running statistics: updated once per batch, as in training
      {
        torch::NoGradGuard noGrad;
        for (const auto& buf : net.buffers()) buffers.push_back(buf.clone());
        {
          LayerProbe::Recording rec(probe, LayerProbe::Pass::Reference);
          batch.forward();
        }
        restoreRng();
        {
          LayerProbe::Recording rec(probe, LayerProbe::Pass::Compare);
          precision::AutocastGuard bf16(true, o.device, precision::AutocastType::BFloat16);
          batch.forward();
        }
        restoreRng();
        auto live = net.buffers();
        for (std::size_t i = 0; i < live.size() && i < buffers.size(); ++i)
          live[i].copy_(buffers[i]);
      }
    }
    const bool scaling = o.scaler && o.scaler->enabled();
    const double applied = scaling ? o.scaler->currentScale() : 1.0;
    r.applied_scale = applied;
    if (o.optimizer) o.optimizer->zero_grad();
    for (auto& p : net.parameters())
      if (p.grad().defined()) p.mutable_grad() = torch::Tensor();
    torch::Tensor y;
    {
      LayerProbe::Recording rec(probe, LayerProbe::Pass::Train, applied);
      precision::AutocastGuard guard(o.mixed, o.device, o.type);
      y = batch.forward();
    }
    const torch::Tensor loss = batch.loss(y);
    r.losses.push_back(loss.item<double>());
    (o.scaler ? o.scaler->scale(loss) : loss).backward();
    probe.endBackward();
    const bool finite = precision::firstNonFiniteGradLayer(net).empty();
    if (!finite && r.nonfinite_layer.empty()) {
      std::vector<std::string> order;
      for (const auto& l : probe.layers())
        if (!l.module.empty()) order.push_back(l.module);
      r.nonfinite_layer = precision::firstNonFiniteGradLayer(net, order);
    }
    if (o.optimizer) {
      bool stepped = false;
      if (o.scaler) {
        stepped = o.scaler->step(*o.optimizer);
        o.scaler->update();
      } else if (finite) {
        o.optimizer->step();
        stepped = true;
      }
      if (!stepped) ++r.skipped_steps;
    } else if (!finite) {
      ++r.skipped_steps;
    }
  }
  r.layers = probe.layers();
  r.notes = probe.notes();
  return r;
}

}  // namespace amp::audit
