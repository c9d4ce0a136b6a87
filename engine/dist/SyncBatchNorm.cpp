#include "dist/SyncBatchNorm.h"

#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>

#include "dist/Communicator.h"

namespace amp::dist {
namespace {

// Every rank's vector gathered, the group's rows stacked (G x D).
torch::Tensor gatherRows(Communicator& comm, const std::vector<int>& group, const torch::Tensor& t,
                         const char* what) {
  const auto all = comm.allgather(t.contiguous(), what);
  std::vector<torch::Tensor> rows;
  for (int r : group) rows.push_back(all[static_cast<size_t>(r)]);
  return torch::stack(rows);
}

struct GroupGather : public torch::autograd::Function<GroupGather> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& vec,
                               GroupStatsSync* sync, Communicator* comm) {
    ctx->saved_data["sync"] = reinterpret_cast<std::int64_t>(sync);
    ctx->saved_data["comm"] = reinterpret_cast<std::int64_t>(comm);
    return gatherRows(*comm, sync->group(), vec, "sync batch norm statistics");
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    auto* sync = reinterpret_cast<GroupStatsSync*>(ctx->saved_data["sync"].toInt());
    auto* comm = reinterpret_cast<Communicator*>(ctx->saved_data["comm"].toInt());
    // Each member's gradient (G x D) for every row; this rank's row is at its place in the group.
    const auto& group = sync->group();
    const auto mine = std::find(group.begin(), group.end(), comm->rank()) - group.begin();
    const auto all =
        gatherRows(*comm, group, grads[0].contiguous(), "sync batch norm gradients");  // G x G x D
    return {all.select(1, mine).sum(0), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

std::vector<int> syncGroup(int rank, int worldSize, int localWorldSize, int syncDevices,
                           bool globalSync, std::string* error) {
  std::vector<int> group;
  if (globalSync) {
    for (int r = 0; r < worldSize; ++r) group.push_back(r);
    return group;
  }
  if (syncDevices < 1 || localWorldSize % syncDevices != 0) {
    if (error)
      *error = "BN.NUM_SYNC_DEVICES: " + std::to_string(syncDevices) + " does not divide the " +
               std::to_string(localWorldSize) +
               " processes of a machine into groups; choose a divisor of NUM_GPUS (or "
               "DIST.CPU_PROCESSES), or BN.GLOBAL_SYNC True";
    return {};
  }
  const int machineStart = rank - rank % localWorldSize;
  const int local = rank % localWorldSize;
  const int first = machineStart + local / syncDevices * syncDevices;
  for (int r = first; r < first + syncDevices; ++r) group.push_back(r);
  return group;
}

GroupStatsSync::GroupStatsSync(Communicator& comm, std::vector<int> group)
    : comm_(comm), group_(std::move(group)) {}

torch::Tensor GroupStatsSync::gatherGroup(const torch::Tensor& vec) {
  if (group_.size() == 1)
    return vec.unsqueeze(0);  // the same size on every rank: all skip the collective together
  return GroupGather::apply(vec, this, &comm_);
}

}  // namespace amp::dist
