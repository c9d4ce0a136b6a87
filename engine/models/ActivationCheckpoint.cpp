#include "models/ActivationCheckpoint.h"

#include <torch/csrc/autograd/custom_function.h>

#include <mutex>
#include <optional>

#include "amp/AutocastGuard.h"

namespace amp::models {
namespace {

thread_local int recomputeDepth = 0;

struct RecomputeScope {
  RecomputeScope() { ++recomputeDepth; }
  ~RecomputeScope() { --recomputeDepth; }
};

// The default generator of a device: its state read and written under its lock.
torch::Tensor generatorState(const c10::Device& device) {
  auto gen = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}
void setGeneratorState(const c10::Device& device, const torch::Tensor& state) {
  auto gen = at::globalContext().defaultGenerator(device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

// What the backward needs to run the segment again as the forward did.
struct SegmentState : torch::CustomClassHolder {
  Segment fn;
  size_t inputs = 0;
  std::vector<bool> inputNeedsGrad;
  std::vector<torch::Tensor>
      params;  ///< the trainable parameters, after the inputs in the node's inputs
  precision::AutocastState cpuAutocast, cudaAutocast;
  torch::Tensor cpuRng;
  std::optional<c10::Device> cuda;
  torch::Tensor cudaRng;
};

// Sets the forward's random state for the recomputation and puts back the current one after.
class RngReplay {
 public:
  explicit RngReplay(const SegmentState& s) : s_(s) {
    cpuNow_ = generatorState(c10::Device(c10::kCPU));
    setGeneratorState(c10::Device(c10::kCPU), s.cpuRng);
    if (s.cuda) {
      cudaNow_ = generatorState(*s.cuda);
      setGeneratorState(*s.cuda, s.cudaRng);
    }
  }
  ~RngReplay() {
    setGeneratorState(c10::Device(c10::kCPU), cpuNow_);
    if (s_.cuda) setGeneratorState(*s_.cuda, cudaNow_);
  }
  RngReplay(const RngReplay&) = delete;
  RngReplay& operator=(const RngReplay&) = delete;

 private:
  const SegmentState& s_;
  torch::Tensor cpuNow_, cudaNow_;
};

struct CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
  // args: the segment's inputs, then its parameters (inputs of this node, so their gradients
  // reach their accumulators, and data-parallel hooks, as without checkpointing).
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                at::TensorList args,
                                                c10::intrusive_ptr<SegmentState> state) {
    std::vector<torch::Tensor> inputs(args.begin(),
                                      args.begin() + static_cast<std::ptrdiff_t>(state->inputs));
    ctx->save_for_backward(inputs);
    ctx->saved_data["segment"] = c10::IValue::make_capsule(state);
    return state->fn(inputs);  // grad mode is off here: no activation is kept
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list gradOutputs) {
    const auto state =
        c10::static_intrusive_pointer_cast<SegmentState>(ctx->saved_data["segment"].toCapsule());
    const auto saved = ctx->get_saved_variables();
    std::vector<torch::Tensor> inputs;
    for (size_t i = 0; i < saved.size(); ++i)
      inputs.push_back(saved[i].detach().requires_grad_(state->inputNeedsGrad[i]));
    std::vector<torch::Tensor> outputs;
    {
      torch::AutoGradMode grad(true);
      RngReplay replay(*state);
      precision::AutocastGuard cpu(state->cpuAutocast.enabled, precision::AutocastDevice::CPU,
                                   state->cpuAutocast.type);
      precision::AutocastGuard cuda(state->cudaAutocast.enabled && state->cuda,
                                    precision::AutocastDevice::CUDA, state->cudaAutocast.type);
      RecomputeScope recomputing;
      outputs = state->fn(inputs);
    }
    // The gradients of the inputs that need them and of every parameter.
    const auto& params = state->params;
    std::vector<torch::Tensor> wrt;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (state->inputNeedsGrad[i]) wrt.push_back(inputs[i]);
    wrt.insert(wrt.end(), params.begin(), params.end());
    std::vector<torch::Tensor> outs, grads;
    for (size_t k = 0; k < outputs.size() && k < gradOutputs.size(); ++k)
      if (outputs[k].requires_grad() && gradOutputs[k].defined()) {
        outs.push_back(outputs[k]);
        grads.push_back(gradOutputs[k]);
      }
    std::vector<torch::Tensor> found(wrt.size());
    if (!outs.empty() && !wrt.empty())
      found = torch::autograd::grad(outs, wrt, grads, /*retain_graph=*/false,
                                    /*create_graph=*/false, /*allow_unused=*/true);
    torch::autograd::variable_list result;
    size_t next = 0;
    for (size_t i = 0; i < inputs.size(); ++i)
      result.push_back(state->inputNeedsGrad[i] ? found[next++] : torch::Tensor());
    for (size_t j = 0; j < params.size(); ++j) result.push_back(found[next++]);
    result.emplace_back();  // the segment state: not a tensor
    return result;
  }
};

}  // namespace

bool recomputingCheckpoint() {
  return recomputeDepth > 0;
}

std::vector<torch::Tensor> runCheckpointed(const Segment& segment,
                                           const std::vector<torch::Tensor>& inputs,
                                           const std::vector<torch::Tensor>& parameters) {
  bool needsGrad = false;
  for (const auto& t : inputs) needsGrad = needsGrad || t.requires_grad();
  for (const auto& t : parameters) needsGrad = needsGrad || t.requires_grad();
  if (!torch::GradMode::is_enabled() || !needsGrad || recomputingCheckpoint())
    return segment(inputs);

  auto state = c10::make_intrusive<SegmentState>();
  state->fn = segment;
  state->inputs = inputs.size();
  for (const auto& t : inputs) {
    state->inputNeedsGrad.push_back(t.requires_grad());
    if (t.is_cuda() && !state->cuda) state->cuda = t.device();
  }
  state->cpuAutocast = precision::currentAutocast(precision::AutocastDevice::CPU);
  state->cpuRng = generatorState(c10::Device(c10::kCPU));
  if (state->cuda) {
    state->cudaAutocast = precision::currentAutocast(precision::AutocastDevice::CUDA);
    state->cudaRng = generatorState(*state->cuda);
  }
  for (const auto& p : parameters)
    if (p.requires_grad()) state->params.push_back(p);
  std::vector<torch::Tensor> args(inputs);
  args.insert(args.end(), state->params.begin(), state->params.end());
  return CheckpointFunction::apply(at::TensorList(args), state);
}

std::vector<torch::Tensor> runCheckpointed(torch::nn::Module& module, const Segment& segment,
                                           const std::vector<torch::Tensor>& inputs) {
  return runCheckpointed(segment, inputs, module.parameters(/*recurse=*/true));
}

}  // namespace amp::models
