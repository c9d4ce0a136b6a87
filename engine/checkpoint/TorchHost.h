#pragma once
// Internal to checkpoint/TorchFile: the pickle host that knows the globals torch.save, OrderedDict
// and NumPy arrays use (and nothing else), and the conversion of what it read into IValues. Both
// are bounded for hostile files: see the limits below and unpickle() in Pickle.h.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "checkpoint/Pickle.h"

namespace amp::checkpoint::detail {

[[noreturn]] void bad(const std::string& why);

/// Views larger than their storage (expand()'s stride 0, overlapping as_strided) may add up to
/// this many bytes beyond their storages in one file.
constexpr std::int64_t kMaxExpandedBytes = std::int64_t{64} << 20;
/// Dimensions of one tensor: PyTorch's kernels stop at 25 (MAX_DIMS); real weights have <= 5.
constexpr std::size_t kMaxDims = 64;
/// _rebuild_from_type_v2 wrapped in itself: torch.save writes it once, around a tensor subclass.
constexpr int kMaxTypeWraps = 8;

// The globals torch.save, OrderedDict and NumPy arrays use, and nothing else.
class TorchHost : public PickleHost {
 public:
  // key, dtype, element count -> a 1-D tensor over the storage's bytes
  std::function<torch::Tensor(const std::string&, at::ScalarType, std::int64_t)> storage;

  PyRef global(const std::string& module, const std::string& name) override;
  PyRef call(const PyRef& fn, const PyRef& a) override;
  void build(const PyRef& obj, const PyRef& state) override;
  PyRef persistentLoad(const PyRef& pid) override;

 private:
  PyRef rebuildTensor(const PyRef& st, std::int64_t offset, const std::vector<std::int64_t>& size,
                      const std::vector<std::int64_t>& stride);

  std::map<std::string, torch::Tensor> storages_;
  std::int64_t expandedBytes_ = 0;  // what views larger than their storage add, so far
};

/// What a pickle read into IValues: dicts with string or int keys, lists, tuples, tensors,
/// numbers, strings, None. An object the pickle shares (through its memo) is converted once and
/// shared in the result too, as Python's unpickler shares it; nesting deeper than 200 and dict
/// keys hashed for more than 64 bytes per byte of `inputBytes` (+ 16 MiB) are refused.
c10::IValue toIValue(const PyRef& v, std::size_t inputBytes);

}  // namespace amp::checkpoint::detail
