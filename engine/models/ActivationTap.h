#pragma once
// What a layer of a model put out in one forward pass, for Grad-CAM: LibTorch's C++ modules have
// no forward hooks (PySlowFast's GradCAM registers one on the layer it names), so the blocks a
// Grad-CAM may target hand their output to ActivationTap::pass at the end of forward. Outside a
// tap that is one thread-local pointer test; inside one it keeps the tapped outputs, and the
// caller asks autograd for their gradients. Internal to the engine (LibTorch types).
//
//   const torch::nn::Module* layer = models::findTapLayer(*net, "s5/pathway0_res2", &error);
//   models::ActivationTap tap({layer});
//   auto score = net->forward(inputs).select(1, cls).sum();
//   auto grad = torch::autograd::grad({score}, {tap.output(0).tensor})[0];
#include <torch/torch.h>

#include <string>
#include <vector>

namespace amp::models {

/// A module whose output ActivationTap can watch (it calls ActivationTap::pass): residual and
/// non-local blocks, residual transforms, stems, MViT's blocks. A marker, no members.
class TapPoint {
 public:
  virtual ~TapPoint() = default;
};

class ActivationTap {
 public:
  /// What a tapped module put out. `tensor` is what the model went on with (its gradient is the
  /// layer's output gradient). MViT's tokens (B x N x C) come with their grid: `grid` is T, H, W
  /// and `class_token` says whether token 0 is the class token; empty for N x C x T x H x W.
  struct Output {
    torch::Tensor tensor;
    std::vector<std::int64_t> grid;
    bool class_token = false;
  };

  /// Watches `modules` on this thread until destroyed (one tap per thread at a time; a second
  /// throws std::logic_error).
  explicit ActivationTap(std::vector<const torch::nn::Module*> modules);
  ~ActivationTap();
  ActivationTap(const ActivationTap&) = delete;
  ActivationTap& operator=(const ActivationTap&) = delete;

  /// The last output of modules[i] in this tap's life; an undefined tensor when it never ran.
  const Output& output(std::size_t i) const { return outputs_.at(i); }
  std::size_t size() const { return outputs_.size(); }

  /// Called by a TapPoint at the end of its forward with what it returns: `y` itself outside a
  /// tap, or when `m` is not watched; when it is, a copy of `y` is returned and `y` kept, so
  /// that in-place operations after the layer (PySlowFast's inplace ReLU) leave the kept tensor
  /// and its place in the graph as they were.
  static torch::Tensor pass(const torch::nn::Module& m, torch::Tensor y,
                            std::vector<std::int64_t> grid = {}, bool classToken = false);

 private:
  std::vector<const torch::nn::Module*> modules_;
  std::vector<Output> outputs_;
};

/// The names of the model's TapPoints as PySlowFast writes layer names (module names joined by
/// "/": "s5/pathway0_res2", "blocks/15"), in the model's module order.
std::vector<std::string> tapLayerNames(const torch::nn::Module& net);

/// The TapPoint called `name` ("s5/pathway0_res2"; "." works as separator too). nullptr with
/// `error` naming the layer and listing the valid ones when there is none.
const torch::nn::Module* findTapLayer(const torch::nn::Module& net, const std::string& name,
                                      std::string* error);

}  // namespace amp::models
