#pragma once
// Reads what Python wrote with torch.save (the zip format of PyTorch >= 1.6 and the older
// pickle-then-storages format) and Caffe2 model-zoo .pkl weights, without Python and without
// running anything from the file: pickles go through checkpoint/Pickle with a fixed list of the
// globals these files use (OrderedDict, torch._utils._rebuild_tensor_v2 and friends, the storage
// types, NumPy's array reconstruction); every other global is refused by name.
// Internal to the engine (LibTorch types). Errors are std::runtime_error naming the file; no other
// exception leaves these functions (std::bad_alloc and LibTorch's c10::Error become one).
//
// Files from strangers are bounded by their own size, so a small file cannot cost much memory or
// time before it is refused by name: the pickle's objects and data (see unpickle in Pickle.h);
// the zip records read add up to at most the zip's size (torch.save stores each once,
// uncompressed: a deflate bomb or overlapping entries are refused before anything is inflated);
// the storages of the legacy format add up to at most the file's size; a tensor view may not
// reach past its storage, and views larger than their storage (stride 0) add up to at most
// 64 MiB; objects the pickle shares are converted once.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace amp::checkpoint {

/// torch.load(path, map_location="cpu"): dicts (OrderedDict too) with string or int keys, lists,
/// tuples, tensors (views keep sharing their storage), numbers, strings, None.
c10::IValue loadTorchFile(const std::string& path);

/// The same without the weights: every tensor on the meta device (shape, strides, dtype, no
/// data). A zip reads only its data.pkl, so a large checkpoint's config or epoch is cheap to read.
c10::IValue loadTorchFileStructure(const std::string& path);

/// The same from bytes already in memory; `name` is used in messages.
c10::IValue loadTorchBytes(const std::string& bytes, const std::string& name);

/// Longest Caffe2 blob name accepted: real ones ("res5_2_branch2c_bn_riv") are under 100
/// characters, and the name conversion's regular expressions must not see 100 KB of one.
constexpr std::size_t kMaxCaffe2BlobName = 256;

/// A Caffe2 .pkl (pickle.load(f, encoding="latin1")): the arrays of its "blobs" dict (or of the
/// top-level dict when there is no "blobs"), in file order, as CPU tensors. Non-array entries
/// (a model_iter counter, an lr) are left out; a name repeated keeps its last array, as a dict;
/// an array name longer than kMaxCaffe2BlobName is refused.
std::vector<std::pair<std::string, torch::Tensor>> loadCaffe2Blobs(const std::string& path);

}  // namespace amp::checkpoint
