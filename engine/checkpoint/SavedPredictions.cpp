#include "checkpoint/SavedPredictions.h"

#include <torch/torch.h>

#include <any>
#include <stdexcept>

#include "checkpoint/Pickle.h"
#include "checkpoint/TorchHost.h"
#include "util/AtomicFile.h"

namespace amp::checkpoint {
namespace {

using Kind = PyObj::Kind;

// An array, a list of arrays (stacked) or of numbers, as a double tensor; throws
// std::invalid_argument saying what `v` is otherwise.
torch::Tensor asArray(const PyRef& v, const std::string& what) {
  if (v->kind == Kind::Object && v->name == "numpy.ndarray") {
    const auto* t = std::any_cast<torch::Tensor>(&v->payload);
    if (!t || !t->defined()) throw std::invalid_argument(what + " is a NumPy array without data");
    return t->to(torch::kDouble);
  }
  if (v->kind == Kind::Int || v->kind == Kind::Bool)
    return torch::tensor(double(v->i), torch::kDouble);
  if (v->kind == Kind::Float) return torch::tensor(v->f, torch::kDouble);
  if (v->kind == Kind::List || v->kind == Kind::Tuple) {
    if (v->items.empty()) throw std::invalid_argument(what + " is an empty list");
    std::vector<torch::Tensor> rows;
    for (std::size_t i = 0; i < v->items.size(); ++i)
      rows.push_back(asArray(v->items[i], what + "[" + std::to_string(i) + "]"));
    try {
      return torch::stack(rows);
    } catch (const c10::Error&) {
      throw std::invalid_argument(what + "'s items differ in shape");
    }
  }
  throw std::invalid_argument(what + " is a " + v->describe() +
                              ", not a NumPy array or a list of them");
}

}  // namespace

bool readSavedPredictions(const std::string& path, SavedPredictions& out, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = "TENSORBOARD.PREDICTIONS_PATH " + path + ": " + why;
    return false;
  };
  std::string bytes, why;
  if (!util::readFile(path, bytes, &why, util::kNoReadCap)) return fail(why);
  detail::TorchHost host;
  host.storage = [](const std::string&, at::ScalarType, std::int64_t) -> torch::Tensor {
    detail::bad("a tensor storage (a torch.save file, not pickle.dump of predictions)");
  };
  PyRef top;
  try {
    std::size_t pos = 0;
    top = unpickle(bytes, pos, host);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    if (what.find("_load_from_bytes") != std::string::npos ||
        what.find("_rebuild_tensor") != std::string::npos)
      return fail("it holds torch tensors (" + what +
                  "); the safe reader opens no tensor pickled inside a pickle. Save NumPy arrays "
                  "instead: pickle.dump([preds.numpy(), labels.numpy()], f)");
    return fail("not a pickle this reader opens (" + what + ")");
  }
  out = SavedPredictions{};
  out.described = top->describe();
  if ((top->kind != Kind::List && top->kind != Kind::Tuple) || top->items.size() != 2)
    return fail("it holds " + out.described +
                "; PySlowFast's saved results are a list of two, [preds, labels]");
  try {
    auto preds = asArray(top->items[0], "preds");
    auto labels = asArray(top->items[1], "labels");
    out.described = "preds of shape " + c10::str(preds.sizes()) + ", labels of shape " +
                    c10::str(labels.sizes());
    if (preds.dim() != 2 || preds.size(0) == 0 || preds.size(1) == 0)
      return fail("preds must be videos x classes; it has shape " + c10::str(preds.sizes()));
    if (labels.dim() == 2) labels = labels.argmax(1).to(torch::kDouble);  // one-hot rows
    if (labels.dim() != 1 || labels.size(0) != preds.size(0))
      return fail(out.described + ": one label per row of preds expected");
    out.videos = static_cast<int>(preds.size(0));
    out.classes = static_cast<int>(preds.size(1));
    const auto p = preds.contiguous();
    out.scores.assign(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
    const auto l = labels.contiguous();
    for (std::int64_t i = 0; i < l.numel(); ++i) {
      const double v = l.data_ptr<double>()[i];
      if (!(v >= 0 && v < out.classes) || v != static_cast<double>(static_cast<int>(v)))
        return fail("label " + std::to_string(v) + " of video " + std::to_string(i) +
                    " is not a class of 0 .. " + std::to_string(out.classes - 1));
      out.labels.push_back(static_cast<int>(v));
    }
  } catch (const std::invalid_argument& e) {
    return fail(std::string(e.what()) + " (the file holds " + out.described + ")");
  }
  return true;
}

}  // namespace amp::checkpoint
