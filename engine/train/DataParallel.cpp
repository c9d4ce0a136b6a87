#include "train/DataParallel.h"

#include <chrono>
#include <functional>

#include "config/BatchLayout.h"
#include "config/Config.h"
#include "configfile/ConfigWriter.h"
#include "dist/Communicator.h"
#include "dist/GradientReducer.h"
#include "dist/SyncBatchNorm.h"
#include "train/TrainStep.h"

namespace amp::train {

DataParallel::DataParallel(const dist::DistEnv& env, const config::Config& c,
                           const torch::Device& device)
    : env_(env) {
  if (!env.distributed()) {
    // One process of a config that asks for several would train on a share of each batch.
    if (config::configuredWorldSize(c) > 1)
      throw std::runtime_error(
          "the config asks for " + std::to_string(config::configuredWorldSize(c)) +
          " processes (NUM_GPUS or DIST.CPU_PROCESSES x NUM_SHARDS) but this is a single process; "
          "ampstudio-cli train and test start them (or torchrun / srun)");
    return;
  }
  if (const auto misfit = dist::checkAgainstConfig(env, c)) throw std::runtime_error(*misfit);
  // DIST_BACKEND defaults to nccl (PySlowFast's); CPU tensors go over Gloo whatever it says.
  const std::string backend = device.is_cuda() ? c.getString("DIST_BACKEND") : "gloo";
  syncBatchNorm_ = c.getString("BN.NORM_TYPE") == "sync_batchnorm";
  syncDevices_ = static_cast<int>(c.getInt("BN.NUM_SYNC_DEVICES"));
  globalSync_ = c.getBool("BN.GLOBAL_SYNC");
  detachFinalFc_ = c.getBool("MODEL.DETACH_FINAL_FC");
  const auto timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(c.getFloat("DIST.TIMEOUT_S") * 1000.0));
  comm_ = std::make_unique<dist::Communicator>(env, backend, timeout);
}

DataParallel::~DataParallel() = default;

std::string DataParallel::backend() const {
  return comm_ ? comm_->backend() : std::string();
}

void DataParallel::checkSameConfig(const config::Config& c) {
  if (!comm_) return;
  config::Config mine = c;
  mine.reset("SHARD_ID");  // the one key that differs between machines
  const auto hash = std::hash<std::string>{}(config::toYaml(mine));
  // Two 32-bit halves are exact in doubles: equal on every rank when min == max.
  const double lo = static_cast<double>(hash & 0xffffffffu), hi = static_cast<double>(hash >> 32);
  const char* what = "comparison of the ranks' configs";
  if (comm_->allreduce(lo, dist::Reduce::Min, what) !=
          comm_->allreduce(lo, dist::Reduce::Max, what) ||
      comm_->allreduce(hi, dist::Reduce::Min, what) !=
          comm_->allreduce(hi, dist::Reduce::Max, what))
    throw std::runtime_error(
        "distributed: the ranks were started with different configs (their resolved YAML differs, "
        "SHARD_ID aside); start every rank with the same --cfg file and overrides");
}

void DataParallel::attach(torch::nn::Module& net, TrainStep& stepper, std::int64_t globalStep) {
  if (!comm_) return;
  const char* what = "agreement on the step to resume from";
  const double step = static_cast<double>(globalStep);
  if (comm_->allreduce(step, dist::Reduce::Min, what) !=
      comm_->allreduce(step, dist::Reduce::Max, what))
    throw std::runtime_error(
        "distributed: the ranks resumed from different steps; every rank must see the same "
        "OUTPUT_DIR "
        "(a shared folder across machines, as in PySlowFast)");
  if (syncBatchNorm_) {  // BN.NORM_TYPE sync_batchnorm: statistics over the group (checked by the
                         // validator)
    std::string error;
    auto group = dist::syncGroup(env_.rank, env_.world_size, env_.local_world_size, syncDevices_,
                                 globalSync_, &error);
    if (group.empty()) throw std::runtime_error(error);
    models::setBatchNormSync(net, std::make_shared<dist::GroupStatsSync>(*comm_, std::move(group)));
  }
  reducer_ = std::make_unique<dist::GradientReducer>(*comm_, net.parameters(), net.buffers());
  reducer_->findUnusedParameters(detachFinalFc_);  // as PySlowFast's DDP for a linear probe
  reducer_->broadcastState();
  stepper.setGradientReducer(reducer_.get());
}

void DataParallel::setBatchNormSync(torch::nn::Module& net, const std::string& normType,
                                    int devices) {
  if (!comm_) return;
  if (normType != "sync_batchnorm") {
    models::setBatchNormSync(net, nullptr);
    return;
  }
  std::string error;
  auto group = dist::syncGroup(env_.rank, env_.world_size, env_.local_world_size, devices,
                               globalSync_, &error);
  if (group.empty()) throw std::runtime_error("BN.NUM_SYNC_DEVICES: " + error);
  models::setBatchNormSync(net, std::make_shared<dist::GroupStatsSync>(*comm_, std::move(group)));
}

torch::Tensor DataParallel::allreduce(std::vector<double> values, bool max, const char* what) {
  auto t = torch::tensor(values, torch::kDouble);
  comm_->allreduce(t, max ? dist::Reduce::Max : dist::Reduce::Sum, what);
  return t;
}

DataParallel::Control DataParallel::control(bool stop, bool pause) {
  if (!comm_) return {stop, pause};
  const auto t =
      allreduce({stop ? 1.0 : 0.0, pause ? 1.0 : 0.0}, true, "agreement on stop and pause");
  return {t[0].item<double>() > 0, t[1].item<double>() > 0};
}

std::tuple<double, double, double> DataParallel::average(double loss, double top1, double top5) {
  if (!comm_) return {loss, top1, top5};
  const auto t = allreduce({loss, top1, top5}, false, "average of the step's metrics") /
                 static_cast<double>(comm_->size());
  return {t[0].item<double>(), t[1].item<double>(), t[2].item<double>()};
}

std::tuple<double, double, double, double> DataParallel::sum(double a, double b, double c,
                                                             double d) {
  if (!comm_) return {a, b, c, d};
  const auto t = allreduce({a, b, c, d}, false, "sum of the evaluation counts");
  return {t[0].item<double>(), t[1].item<double>(), t[2].item<double>(), t[3].item<double>()};
}

void DataParallel::sumInPlace(torch::Tensor& t, const char* what) {
  if (comm_) comm_->allreduce(t, dist::Reduce::Sum, what);
}

void DataParallel::maxInPlace(torch::Tensor& t, const char* what) {
  if (comm_) comm_->allreduce(t, dist::Reduce::Max, what);
}

double DataParallel::lastSyncWaitSeconds() const {
  return reducer_ ? reducer_->lastStats().wait_s : 0.0;
}
int DataParallel::lastBucketsInBackward() const {
  return reducer_ ? reducer_->lastStats().launched_in_backward : 0;
}

}  // namespace amp::train
