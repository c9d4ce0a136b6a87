#pragma once
// MODEL.ACT_CHECKPOINT: activation checkpointing of a model segment (PySlowFast wraps segments in
// fairscale's checkpoint_wrapper). The forward keeps only the segment's inputs; the backward runs
// the segment again with the random state and autocast setting of the forward, so the gradients
// are those of the plain model, and frees the recomputed activations as it goes. Internal to the
// engine (LibTorch types).
#include <torch/torch.h>

#include <functional>
#include <vector>

namespace amp::models {

using Segment = std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>& inputs)>;

/// `segment(inputs)`, checkpointed when gradients are being recorded: its intermediate
/// activations are not kept, and backward recomputes them. `parameters` are the trainable
/// tensors the segment uses (their gradients flow back through the recomputation). Without grad
/// mode (evaluation, inference) the segment just runs.
std::vector<torch::Tensor> runCheckpointed(const Segment& segment,
                                           const std::vector<torch::Tensor>& inputs,
                                           const std::vector<torch::Tensor>& parameters);

/// The same for a module: its parameters that require gradients.
std::vector<torch::Tensor> runCheckpointed(torch::nn::Module& module, const Segment& segment,
                                           const std::vector<torch::Tensor>& inputs);

/// True on this thread while backward recomputes a checkpointed segment. Batch norm then
/// normalises with the batch's statistics as it did in forward but does not update its running
/// statistics a second time (fairscale's wrapper, without its optional patch, updates them twice).
bool recomputingCheckpoint();

}  // namespace amp::models
