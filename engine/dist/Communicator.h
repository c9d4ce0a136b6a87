#pragma once
// This process's membership of a data-parallel job, on PyTorch's c10d: the store where ranks
// meet (TCPStore served by rank 0, or FileStore), and the process group that carries the
// collectives (ProcessGroupGloo; ProcessGroupNCCL where the LibTorch has it). Every failure of a
// collective (a rank died, a peer stalled past the timeout) becomes one std::runtime_error that
// says which rank saw it and what to look at. Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dist/DistEnv.h"

namespace c10d {
class Store;
class Work;
}  // namespace c10d

namespace amp::dist {

enum class Reduce { Sum, Max, Min };

class Communicator {
 public:
  /// Joins the job: rendezvous through env.init_method within `timeout`, then a process group of
  /// `backend` ("gloo", or "nccl" on CUDA where this LibTorch has it). Throws std::runtime_error
  /// naming the init method or the backend when it cannot.
  Communicator(const DistEnv& env, const std::string& backend, std::chrono::milliseconds timeout);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return env_.rank; }
  int size() const { return env_.world_size; }
  const DistEnv& env() const { return env_; }
  const std::string& backend() const { return backendName_; }

  /// Starts an all-reduce of `tensors` in place; wait() on the handle finishes it.
  c10::intrusive_ptr<c10d::Work> allreduceAsync(std::vector<torch::Tensor>& tensors,
                                                Reduce op = Reduce::Sum);
  /// Waits for `work`; a failed collective throws the runtime_error described above.
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what);
  void allreduce(torch::Tensor& tensor, Reduce op, const char* what);
  /// One value from every rank, reduced ("what" names it in errors).
  double allreduce(double value, Reduce op, const char* what);
  /// Overwrites `tensors` with rank `root`'s, one flat buffer per dtype.
  void broadcast(std::vector<torch::Tensor> tensors, int root, const char* what);
  /// Every rank's `tensor` (same shape on every rank), in rank order.
  std::vector<torch::Tensor> allgather(const torch::Tensor& tensor, const char* what);
  void barrier(const char* what);

 private:
  [[noreturn]] void fail(const char* what, const std::string& why) const;
  struct Impl;
  DistEnv env_;
  std::string backendName_;
  std::unique_ptr<Impl> impl_;
};

/// The collective of every tensor, flattened into one buffer per dtype and copied back (fewer,
/// larger messages: how DDP's broadcast of parameters and buffers works).
torch::Tensor flatten(const std::vector<torch::Tensor>& tensors);
void unflattenInto(const torch::Tensor& flat, std::vector<torch::Tensor>& tensors);

}  // namespace amp::dist
