#pragma once
// The instrumentation of the precision audit. LibTorch's C++ modules have no forward hooks, so
// the probe watches the operations themselves: while a Recording lives, a thread-local
// RecordFunction callback sees every top-level ATen operation of this thread's forward, with its
// inputs and outputs. An operation that takes a parameter belongs to that parameter's module
// (conv3d -> "s2.pathway0_res0.branch2.a"); parameter-free operations on autocast's lists (and
// softmax, normalisations, matmul) become rows of their own. Gradients come from hooks on the
// rows' outputs and on the parameters. Nothing of it exists when no audit runs: the callback is
// added by a Recording and removed with it, the hooks live on the audit's own model only.
// Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "amp/AutocastGuard.h"
#include "amp/GradScaler.h"
#include "audit/AuditReport.h"
#include "audit/GradStats.h"

namespace amp::audit {

class LayerProbe {
 public:
  enum class Pass {
    Reference,  ///< float32 forward: keeps each layer's output
    Compare,    ///< bfloat16 forward: relative error against the reference
    Train       ///< the audited precision: dtype, why, activations, gradient hooks
  };

  /// `device` picks the autocast dispatch key whose lists explain the dtypes.
  LayerProbe(torch::nn::Module& net, precision::AutocastDevice device, double reportScale);
  ~LayerProbe();
  LayerProbe(const LayerProbe&) = delete;
  LayerProbe& operator=(const LayerProbe&) = delete;

  /// Observes the forward operations of this thread while alive (one at a time).
  class Recording {
   public:
    /// `appliedScale`: the loss scale the following backward will use (Train).
    Recording(LayerProbe& probe, Pass pass, double appliedScale = 1.0);
    ~Recording();
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

   private:
    LayerProbe& probe_;
    std::uint64_t handle_ = 0;
  };

  /// After the backward of a Train pass: the parameters' gradients go to their layers.
  void endBackward();

  /// The layers, aggregated over the passes so far.
  std::vector<LayerAudit> layers() const;
  std::vector<std::string> notes() const { return notes_; }
  double reportScale() const { return reportScale_; }

  // Called by the RecordFunction callback (LayerProbe.cpp).
  struct Observation;
  void observe(const Observation& o);
  /// The module path owning a parameter (by its TensorImpl), or null.
  const std::string* moduleOf(const void* tensorImpl) const;
  /// A view or cast of a module's parameter (weight.t()) that belongs to it for this pass.
  void addAlias(const torch::Tensor& t, const std::string& module);

 private:
  struct Row {
    LayerAudit audit;
    double relErrorSum = 0;
    int compared = 0;
    GradStats grad;
  };
  void beginPass(Pass pass, double appliedScale);
  void endPass();
  void finishPending();

  std::unordered_map<const void*, std::string> paramModule_;  ///< TensorImpl* -> module path
  std::unordered_map<const void*, std::string> aliasModule_;  ///< this pass's parameter views
  std::vector<torch::Tensor> aliases_;
  std::vector<std::pair<torch::Tensor, unsigned>> paramHooks_;
  std::map<std::string, GradStats> paramGrads_;  ///< this backward's, by module path
  precision::AutocastDevice device_;
  double reportScale_;
  std::vector<Row> rows_;
  bool rowsKnown_ = false;  ///< the first pass established the rows
  bool mismatch_ = false;
  std::vector<std::string> notes_;
  // The pass under way.
  Pass pass_ = Pass::Train;
  double appliedScale_ = 1.0;
  int cursor_ = -1;                       ///< current row of this pass
  std::vector<std::string> passNames_;    ///< row names of this pass
  std::map<std::string, int> calls_;      ///< module -> calls in this pass
  std::string currentModule_;             ///< module of the current row ("" for an operation)
  std::string lastModule_;                ///< name of the last module row of this pass
  std::vector<double> passErrors_;        ///< Compare: each row's relative error (NaN: none)
  torch::Tensor pendingOut_;              ///< the current row's latest output (Train)
  std::vector<torch::Tensor> reference_;  ///< float32 outputs of the reference pass
};

}  // namespace amp::audit
