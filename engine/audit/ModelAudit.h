#pragma once
// A few training batches of a model with the LayerProbe attached: the precision audit's loop,
// apart from where its batches come from (audit/PrecisionAudit.cpp: the config's model and data;
// the tests: small hand-built modules). Internal to the engine (LibTorch types).
//
//   audit::ModelAuditOptions o;  // autocast, scaler, optimizer, report scale
//   auto r = audit::auditModel(*net, 4, [&](int i) {
//     return audit::ModelAuditBatch{[&] { return net->forward(x[i]); },
//                                   [&](const torch::Tensor& y) { return loss(y, labels[i]); }};
//   }, o);
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "amp/AutocastGuard.h"
#include "amp/GradScaler.h"
#include "audit/AuditReport.h"

namespace amp::audit {

/// One batch for auditModel: the forward (called under the audit's autocast and grad modes)
/// and the loss of its output.
struct ModelAuditBatch {
  std::function<torch::Tensor()> forward;
  std::function<torch::Tensor(const torch::Tensor&)> loss;
};

struct ModelAuditOptions {
  bool mixed = false;  ///< the audited training batches run under autocast
  precision::AutocastDevice device = precision::AutocastDevice::CPU;
  precision::AutocastType type = precision::AutocastType::BFloat16;
  int compare_batches = 1 << 30;  ///< the first N batches also run a float32 and a bfloat16 forward
  double report_scale = 65536;
  precision::GradScaler* scaler = nullptr;       ///< scales the loss (null: scale 1)
  torch::optim::Optimizer* optimizer = nullptr;  ///< steps after each batch (null: no step)
};

struct ModelAuditResult {
  std::vector<LayerAudit> layers;
  std::vector<std::string> notes;
  std::vector<double> losses;
  int skipped_steps = 0;
  double applied_scale = 1;  ///< the loss scale of the last backward
  std::string nonfinite_layer;
};

/// Trains `batches` batches of `net` with the probe attached. Each batch: (the first
/// compare_batches) a float32 and a bfloat16 forward without gradients, dropout drawing the same
/// masks as the training forward and batch-norm statistics restored afterwards; then forward under
/// the audited precision, loss, scaled backward, scaler step and update.
ModelAuditResult auditModel(torch::nn::Module& net, int batches,
                            const std::function<ModelAuditBatch(int)>& batchAt,
                            const ModelAuditOptions& options);

}  // namespace amp::audit
