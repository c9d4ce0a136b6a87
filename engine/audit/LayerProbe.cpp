#include "audit/LayerProbe.h"

#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <cmath>
#include <mutex>
#include <set>

#include "amp/NonFiniteGrad.h"

namespace amp::audit {

/// One top-level operation of a recorded forward.
struct LayerProbe::Observation {
  std::string op;      ///< without "aten::"
  std::string module;  ///< owner of a parameter among its inputs ("" for none)
  torch::Tensor output;
  c10::ScalarType inputType = c10::ScalarType::Undefined;  ///< first floating non-parameter input
  bool autocastOn = false;
  std::vector<std::pair<std::string, std::string>>
      autocastOps;  ///< (op, list) whose autocast kernel ran
};

namespace {

struct OpContext : at::ObserverContext {
  int depth = 0;
  bool top = false;   ///< a top-level operation that becomes (part of) a row
  bool prep = false;  ///< it only reshapes or casts a parameter (weight.t() before a matmul)
  bool autocastRuns =
      false;  ///< its autocast kernel runs (autocast on, key not excluded, op listed)
  LayerProbe::Observation obs;
};

// The recording of this thread (RecordFunction callbacks are plain function pointers).
thread_local LayerProbe* tProbe = nullptr;
thread_local c10::DispatchKey tAutocastKey = c10::DispatchKey::AutocastCPU;
thread_local precision::AutocastDevice tDevice = precision::AutocastDevice::CPU;
thread_local int tDepth = 0;
thread_local OpContext* tTop = nullptr;

std::string stripNamespace(const char* name) {
  std::string s = name ? name : "";
  const auto colon = s.rfind("::");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

// Whether autocast registered its own kernel for the operation (one of its lists); everything
// else falls through autocast's key untouched.
bool hasAutocastKernel(const at::RecordFunction& fn, c10::DispatchKey key) {
  thread_local std::map<std::pair<std::string, int>, bool> cache;
  const auto name = fn.operator_name();
  if (!name) return false;
  const auto id = std::make_pair(name->name + "." + name->overload_name, static_cast<int>(key));
  if (const auto it = cache.find(id); it != cache.end()) return it->second;
  const auto op = c10::Dispatcher::singleton().findOp(*name);
  const bool has = op.has_value() && op->hasKernelForDispatchKey(key);
  cache.emplace(id, has);
  return has;
}

// autocast's promote list (both devices): the widest input type, no fixed dtype.
bool onPromoteList(const std::string& op) {
  static const std::set<std::string> promote = {
      "cat",   "stack", "index_copy",   "addcdiv",   "addcmul",     "atan2",    "bilinear",
      "cross", "dot",   "grid_sampler", "index_put", "scatter_add", "tensordot"};
  return promote.count(op) > 0;
}

// Parameter-free operations that get a row: the ones autocast lists (except the promote list,
// which only follows its inputs) and the numerically delicate ones autocast leaves alone on
// some devices.
bool notableFunctional(const std::string& op, bool autocastKernel) {
  static const std::set<std::string> always = {"softmax",
                                               "_softmax",
                                               "log_softmax",
                                               "layer_norm",
                                               "group_norm",
                                               "batch_norm",
                                               "instance_norm",
                                               "einsum",
                                               "matmul",
                                               "bmm",
                                               "mm",
                                               "baddbmm",
                                               "scaled_dot_product_attention",
                                               "linear",
                                               "conv3d",
                                               "conv2d"};
  if (onPromoteList(op) || op == "to" || op == "_to_copy") return false;
  return autocastKernel || always.count(op) > 0;
}

// Operations that only view, reshape or cast a parameter. LibTorch's C++ Linear runs
// input.matmul(weight.t()) (or addmm), not aten::linear: the transposed weight stays the
// module's, and the matmul that uses it makes the row.
bool preparesParameter(const std::string& op) {
  static const std::set<std::string> prep = {
      "t",          "transpose",    "permute",   "view",    "reshape",   "unsqueeze",
      "squeeze",    "expand",       "expand_as", "flatten", "unflatten", "contiguous",
      "to",         "_to_copy",     "detach",    "select",  "slice",     "narrow",
      "index",      "index_select", "unbind",    "split",   "chunk",     "view_as",
      "reshape_as", "alias",        "numpy_T",   "mT",      "repeat",    "clone"};
  return prep.count(op) > 0;
}

template <typename F>
void forEachTensor(const c10::IValue& v, F&& f) {
  if (v.isTensor()) {
    f(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) f(t);
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) forEachTensor(e, f);
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) forEachTensor(e, f);
  }
}

torch::Tensor firstTensor(const std::vector<c10::IValue>& values) {
  torch::Tensor out;
  for (const auto& v : values) {
    forEachTensor(v, [&](const at::Tensor& t) {
      if (!out.defined() && t.defined()) out = t;
    });
    if (out.defined()) break;
  }
  return out;
}

std::string listOf(const std::string& op, const torch::Tensor& out) {
  if (out.defined() && (out.scalar_type() == torch::kBFloat16 || out.scalar_type() == torch::kHalf))
    return "lower-precision";
  return onPromoteList(op) ? "promote" : "fp32";
}

std::string typeName(c10::ScalarType t) {
  switch (t) {
    case torch::kFloat:
      return "float32";
    case torch::kBFloat16:
      return "bfloat16";
    case torch::kHalf:
      return "float16";
    case torch::kDouble:
      return "float64";
    case c10::ScalarType::Undefined:
      return "none";
    default:
      return c10::toString(t);
  }
}

std::string explain(const LayerProbe::Observation& o) {
  if (!o.autocastOn)
    return "autocast off: the operation runs in its input's type (" + typeName(o.inputType) + ")";
  const std::string out =
      typeName(o.output.defined() ? o.output.scalar_type() : c10::ScalarType::Undefined);
  for (const auto& [op, list] : o.autocastOps) {
    if (op != o.op) continue;
    if (list == "lower-precision")
      return o.op + " is on autocast's lower-precision list: inputs cast to " + out;
    if (list == "promote")
      return o.op + " is on autocast's promote list: the widest input type (" + out + ")";
    return o.op + " is on autocast's fp32 list: inputs cast to float32";
  }
  if (!o.autocastOps.empty()) {
    const auto& [op, list] = o.autocastOps.front();
    return o.op + " is not on autocast's lists; inside it, " + op + " is on the " + list +
           " list (output " + out + ")";
  }
  std::string why = o.op + " is not on autocast's lists: it runs in its input's type (" +
                    typeName(o.inputType) + ")";
  if (o.inputType == torch::kFloat) why += "; the input was already float32";
  return why;
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
  auto ctx = std::make_unique<OpContext>();
  ctx->depth = tDepth++;
  LayerProbe* probe = tProbe;
  if (!probe) return ctx;
  const bool autocastOn = precision::currentAutocast(tDevice).enabled;
  const bool kernel = hasAutocastKernel(fn, tAutocastKey);
  ctx->autocastRuns =
      kernel && autocastOn && !c10::impl::tls_is_dispatch_key_excluded(tAutocastKey);
  if (ctx->depth != 0) return ctx;
  auto& o = ctx->obs;
  o.op = stripNamespace(fn.name());
  for (const auto& v : fn.inputs())
    forEachTensor(v, [&](const at::Tensor& t) {
      if (!t.defined()) return;
      const std::string* module = probe->moduleOf(t.unsafeGetTensorImpl());
      if (module) {
        if (o.module.empty()) o.module = *module;
      } else if (o.inputType == c10::ScalarType::Undefined && t.is_floating_point()) {
        o.inputType = t.scalar_type();
      }
    });
  if (o.module.empty() && !notableFunctional(o.op, kernel)) return ctx;
  o.autocastOn = autocastOn;
  ctx->prep = !o.module.empty() && preparesParameter(o.op);
  ctx->top = true;
  tTop = ctx.get();
  return ctx;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext* c) {
  auto* ctx = static_cast<OpContext*>(c);
  if (!ctx) return;
  tDepth = ctx->depth;
  LayerProbe* probe = tProbe;
  if (!probe) return;
  if (ctx->autocastRuns && tTop) {
    const std::string op = stripNamespace(fn.name());
    tTop->obs.autocastOps.emplace_back(op, listOf(op, firstTensor(fn.outputs())));
  }
  if (!ctx->top) return;
  tTop = nullptr;
  if (ctx->prep) {  // its outputs belong to the module too
    for (const auto& v : fn.outputs())
      forEachTensor(v, [&](const at::Tensor& t) {
        if (t.defined()) probe->addAlias(t, ctx->obs.module);
      });
    return;
  }
  ctx->obs.output = firstTensor(fn.outputs());
  at::DisableRecordFunctionGuard notObserved;  // the probe's own arithmetic
  torch::NoGradGuard noGrad;
  probe->observe(ctx->obs);
}

}  // namespace

LayerProbe::LayerProbe(torch::nn::Module& net, precision::AutocastDevice device, double reportScale)
    : device_(device), reportScale_(reportScale) {
  for (const auto& item : net.named_parameters(/*recurse=*/true)) {
    torch::Tensor p = item.value();
    const std::string path = precision::moduleOfParameter(item.key());
    paramModule_[p.unsafeGetTensorImpl()] = path;
    if (!p.requires_grad()) continue;
    const unsigned h = p.register_hook([this, path](const at::TensorBase& g) {
      if (g.defined()) paramGrads_[path].add(gradStats(at::Tensor(g), appliedScale_, reportScale_));
    });
    paramHooks_.emplace_back(p, h);
  }
}

LayerProbe::~LayerProbe() {
  for (auto& [p, h] : paramHooks_) p.remove_hook(h);
}

const std::string* LayerProbe::moduleOf(const void* tensorImpl) const {
  if (const auto it = paramModule_.find(tensorImpl); it != paramModule_.end()) return &it->second;
  const auto it = aliasModule_.find(tensorImpl);
  return it == aliasModule_.end() ? nullptr : &it->second;
}

void LayerProbe::addAlias(const torch::Tensor& t, const std::string& module) {
  aliases_.push_back(t);  // held for the pass, so its address cannot be reused by another tensor
  aliasModule_[t.unsafeGetTensorImpl()] = module;
}

LayerProbe::Recording::Recording(LayerProbe& probe, Pass pass, double appliedScale)
    : probe_(probe) {
  if (tProbe) throw std::logic_error("LayerProbe: one recording at a time on a thread");
  probe_.beginPass(pass, appliedScale);
  tProbe = &probe_;
  tDevice = probe_.device_;
  tAutocastKey = probe_.device_ == precision::AutocastDevice::CUDA ? c10::DispatchKey::AutocastCUDA
                                                                   : c10::DispatchKey::AutocastCPU;
  tDepth = 0;
  tTop = nullptr;
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(onStart, onEnd)
                                           .needsInputs(true)
                                           .needsOutputs(true)
                                           .scopes({at::RecordScope::FUNCTION}));
}

LayerProbe::Recording::~Recording() {
  at::removeCallback(handle_);
  tProbe = nullptr;
  tTop = nullptr;
  tDepth = 0;
  at::DisableRecordFunctionGuard notObserved;
  probe_.endPass();
}

void LayerProbe::beginPass(Pass pass, double appliedScale) {
  pass_ = pass;
  appliedScale_ = appliedScale;
  cursor_ = -1;
  passNames_.clear();
  calls_.clear();
  currentModule_.clear();
  lastModule_.clear();
  passErrors_.clear();
  pendingOut_ = torch::Tensor();
  aliases_.clear();
  aliasModule_.clear();
  if (pass == Pass::Reference) reference_.clear();
}

void LayerProbe::finishPending() {
  if (pass_ != Pass::Train || !pendingOut_.defined()) return;
  if (pendingOut_.requires_grad()) {
    const int row = cursor_;
    const double applied = appliedScale_;
    pendingOut_.register_hook([this, row, applied](const at::TensorBase& g) {
      if (g.defined() && row < static_cast<int>(rows_.size()))
        rows_[static_cast<std::size_t>(row)].grad.add(
            gradStats(at::Tensor(g), applied, reportScale_));
    });
  }
  pendingOut_ = torch::Tensor();
}

void LayerProbe::observe(const Observation& o) {
  if (mismatch_) return;
  const bool continues = !o.module.empty() && cursor_ >= 0 && currentModule_ == o.module;
  if (!continues) {
    finishPending();
    ++cursor_;
    // A module by its path; an operation after the last module row (the head's two pools after
    // s5 become "avg_pool3d (after ...)" and "avg_pool3d (after ...)#2").
    std::string name =
        o.module.empty() ? o.op + " (after " +
                               (lastModule_.empty() ? std::string("the input") : lastModule_) + ")"
                         : o.module;
    const int k = ++calls_[name];
    if (k > 1) name += "#" + std::to_string(k);
    if (!o.module.empty()) lastModule_ = name;
    passNames_.push_back(name);
    currentModule_ = o.module;
    const auto at = static_cast<std::size_t>(cursor_);
    if (!rowsKnown_) {
      Row r;
      r.audit.index = cursor_;
      r.audit.name = name;
      r.audit.op = o.op;
      r.audit.module = o.module;
      rows_.push_back(r);
    } else if (at >= rows_.size() || rows_[at].audit.name != name) {
      mismatch_ = true;
      notes_.push_back("the forward passes ran different layers (" + name + " at position " +
                       std::to_string(cursor_) + "); later layers are not compared");
      return;
    }
  }
  Row& row = rows_[static_cast<std::size_t>(cursor_)];
  const torch::Tensor& out = o.output;
  if (!out.defined() || !out.is_floating_point()) return;
  const auto at = static_cast<std::size_t>(cursor_);
  switch (pass_) {
    case Pass::Reference:
      if (reference_.size() <= at) reference_.resize(at + 1);
      reference_[at] = out.detach().to(torch::kFloat, /*non_blocking=*/false, /*copy=*/true);
      break;
    case Pass::Compare:
      if (at < reference_.size() && reference_[at].defined() &&
          reference_[at].sizes() == out.sizes()) {
        const auto& ref = reference_[at];
        const double denom = ref.norm().item<double>();
        const double diff = (out.detach().to(torch::kFloat) - ref).norm().item<double>();
        if (passErrors_.size() <= at)
          passErrors_.resize(at + 1, std::numeric_limits<double>::quiet_NaN());
        passErrors_[at] =
            denom > 0 ? diff / denom : (diff > 0 ? std::numeric_limits<double>::infinity() : 0.0);
      }
      break;
    case Pass::Train: {
      if (!continues) {
        row.audit.dtype = typeName(out.scalar_type());
        row.audit.why = explain(o);
      }
      const double m =
          out.numel() ? gradStats(out, 1.0, 1.0).absmax : 0.0;  // the same one-pass abs-max
      if (!(row.audit.act_absmax >= m)) row.audit.act_absmax = m;
      pendingOut_ = out;
      break;
    }
  }
}

void LayerProbe::endPass() {
  finishPending();
  aliases_.clear();
  aliasModule_.clear();
  if (!mismatch_) {
    if (!rowsKnown_)
      rowsKnown_ = true;
    else if (static_cast<std::size_t>(cursor_ + 1) != rows_.size()) {
      mismatch_ = true;
      notes_.push_back("a forward pass ran " + std::to_string(cursor_ + 1) + " layers instead of " +
                       std::to_string(rows_.size()));
    }
  }
  if (pass_ == Pass::Compare) {
    for (std::size_t i = 0; i < passErrors_.size() && i < rows_.size(); ++i)
      if (!std::isnan(passErrors_[i])) {
        rows_[i].relErrorSum += passErrors_[i];
        ++rows_[i].compared;
      }
    reference_.clear();
  }
}

void LayerProbe::endBackward() {
  for (const auto& [module, stats] : paramGrads_)
    for (auto& r : rows_)
      if (r.audit.module == module) {
        r.grad.add(stats);
        break;
      }
  paramGrads_.clear();
}

std::vector<LayerAudit> LayerProbe::layers() const {
  std::vector<LayerAudit> out;
  for (const auto& r : rows_) {
    LayerAudit a = r.audit;
    if (r.compared) a.bf16_rel_error = r.relErrorSum / r.compared;
    a.headroom_log2 = a.act_absmax > 0 ? std::log2(kFp16Max / a.act_absmax)
                                       : std::numeric_limits<double>::infinity();
    if (std::isnan(a.act_absmax)) a.headroom_log2 = -std::numeric_limits<double>::infinity();
    a.has_grad = r.grad.elements > 0;
    a.grad_absmax = r.grad.absmax;
    a.grad_elements = r.grad.elements;
    a.grad_nonzero = r.grad.nonzero;
    a.nonfinite_grad = r.grad.nonfinite;
    if (r.grad.nonzero > 0) {
      a.fp16_underflow_fraction =
          static_cast<double>(r.grad.zero16) / static_cast<double>(r.grad.nonzero);
      a.fp16_subnormal_fraction =
          static_cast<double>(r.grad.subnormal16) / static_cast<double>(r.grad.nonzero);
    }
    if (!std::isfinite(a.grad_absmax))
      a.overflow_scale = 0;
    else if (a.grad_absmax > 0)
      a.overflow_scale = kFp16Max / a.grad_absmax;
    out.push_back(a);
  }
  return out;
}

}  // namespace amp::audit
