#include "train/Checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "checkpoint/TorchFile.h"
#include "runlog/CheckpointFiles.h"
#include "system/ErrorText.h"
#include "util/AtomicFile.h"

namespace amp::train {
namespace fs = std::filesystem;

namespace {

// Plain (generic) dicts and lists: what Python's torch.load reads back as dict and list.
c10::impl::GenericDict newDict() {
  return c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get());
}

// The key of a parameter's optimizer state: the TensorImpl's address printed as a string in
// LibTorch 1.x, the address itself in 2.x.
using StateKey = std::decay_t<decltype(std::declval<torch::optim::Optimizer&>().state())>::key_type;
template <class Key>
Key stateKeyOf(c10::TensorImpl* impl) {
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream s;
    s << static_cast<const void*>(impl);
    return s.str();
  } else {
    return impl;
  }
}
StateKey paramKey(const torch::Tensor& p) {
  return stateKeyOf<StateKey>(p.unsafeGetTensorImpl());
}

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error(path + ": " + why);
}

// PySlowFast: for each pattern in order, k.replace(pattern, "", 1) when the pattern occurs.
std::string clearName(std::string name, const std::vector<std::string>& patterns) {
  for (const auto& pat : patterns)
    if (const auto at = name.find(pat); !pat.empty() && at != std::string::npos)
      name.erase(at, pat.size());
  return name;
}

std::string shapeText(const torch::Tensor& t) {
  std::string s;
  for (const auto d : t.sizes()) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

// What PySlowFast's load_checkpoint does with an entry whose shape differs from the model's:
// inflation of a 2D weight (TRAIN.CHECKPOINT_INFLATE), or interpolation of MViT's relative
// positions (linear over the length) and positional embeddings (linear over time, bicubic over the
// square spatial grid). Undefined when none applies.
torch::Tensor fitLikePySlowFast(const std::string& name, const torch::Tensor& v,
                                const torch::Tensor& dst, bool inflate) {
  namespace F = torch::nn::functional;
  const auto x = v.to(torch::kFloat);
  if (inflate) {
    if (v.dim() == 4 && dst.dim() == 5 && v.size(0) == dst.size(0) && v.size(1) == dst.size(1) &&
        v.size(2) == dst.size(3) && v.size(3) == dst.size(4)) {
      const auto t = dst.size(2);
      return x.unsqueeze(2).repeat({1, 1, t, 1, 1}) / static_cast<double>(t);
    }
    return {};
  }
  if (name.find("attn.rel_pos") != std::string::npos && v.dim() == 2 && dst.dim() == 2)
    return F::interpolate(x.t().unsqueeze(0), F::InterpolateFuncOptions()
                                                  .size(std::vector<int64_t>{dst.size(0)})
                                                  .mode(torch::kLinear)
                                                  .align_corners(false))[0]
        .t();
  if (name.find("pos_embed_temporal") != std::string::npos && v.dim() == 3 && dst.dim() == 3)
    return F::interpolate(x.permute({0, 2, 1}), F::InterpolateFuncOptions()
                                                    .size(std::vector<int64_t>{dst.size(1)})
                                                    .mode(torch::kLinear)
                                                    .align_corners(false))
        .permute({0, 2, 1});
  if (name.find("pos_embed_spatial") != std::string::npos && v.dim() == 3 && dst.dim() == 3) {
    const auto from = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(v.size(1)))));
    const auto to = static_cast<int64_t>(std::lround(std::sqrt(static_cast<double>(dst.size(1)))));
    if (from * from != v.size(1) || to * to != dst.size(1)) return {};
    return F::interpolate(x.reshape({1, from, from, -1}).permute({0, 3, 1, 2}),
                          F::InterpolateFuncOptions()
                              .size(std::vector<int64_t>{to, to})
                              .mode(torch::kBicubic)
                              .align_corners(false))
        .reshape({1, -1, to * to})
        .permute({0, 2, 1});
  }
  return {};
}

// Adam and AdamW keep the same per-parameter state under different types.
template <class State>
void saveAdamState(const State& st, c10::impl::GenericDict& s) {
  s.insert("step", torch::tensor(static_cast<double>(st.step())));
  s.insert("exp_avg", st.exp_avg().cpu());
  s.insert("exp_avg_sq", st.exp_avg_sq().cpu());
  if (st.max_exp_avg_sq().defined()) s.insert("max_exp_avg_sq", st.max_exp_avg_sq().cpu());
}

template <class State, class Get>
std::unique_ptr<State> loadAdamState(int64_t step, const Get& tensor, bool amsgrad) {
  auto st = std::make_unique<State>();
  st->step(step);
  st->exp_avg(tensor("exp_avg"));
  st->exp_avg_sq(tensor("exp_avg_sq"));
  if (amsgrad) st->max_exp_avg_sq(tensor("max_exp_avg_sq"));
  return st;
}

// PyTorch's optimizer.state_dict(): {"state": {index: {...}}, "param_groups": [{..., "params":
// [index...]}]}.
c10::IValue optimizerState(const torch::optim::Optimizer& opt,
                           const std::vector<double>& layerDecay) {
  c10::impl::GenericDict state(c10::IntType::get(), c10::AnyType::get());
  c10::impl::GenericList groups(c10::AnyType::get());
  int64_t index = 0;
  for (const auto& group : opt.param_groups()) {
    auto g = newDict();
    c10::List<int64_t> ids;
    const auto& o = group.options();
    g.insert("lr", o.get_lr());
    if (const auto* s = dynamic_cast<const torch::optim::SGDOptions*>(&o)) {
      g.insert("momentum", s->momentum());
      g.insert("dampening", s->dampening());
      g.insert("weight_decay", s->weight_decay());
      g.insert("nesterov", s->nesterov());
    } else if (const auto* a = dynamic_cast<const torch::optim::AdamOptions*>(&o)) {
      g.insert("betas",
               c10::ivalue::Tuple::create({std::get<0>(a->betas()), std::get<1>(a->betas())}));
      g.insert("eps", a->eps());
      g.insert("weight_decay", a->weight_decay());
      g.insert("amsgrad", a->amsgrad());
    } else if (const auto* w = dynamic_cast<const torch::optim::AdamWOptions*>(&o)) {
      g.insert("betas",
               c10::ivalue::Tuple::create({std::get<0>(w->betas()), std::get<1>(w->betas())}));
      g.insert("eps", w->eps());
      g.insert("weight_decay", w->weight_decay());
      g.insert("amsgrad", w->amsgrad());
    }
    for (const auto& p : group.params()) {
      ids.push_back(index);
      const auto it = opt.state().find(paramKey(p));
      if (it != opt.state().end()) {
        auto s = newDict();
        if (const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(it->second.get())) {
          if (sgd->momentum_buffer().defined())
            s.insert("momentum_buffer", sgd->momentum_buffer().cpu());
        } else if (const auto* adam =
                       dynamic_cast<const torch::optim::AdamParamState*>(it->second.get())) {
          saveAdamState(*adam, s);
        } else if (const auto* adamw =
                       dynamic_cast<const torch::optim::AdamWParamState*>(it->second.get())) {
          saveAdamState(*adamw, s);
        }
        if (s.size()) state.insert(index, s);
      }
      ++index;
    }
    // PySlowFast's construct_optimizer keys: its set_lr multiplies by layer_decay, so a group
    // without it cannot be resumed by train_net.py (KeyError). No LARS here.
    g.insert("layer_decay", groups.size() < layerDecay.size() ? layerDecay[groups.size()] : 1.0);
    g.insert("apply_LARS", false);
    g.insert("params", ids);
    groups.push_back(g);
  }
  auto out = newDict();
  out.insert("state", state);
  out.insert("param_groups", groups);
  return out;
}

void restoreOptimizer(const std::string& path, const c10::IValue& value,
                      torch::optim::Optimizer& opt) {
  if (!value.isGenericDict()) fail(path, "optimizer_state is not a dict");
  const auto d = value.toGenericDict();
  if (!d.contains("state") || !d.contains("param_groups"))
    fail(path, "optimizer_state lacks state / param_groups");
  const auto groups = d.at("param_groups").toList();
  if (groups.size() != opt.param_groups().size())
    fail(path, "the optimizer has " + std::to_string(opt.param_groups().size()) +
                   " parameter groups, the checkpoint " + std::to_string(groups.size()) +
                   " (a different model or SOLVER settings?)");
  std::vector<torch::Tensor> params;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto ids = groups.get(g).toGenericDict().at("params").toList();
    auto& group = opt.param_groups()[g];
    if (ids.size() != group.params().size())
      fail(path, "parameter group " + std::to_string(g) + " holds " +
                     std::to_string(group.params().size()) + " tensors here and " +
                     std::to_string(ids.size()) + " in the checkpoint");
    for (const auto& p : group.params()) params.push_back(p);
    group.options().set_lr(groups.get(g).toGenericDict().at("lr").toDouble());
  }
  opt.state().clear();
  for (const auto& entry : d.at("state").toGenericDict()) {
    const int64_t i = entry.key().toInt();
    if (i < 0 || i >= static_cast<int64_t>(params.size()))
      fail(path, "optimizer state for unknown parameter " + std::to_string(i));
    const auto& p = params[static_cast<size_t>(i)];
    const auto s = entry.value().toGenericDict();
    auto tensor = [&](const char* k) {
      const auto v = s.at(k).toTensor();
      if (v.sizes() != p.sizes())
        fail(path, std::string("optimizer state ") + k + " of parameter " + std::to_string(i) +
                       " is " + shapeText(v) + ", the parameter " + shapeText(p) +
                       " (parameter groups in another order or another model?)");
      return v.to(p.device());
    };
    if (s.contains("momentum_buffer")) {
      auto st = std::make_unique<torch::optim::SGDParamState>();
      st->momentum_buffer(tensor("momentum_buffer"));
      opt.state()[paramKey(p)] = std::move(st);
    } else if (s.contains("exp_avg")) {
      const auto step =
          static_cast<int64_t>(s.at("step").isTensor() ? s.at("step").toTensor().item<double>()
                                                       : s.at("step").toDouble());
      if (dynamic_cast<const torch::optim::AdamWOptions*>(&opt.param_groups()[0].options()))
        opt.state()[paramKey(p)] = loadAdamState<torch::optim::AdamWParamState>(
            step, tensor, s.contains("max_exp_avg_sq"));
      else
        opt.state()[paramKey(p)] =
            loadAdamState<torch::optim::AdamParamState>(step, tensor, s.contains("max_exp_avg_sq"));
    }
  }
}

}  // namespace

std::string checkpointFileName(const CheckpointInfo& info) {
  char suffix[64];
  if (info.iter_in_epoch == 0)
    std::snprintf(suffix, sizeof suffix, "%05d.pyth", info.epochs_done);
  else
    std::snprintf(suffix, sizeof suffix, "%05d_step_%08lld.pyth", info.epochs_done,
                  static_cast<long long>(info.global_step));
  return runlog::checkpointNamePrefix(info.task) + suffix;
}

std::vector<std::string> listCheckpoints(const std::string& runDir, const std::string& task) {
  return runlog::listCheckpointFiles(runDir, task);
}

std::string latestCheckpoint(const std::string& runDir, const std::string& task) {
  return runlog::latestCheckpointFile(runDir, task);
}

std::string saveCheckpoint(const std::string& runDir, torch::nn::Module& net,
                           const torch::optim::Optimizer* optimizer,
                           const precision::GradScaler* scaler, CheckpointInfo info) {
  torch::NoGradGuard noGrad;
  auto model = newDict();
  for (const auto& p : net.named_parameters())
    model.insert(p.key(), p.value().detach().cpu().contiguous());
  for (const auto& b : net.named_buffers())
    model.insert(b.key(), b.value().detach().cpu().contiguous());
  auto ck = newDict();
  ck.insert("model_state", model);
  if (optimizer) ck.insert("optimizer_state", optimizerState(*optimizer, info.layer_decay));
  ck.insert("epoch",
            static_cast<int64_t>(info.epochs_done - 1));  // PySlowFast: the last finished epoch
  if (scaler) {
    auto s = newDict();
    for (const auto& [k, v] : scaler->stateDict()) {
      if (k == "growth_interval" || k == "_growth_tracker")
        s.insert(k, static_cast<int64_t>(v));
      else
        s.insert(k, v);
    }
    ck.insert("scaler_state", s);
  }
  ck.insert("cfg", info.cfg_yaml);
  ck.insert("global_step", info.global_step);
  ck.insert("iter_in_epoch", info.iter_in_epoch);
  ck.insert("best_top1_err", info.best_top1_err);
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    ck.insert("rng_state", gen.get_state());
  }
  ck.insert("writer", std::string("AMP Studio ") + AMPSTUDIO_VERSION);
  const auto bytes = torch::pickle_save(c10::IValue(ck));
  const fs::path path = fs::path(runDir) / "checkpoints" / checkpointFileName(info);
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::string err;
  if (!util::writeFileAtomically(path.string(), std::string(bytes.begin(), bytes.end()), &err,
                                 "checkpoint"))
    throw std::runtime_error(err);
  return path.string();
}

namespace {

// Whether the rule `pattern` can match n at all, for the unanchored "(.*)X" rules: without a
// match std::regex tries every start position and scans the rest from each (length^2: 3 ms a
// rule for 256 characters, 1 ms a name even for real 32-character names). These conditions are
// necessary, and where one holds the rule itself decides, so names convert exactly as before.
bool caffe2RuleMayMatch(const std::string& pattern, const std::string& n) {
  auto endsWith = [&n](const std::string& sfx) {
    return n.size() >= sfx.size() && n.compare(n.size() - sfx.size(), sfx.size(), sfx) == 0;
  };
  auto bnThen = [&](const std::string& sfx) {  // "(.*)bn.SFX$"
    return endsWith(sfx) && n.size() >= sfx.size() + 3 &&
           n.compare(n.size() - sfx.size() - 3, 2, "bn") == 0;
  };
  auto separatorThen = [&n](char c) {  // "(.*)[\\._]C$"
    return n.size() >= 2 && n.back() == c && (n[n.size() - 2] == '.' || n[n.size() - 2] == '_');
  };
  if (pattern == "(.*)b_bn_fc(.*)") return n.find("b_bn_fc") != std::string::npos;
  if (pattern == "(.*)bn.b$") return bnThen("b");
  if (pattern == "(.*)bn.s$") return bnThen("s");
  if (pattern == "(.*)bn.rm$") return bnThen("rm");
  if (pattern == "(.*)bn.riv$") return bnThen("riv");
  if (pattern == "(.*)[\\._]b$") return separatorThen('b');
  if (pattern == "(.*)[\\._]w$") return separatorThen('w');
  return true;
}

}  // namespace

std::string convertCaffe2Name(const std::string& name) {
  // PySlowFast's get_name_convert_func: each rule a re.sub over the whole name, in this order.
  struct Rule {
    std::string pattern;
    std::regex re;
    std::string to;
  };
  static const std::vector<Rule> rules = [] {
    const char* table[][2] = {
        {"^nonlocal_conv([0-9]+)_([0-9]+)_(.*)", "s$1.pathway0_nonlocal$2_$3"},
        {"^(.*)_nonlocal([0-9]+)_(theta)(.*)", "$1_nonlocal$2.conv_$3$4"},
        {"^(.*)_nonlocal([0-9]+)_(g)(.*)", "$1_nonlocal$2.conv_$3$4"},
        {"^(.*)_nonlocal([0-9]+)_(phi)(.*)", "$1_nonlocal$2.conv_$3$4"},
        {"^(.*)_nonlocal([0-9]+)_(out)(.*)", "$1_nonlocal$2.conv_$3$4"},
        {"^(.*)_nonlocal([0-9]+)_(bn)_(.*)", "$1_nonlocal$2.$3.$4"},
        {"^t_pool1_subsample_bn_(.*)", "s1_fuse.bn.$1"},
        {"^t_pool1_subsample_(.*)", "s1_fuse.conv_f2s.$1"},
        {"^t_res([0-9]+)_([0-9]+)_branch2c_bn_subsample_bn_(.*)", "s$1_fuse.bn.$3"},
        {"^t_res([0-9]+)_([0-9]+)_branch2c_bn_subsample_(.*)", "s$1_fuse.conv_f2s.$3"},
        {"^res([0-9]+)_([0-9]+)_branch([0-9]+)([a-z])_(.*)", "s$1.pathway0_res$2.branch$3.$4_$5"},
        {"^res_conv1_bn_(.*)", "s1.pathway0_stem.bn.$1"},
        {"^conv1_xy(.*)", "s1.pathway0_stem.conv_xy$1"},
        {"^conv1_(.*)", "s1.pathway0_stem.conv.$1"},
        {"^res([0-9]+)_([0-9]+)_branch([0-9]+)_(.*)", "s$1.pathway0_res$2.branch$3_$4"},
        {"^res_conv1_(.*)", "s1.pathway0_stem.conv.$1"},
        {"^t_res([0-9]+)_([0-9]+)_branch([0-9]+)([a-z])_(.*)", "s$1.pathway1_res$2.branch$3.$4_$5"},
        {"^t_res_conv1_bn_(.*)", "s1.pathway1_stem.bn.$1"},
        {"^t_conv1_(.*)", "s1.pathway1_stem.conv.$1"},
        {"^t_res([0-9]+)_([0-9]+)_branch([0-9]+)_(.*)", "s$1.pathway1_res$2.branch$3_$4"},
        {"^t_res_conv1_(.*)", "s1.pathway1_stem.conv.$1"},
        {"pred_(.*)", "head.projection.$1"},
        {"(.*)b_bn_fc(.*)", "$1se.fc$2"},
        {"conv_5(.*)", "head.conv_5$1"},
        {"lin_5(.*)", "head.lin_5$1"},
        {"(.*)bn.b$", "$1bn.bias"},  // "." is any character here, as in PySlowFast
        {"(.*)bn.s$", "$1bn.weight"},
        {"(.*)bn.rm$", "$1bn.running_mean"},
        {"(.*)bn.riv$", "$1bn.running_var"},
        {"(.*)[\\._]b$", "$1.bias"},
        {"(.*)[\\._]w$", "$1.weight"},
    };
    std::vector<Rule> out;
    for (const auto& r : table) out.push_back({r[0], std::regex(r[0]), r[1]});
    return out;
  }();
  // libstdc++'s regex matcher recurses once per character (a 100 KB name overflows the stack):
  // a name no Caffe2 model has is refused before any rule runs. loadCaffe2Blobs refuses such
  // names already; this keeps every caller safe.
  if (name.size() > checkpoint::kMaxCaffe2BlobName)
    throw std::runtime_error(
        "a Caffe2 blob name of " + std::to_string(name.size()) + " characters (" +
        name.substr(0, 40) + "...); Caffe2 names are at most " +
        std::to_string(checkpoint::kMaxCaffe2BlobName) + ": refused before renaming");
  std::string n = name;
  for (const auto& r : rules)
    if (caffe2RuleMayMatch(r.pattern, n)) n = std::regex_replace(n, r.re, r.to);
  return n;
}

namespace {

// PySlowFast's load_checkpoint(convert_from_caffe2=True).
CheckpointInfo loadCaffe2(const std::string& path, torch::nn::Module& net) {
  torch::NoGradGuard noGrad;
  CheckpointInfo info;
  info.path = path;
  info.epochs_done = 0;  // epoch -1: training starts at epoch 0
  std::map<std::string, torch::Tensor> model;
  for (auto& p : net.named_parameters()) model[p.key()] = p.value();
  for (auto& b : net.named_buffers()) model[b.key()] = b.value();
  std::set<std::string> loaded;
  for (auto& [key, blob] : checkpoint::loadCaffe2Blobs(path)) {
    std::string name = convertCaffe2Name(key);
    if (name.find("bn.running_") != std::string::npos && !model.count(name)) {
      const std::string split =
          std::regex_replace(name, std::regex("bn\\.running_"), "bn.split_bn.running_");
      name = model.count(split) ? split : std::string();
    }
    const auto it = name.empty() ? model.end() : model.find(name);
    if (it == model.end()) {
      if (key.find("momentum") == std::string::npos && key.find("lr") == std::string::npos &&
          key.find("model_iter") == std::string::npos)
        info.notes.push_back(key + ": can not be converted, got " + (name.empty() ? "None" : name));
      continue;
    }
    torch::Tensor& dst = it->second;
    torch::Tensor src = blob;
    if (src.dim() < dst.dim()) {  // a linear layer's weights for a 1x1x1 convolution
      std::vector<std::int64_t> shape = src.sizes().vec();
      shape.resize(static_cast<std::size_t>(dst.dim()), 1);
      src = src.reshape(shape);
    }
    if (src.dim() == 1 && dst.dim() == 1 && dst.size(0) > src.size(0) &&
        dst.size(0) % src.size(0) == 0)
      src = src.repeat({dst.size(0) / src.size(0)});  // statistics for a split batch norm
    if (src.sizes() != dst.sizes()) {
      info.notes.push_back(key + ": " + shapeText(blob) + " does not match " + name + ": " +
                           shapeText(dst));
      continue;
    }
    dst.copy_(src);
    loaded.insert(name);
  }
  if (loaded.empty())
    fail(path,
         "no Caffe2 blob of the file fits this model (another MODEL.ARCH, or not a Caffe2 "
         "checkpoint?)");
  for (const auto& [name, t] : model)
    if (!loaded.count(name) && name.find("num_batches_tracked") == std::string::npos)
      info.notes.push_back(name + ": not in the file, keeps its initialisation");
  return info;
}

}  // namespace

CheckpointInfo loadCheckpoint(const std::string& path, const LoadTargets& t) {
  if (t.caffe2) {
    if (!t.net) fail(path, "a Caffe2 checkpoint holds weights only");
    return loadCaffe2(path, *t.net);
  }
  const c10::IValue value = checkpoint::loadTorchFile(path);
  if (!value.isGenericDict()) fail(path, "not a checkpoint dict");
  auto ck = value.toGenericDict();
  CheckpointInfo info;
  info.path = path;
  c10::impl::GenericDict modelState = ck;
  if (ck.contains("model_state") && ck.at("model_state").isGenericDict()) {
    modelState = ck.at("model_state").toGenericDict();
  } else {
    // torch.save(model.state_dict()): the weights alone, no epoch, optimizer or scaler
    for (const auto& e : ck)
      if (!e.key().isString() || !e.value().isTensor())
        fail(path,
             "no model_state in the checkpoint, and it is not a bare state dict of tensors either");
    ck = c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get());
    info.notes.push_back(
        "the file holds weights only (a bare state dict): no epoch, optimizer or scaler state");
  }
  if (ck.contains("epoch") && ck.at("epoch").isInt())
    info.epochs_done = static_cast<int>(ck.at("epoch").toInt()) + 1;
  if (ck.contains("global_step") && ck.at("global_step").isInt())
    info.global_step = ck.at("global_step").toInt();
  if (ck.contains("iter_in_epoch") && ck.at("iter_in_epoch").isInt())
    info.iter_in_epoch = ck.at("iter_in_epoch").toInt();
  if (ck.contains("best_top1_err") && ck.at("best_top1_err").isDouble())
    info.best_top1_err = ck.at("best_top1_err").toDouble();
  if (ck.contains("cfg") && ck.at("cfg").isString()) info.cfg_yaml = ck.at("cfg").toStringRef();

  if (t.net) {
    torch::NoGradGuard noGrad;
    std::map<std::string, torch::Tensor> saved;
    std::size_t renamed = 0;
    std::string firstRename;
    for (const auto& e : modelState) {
      if (!e.key().isString() || !e.value().isTensor())
        fail(path, "model_state holds something other than named tensors");
      const std::string& original = e.key().toStringRef();
      const std::string name = clearName(original, t.clear_name_patterns);
      if (name != original && renamed++ == 0) firstRename = original + " -> " + name;
      saved[name] = e.value().toTensor();
    }
    if (renamed)  // one line, not one per weight as PySlowFast's log
      info.notes.push_back("renaming: " + firstRename +
                           (renamed > 1 ? " and " + std::to_string(renamed - 1) +
                                              " more (TRAIN.CHECKPOINT_CLEAR_NAME_PATTERN)"
                                        : ""));
    std::vector<std::string> missing, wrong;
    std::size_t loaded = 0;
    auto copy = [&](const std::string& name, torch::Tensor& dst) {
      const auto it = saved.find(name);
      if (it == saved.end()) return missing.push_back(name);
      if (t.subset && it->second.sizes() != dst.sizes()) {
        if (auto fitted = fitLikePySlowFast(name, it->second, dst, t.inflate); fitted.defined()) {
          info.notes.push_back((t.inflate ? "inflate " : "") + name + ": " + shapeText(it->second) +
                               " reshaped to " + shapeText(fitted));
          it->second = fitted;
        }
      }
      if (it->second.sizes() != dst.sizes()) {
        wrong.push_back(name + ": " + shapeText(it->second) + " in the file, " + shapeText(dst) +
                        " here");
        saved.erase(it);
        return;
      }
      dst.copy_(it->second);  // casts: half or bfloat16 weights load into a float model
      saved.erase(it);
      ++loaded;
    };
    for (auto& p : t.net->named_parameters()) copy(p.key(), p.value());
    for (auto& b : t.net->named_buffers()) copy(b.key(), b.value());
    std::vector<std::string> extra;
    for (const auto& [k, v] : saved) extra.push_back(k);
    if (t.inflate && !extra.empty())  // PySlowFast's inflate_weight asserts every entry has a place
      fail(path, "TRAIN.CHECKPOINT_INFLATE: " + extra.front() +
                     " of the file is not in this model" +
                     (extra.size() > 1 ? " (and " + std::to_string(extra.size() - 1) + " more)"
                                       : std::string()));
    if (t.subset) {
      if (loaded == 0)
        fail(
            path,
            "no weight of the checkpoint fits this model (another MODEL.ARCH / MODEL.MODEL_NAME?)" +
                (missing.empty() ? std::string() : "; the model wants e.g. " + missing.front()) +
                (extra.empty() ? std::string() : ", the file holds e.g. " + extra.front()));
      for (const auto& w : wrong)
        info.notes.push_back(w + ": not loaded, keeps its initialisation");
      for (const auto& m : missing)
        if (m.find("num_batches_tracked") == std::string::npos)
          info.notes.push_back(m + ": not in the file, keeps its initialisation");
      for (const auto& x : extra)
        info.notes.push_back(x + ": in the file, not in this model: not used");
    } else if (!missing.empty() || !wrong.empty() || !extra.empty()) {
      std::string why = "the checkpoint does not fit this model (another MODEL / size config?)";
      auto list = [&](const char* what, const std::vector<std::string>& v) {
        if (v.empty()) return;
        why += std::string("; ") + what + ": " + v[0];
        if (v.size() > 1) why += " and " + std::to_string(v.size() - 1) + " more";
      };
      list("missing from the file", missing);
      list("wrong shape", wrong);
      list("not in this model", extra);
      fail(path, why);
    }
  }
  if (t.optimizer && ck.contains("optimizer_state"))
    restoreOptimizer(path, ck.at("optimizer_state"), *t.optimizer);
  if (t.scaler && t.scaler->enabled() && ck.contains("scaler_state") &&
      ck.at("scaler_state").isGenericDict()) {
    std::map<std::string, double>
        s;  // empty when it was saved with the scaler off: start afresh then
    for (const auto& e : ck.at("scaler_state").toGenericDict())
      s[e.key().toStringRef()] =
          e.value().isInt() ? static_cast<double>(e.value().toInt()) : e.value().toDouble();
    if (!s.empty()) t.scaler->loadStateDict(s);
  }
  if (t.rng && ck.contains("rng_state")) {
    auto gen = at::detail::getDefaultCPUGenerator();  // a handle on the shared generator
    gen.set_state(ck.at("rng_state").toTensor());
  }
  return info;
}

}  // namespace amp::train
