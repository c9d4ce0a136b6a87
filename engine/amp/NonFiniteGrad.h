#pragma once
// Where a step overflowed: the first layer, in backward order, whose parameter gradient holds
// inf/NaN. Cheap enough for the trainer's skipped steps (one isfinite reduction per parameter,
// one copy to the host). Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <string>
#include <vector>

namespace amp::precision {

/// The module path of a parameter name: "s2.pathway0_res0.branch2.a.weight" ->
/// "s2.pathway0_res0.branch2.a"; a parameter of the root module keeps its own name ("cls_token").
std::string moduleOfParameter(const std::string& parameterName);

/// After a backward: the module closest to the loss whose parameter gradients hold inf/NaN
/// (that is where an overflow starts; every layer before it inherits the inf), or "" when every
/// gradient is finite. Backward order is the reverse of `forwardOrder` (module paths in the
/// order the forward ran them, e.g. from a precision audit) when given, else the reverse of the
/// parameters' registration order, which is the forward order for the studio's models.
/// Parameters without a gradient are skipped.
std::string firstNonFiniteGradLayer(const torch::nn::Module& net,
                                    const std::vector<std::string>& forwardOrder = {});

}  // namespace amp::precision
