#include "dist/GradientReducer.h"

#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <mutex>

#include "dist/Communicator.h"

namespace amp::dist {

struct GradientReducer::State {
  struct Bucket {
    std::vector<std::size_t> params;  // indices into `params`
    std::size_t pending = 0;
    bool launched = false;
    torch::Tensor flat;
    c10::intrusive_ptr<c10d::Work> work;
  };
  Communicator* comm = nullptr;
  std::vector<torch::Tensor> params;
  std::vector<std::size_t> bucketOf;
  std::vector<char> hadGrad;  // per parameter: a gradient of its own when its bucket launched
  std::vector<Bucket> buckets;
  std::size_t nextToLaunch = 0;
  bool armed = false;
  bool alive = true;
  int launchedInBackward = 0;
  std::size_t bytes = 0;
  std::mutex mutex;

  void reset() {
    for (auto& b : buckets) {
      b.pending = b.params.size();
      b.launched = false;
      b.flat = torch::Tensor();
      b.work.reset();
    }
    nextToLaunch = 0;
    launchedInBackward = 0;
    bytes = 0;
  }

  // The bucket's gradients, each divided by the world size (DDP averages before summing), in one
  // flat buffer; a parameter without a gradient this step contributes zeros, and gets them.
  void launch(Bucket& b) {
    torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> grads;
    for (std::size_t i : b.params) {
      auto& p = params[i];
      hadGrad[i] = p.grad().defined();
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      grads.push_back(p.grad());
    }
    b.flat = flatten(grads).div_(static_cast<double>(comm->size()));
    bytes += static_cast<std::size_t>(b.flat.numel()) * b.flat.element_size();
    std::vector<torch::Tensor> t{b.flat};
    b.work = comm->allreduceAsync(t, Reduce::Sum);
    b.launched = true;
  }

  // Launches every bucket that is complete, in bucket order.
  void launchReady(bool inBackward) {
    while (nextToLaunch < buckets.size() && buckets[nextToLaunch].pending == 0) {
      launch(buckets[nextToLaunch]);
      if (inBackward) ++launchedInBackward;
      ++nextToLaunch;
    }
  }

  void gradientReady(std::size_t param) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!alive || !armed) return;
    auto& b = buckets[bucketOf[param]];
    if (b.pending == 0) return;  // a second accumulation in one backward (not expected)
    --b.pending;
    launchReady(true);
  }
};

namespace {

class ReadyHook : public torch::autograd::FunctionPostHook {
 public:
  ReadyHook(std::shared_ptr<GradientReducer::State> state, std::size_t index)
      : state_(std::move(state)), index_(index) {}
  torch::autograd::variable_list operator()(
      const torch::autograd::variable_list& outputs,
      const torch::autograd::variable_list& /*inputs*/) override {
    state_->gradientReady(index_);
    return outputs;
  }

 private:
  std::shared_ptr<GradientReducer::State> state_;
  std::size_t index_;
};

}  // namespace

GradientReducer::GradientReducer(Communicator& comm, std::vector<torch::Tensor> params,
                                 std::vector<torch::Tensor> buffers, std::size_t bucketBytes)
    : comm_(comm), buffers_(std::move(buffers)), state_(std::make_shared<State>()) {
  state_->comm = &comm;
  for (auto& p : params)
    if (p.requires_grad()) state_->params.push_back(p);
  const auto& ps = state_->params;
  state_->bucketOf.resize(ps.size());
  state_->hadGrad.assign(ps.size(), 1);
  // Reverse registration order: the last layers' gradients are ready first. A bucket holds one
  // dtype and device, and closes once it passes bucketBytes.
  std::size_t bytes = 0;
  for (std::size_t k = ps.size(); k-- > 0;) {
    const auto& p = ps[k];
    auto& bs = state_->buckets;
    const bool sameKind = !bs.empty() &&
                          ps[bs.back().params.front()].scalar_type() == p.scalar_type() &&
                          ps[bs.back().params.front()].device() == p.device();
    if (bs.empty() || bytes >= bucketBytes || !sameKind) {
      bs.emplace_back();
      bytes = 0;
    }
    bs.back().params.push_back(k);
    state_->bucketOf[k] = bs.size() - 1;
    bytes += static_cast<std::size_t>(p.numel()) * p.element_size();
  }
  state_->reset();
  for (std::size_t k = 0; k < ps.size(); ++k) {
    auto acc = torch::autograd::impl::grad_accumulator(ps[k]);
    acc->add_post_hook(std::make_unique<ReadyHook>(state_, k));
    accumulators_.push_back(std::move(acc));
  }
}

GradientReducer::~GradientReducer() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->alive = false;
}

std::size_t GradientReducer::bucketCount() const {
  return state_->buckets.size();
}

std::vector<std::vector<std::size_t>> GradientReducer::bucketLayout() const {
  std::vector<std::vector<std::size_t>> out;
  for (const auto& b : state_->buckets) out.push_back(b.params);
  return out;
}

void GradientReducer::broadcastState() {
  std::vector<torch::Tensor> all = state_->params;
  all.insert(all.end(), buffers_.begin(), buffers_.end());
  torch::NoGradGuard noGrad;
  comm_.broadcast(all, 0, "broadcast of rank 0's parameters and buffers");
}

void GradientReducer::beforeForward(bool lastMicroBatch) {
  if (!buffers_.empty()) {
    torch::NoGradGuard noGrad;
    comm_.broadcast(buffers_, 0, "broadcast of rank 0's buffers");
  }
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->armed = lastMicroBatch;
  if (lastMicroBatch) state_->reset();
}

void GradientReducer::finish() {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.armed = false;
    // Buckets not complete now hold parameters that got no gradient in this backward (or the
    // whole step was skipped here): launch them in order all the same, as every rank does.
    for (std::size_t b = s.nextToLaunch; b < s.buckets.size(); ++b) {
      s.buckets[b].pending = 0;
    }
    s.launchReady(false);
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& b : s.buckets) comm_.wait(b.work, "all-reduce of the gradients");
  if (timeOnDevice_ && !s.buckets.empty() && s.buckets.front().flat.is_cuda())
    torch::cuda::synchronize();
  stats_.wait_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  torch::NoGradGuard noGrad;
  for (auto& b : s.buckets) {
    std::vector<torch::Tensor> grads;
    for (std::size_t i : b.params) grads.push_back(s.params[i].mutable_grad());
    unflattenInto(b.flat, grads);
    b.flat = torch::Tensor();
    b.work.reset();
  }
  if (findUnused_) dropGloballyUnusedGradients();
  stats_.buckets = static_cast<int>(s.buckets.size());
  stats_.launched_in_backward = s.launchedInBackward;
  stats_.bytes = s.bytes;
}

// DDP with find_unused_parameters leaves a parameter that no rank used without a gradient; the
// bucket gave it zeros, which SGD's weight decay and momentum would still apply.
void GradientReducer::dropGloballyUnusedGradients() {
  State& s = *state_;
  if (s.params.empty()) return;  // the same model on every rank: all return here, or none
  torch::NoGradGuard noGrad;
  std::vector<float> had(s.hadGrad.begin(), s.hadGrad.end());
  auto used = torch::tensor(had);  // the communicator moves it where its backend wants it
  comm_.allreduce(used, Reduce::Sum, "agreement on the parameters without gradients");
  const float* n = used.data_ptr<float>();
  for (std::size_t i = 0; i < s.params.size(); ++i)
    if (n[i] == 0.0f) s.params[i].mutable_grad() = torch::Tensor();
}

bool GradientReducer::allTrue(bool flag) {
  return comm_.allreduce(flag ? 1.0 : 0.0, Reduce::Min, "agreement on a finite loss") > 0.5;
}

}  // namespace amp::dist
