#include "dist/Communicator.h"

#include <torch/version.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#endif
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#if defined(AMPSTUDIO_WITH_GLOO)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if defined(AMPSTUDIO_WITH_NCCL)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <cstdlib>
#include <map>

namespace amp::dist {
namespace {

// The class that carries collectives: ProcessGroup in LibTorch 1.x, Backend in 2.x (where a
// ProcessGroup dispatches to backends by device).
#if TORCH_VERSION_MAJOR >= 2
using Backend = c10d::Backend;
#else
using Backend = c10d::ProcessGroup;
#endif

c10d::ReduceOp reduceOp(Reduce op) {
  switch (op) {
    case Reduce::Max:
      return c10d::ReduceOp::MAX;
    case Reduce::Min:
      return c10d::ReduceOp::MIN;
    case Reduce::Sum:
      break;
  }
  return c10d::ReduceOp::SUM;
}

[[maybe_unused]] bool isLoopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

struct Communicator::Impl {
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<Backend> group;
};

Communicator::Communicator(const DistEnv& env, const std::string& backend,
                           std::chrono::milliseconds timeout)
    : env_(env), impl_(std::make_unique<Impl>()) {
  std::string host = "127.0.0.1";
  try {
    if (env.init_method.rfind("file://", 0) == 0) {
      impl_->store =
          c10::make_intrusive<c10d::FileStore>(env.init_method.substr(7), env.world_size);
      impl_->store->setTimeout(timeout);
    } else {
      int port = 0;
      std::string error;
      if (!parseTcpInitMethod(env.init_method, host, port, &error))
        throw std::runtime_error("--init-method: " + error);
      c10d::TCPStoreOptions o;
      o.port = static_cast<std::uint16_t>(port);
      // Under torchrun's agent store the agent serves it (on MASTER_PORT) and rank 0 is a client
      // too.
      o.isServer = env.rank == 0 && env.agent_store_prefix.empty();
      o.numWorkers = static_cast<std::size_t>(env.world_size);
      o.waitWorkers = true;
      o.timeout = timeout;
      impl_->store = c10::make_intrusive<c10d::TCPStore>(host, o);
      if (!env.agent_store_prefix.empty())
        impl_->store = c10::make_intrusive<c10d::PrefixStore>(env.agent_store_prefix, impl_->store);
    }
  } catch (const c10::Error& e) {
    const char* hint =
        !env.agent_store_prefix.empty() ? "; is torchrun's agent still running and reachable?"
        : env.rank == 0
            ? "; is the port already in use? (pass --init-method tcp://HOST:ANOTHER_PORT)"
            : "; is rank 0 running and reachable?";
    throw std::runtime_error("distributed: " + env.describe() +
                             " could not meet the other ranks at " + env.init_method + ": " +
                             e.what_without_backtrace() + hint);
  }
  try {
    if (backend == "nccl") {
#if defined(AMPSTUDIO_WITH_NCCL)
      auto options = c10d::ProcessGroupNCCL::Options::create();
      options->timeout = timeout;
      impl_->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(impl_->store, env.rank,
                                                                 env.world_size, options);
      backendName_ = "nccl";
#else
      throw std::runtime_error(
          "DIST_BACKEND: nccl, but this LibTorch is built without NCCL; set DIST_BACKEND gloo");
#endif
    } else {
#if !defined(AMPSTUDIO_WITH_GLOO)
      throw std::runtime_error(
          "this build has no Gloo (configured without it, or its LibTorch came without Gloo's "
          "headers): "
          "CPU processes cannot meet; on GPUs set DIST_BACKEND nccl");
#else
      auto options = c10d::ProcessGroupGloo::Options::create(timeout);
      // GLOO_SOCKET_IFNAME picks the network interface, as in PyTorch; a job on one machine talks
      // over loopback; otherwise the address this host's name resolves to.
      if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"))
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      else if (isLoopback(host))
        options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      else
        options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, env.rank,
                                                                 env.world_size, options);
      backendName_ = "gloo";
#endif
    }
  } catch (const c10::Error& e) {
    throw std::runtime_error("distributed: " + env.describe() + " could not form the " + backend +
                             " process group: " + e.what_without_backtrace());
  }
}

Communicator::~Communicator() = default;

void Communicator::fail(const char* what, const std::string& why) const {
  throw std::runtime_error(
      "distributed: " + std::string(what) + " failed on rank " + std::to_string(env_.rank) +
      " of " + std::to_string(env_.world_size) + ": " + why +
      " (another rank has probably died or stalled past DIST.TIMEOUT_S; its own log says why)");
}

c10::intrusive_ptr<c10d::Work> Communicator::allreduceAsync(std::vector<torch::Tensor>& tensors,
                                                            Reduce op) {
  c10d::AllreduceOptions o;
  o.reduceOp = reduceOp(op);
  try {
    return impl_->group->allreduce(tensors, o);
  } catch (const c10::Error& e) {
    fail("all-reduce", e.what_without_backtrace());
  }
}

void Communicator::wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
  try {
    work->wait();
  } catch (const c10::Error& e) {
    fail(what, e.what_without_backtrace());
  } catch (const std::exception& e) {
    fail(what, e.what());
  }
}

namespace {

// NCCL reduces CUDA tensors only ("Tensors must be CUDA and dense"), while the engine's own
// bookkeeping (stop and pause, step metrics, evaluation counts, config and step checks, the
// test's scores) lives in CPU tensors: over NCCL those travel through this rank's GPU, the one
// trainingDevice made current (CUDA device = local rank). Gloo takes them as they are.
torch::Tensor onBackendDevice(const torch::Tensor& t, const std::string& backend, int localRank) {
  if (backend != "nccl" || t.is_cuda()) return t;
  const int device =
      cudaDeviceOfLocalRank(localRank, static_cast<int>(torch::cuda::device_count()));
  return t.to(torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(device)));
}

}  // namespace

void Communicator::allreduce(torch::Tensor& tensor, Reduce op, const char* what) {
  std::vector<torch::Tensor> t{onBackendDevice(tensor, backendName_, env_.local_rank)};
  wait(allreduceAsync(t, op), what);
  if (!t[0].is_same(tensor)) tensor.copy_(t[0]);
}

double Communicator::allreduce(double value, Reduce op, const char* what) {
  auto t = torch::full({1}, value, torch::kDouble);
  allreduce(t, op, what);
  return t.item<double>();
}

void Communicator::broadcast(std::vector<torch::Tensor> tensors, int root, const char* what) {
  std::map<c10::ScalarType, std::vector<torch::Tensor>> byType;
  for (auto& t : tensors) byType[t.scalar_type()].push_back(t);
  for (auto& [type, group] : byType) {
    std::vector<torch::Tensor> flat{onBackendDevice(flatten(group), backendName_, env_.local_rank)};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    try {
      wait(impl_->group->broadcast(flat, o), what);
    } catch (const c10::Error& e) {
      fail(what, e.what_without_backtrace());
    }
    unflattenInto(flat[0], group);
  }
}

std::vector<torch::Tensor> Communicator::allgather(const torch::Tensor& tensor, const char* what) {
  std::vector<torch::Tensor> in{
      onBackendDevice(tensor.contiguous(), backendName_, env_.local_rank)};
  std::vector<std::vector<torch::Tensor>> out(1);
  for (int r = 0; r < env_.world_size; ++r) out[0].push_back(torch::empty_like(in[0]));
  try {
    wait(impl_->group->allgather(out, in), what);
  } catch (const c10::Error& e) {
    fail(what, e.what_without_backtrace());
  }
  for (auto& t : out[0]) t = t.to(tensor.device());  // where the caller's tensor is
  return out[0];
}

void Communicator::barrier(const char* what) {
  try {
    wait(impl_->group->barrier(), what);
  } catch (const c10::Error& e) {
    fail(what, e.what_without_backtrace());
  }
}

torch::Tensor flatten(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> flat;
  flat.reserve(tensors.size());
  for (const auto& t : tensors) flat.push_back(t.detach().reshape(-1));
  return torch::cat(flat);
}

void unflattenInto(const torch::Tensor& flat, std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard noGrad;
  std::int64_t offset = 0;
  for (auto& t : tensors) {
    const auto n = t.numel();
    t.copy_(flat.narrow(0, offset, n).view_as(t));
    offset += n;
  }
}

}  // namespace amp::dist
