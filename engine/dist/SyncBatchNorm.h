#pragma once
// BN.NORM_TYPE sync_batchnorm across processes: the statistics sync that the models' batch
// norms use in a data-parallel run. The group is every rank (BN.GLOBAL_SYNC) or
// BN.NUM_SYNC_DEVICES consecutive processes of one machine, as PySlowFast's
// NaiveSyncBatchNorm3d; each rank's statistics are gathered from every rank and its group's rows
// kept (forward), and each rank's row gets the sum of the gradients its group members computed
// for it (backward), as PySlowFast's GroupGather.
// Internal to the engine (LibTorch types).
#include <memory>
#include <string>
#include <vector>

#include "models/Net.h"

namespace amp::config {
class Config;
}

namespace amp::dist {

class Communicator;

/// The global ranks whose statistics rank `rank` averages: all of them with globalSync, else its
/// block of `syncDevices` consecutive local ranks on its machine. Empty with `error` naming
/// BN.NUM_SYNC_DEVICES when the machine's processes do not split into such blocks.
std::vector<int> syncGroup(int rank, int worldSize, int localWorldSize, int syncDevices,
                           bool globalSync, std::string* error);

class GroupStatsSync : public models::BatchNormSync {
 public:
  GroupStatsSync(Communicator& comm, std::vector<int> group);
  torch::Tensor gatherGroup(const torch::Tensor& vec) override;
  const std::vector<int>& group() const { return group_; }

 private:
  Communicator& comm_;
  std::vector<int> group_;
};

}  // namespace amp::dist
