#include "train/DdpBenchmark.h"

#include <algorithm>
#include <chrono>

#include "config/Config.h"
#include "dist/Communicator.h"
#include "dist/GradientReducer.h"
#include "models/VideoModels.h"
#include "system/ErrorText.h"
#include "train/Optimizer.h"
#include "train/TrainStep.h"

namespace amp::train {
namespace {

double medianSeconds(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

bool benchmarkDataParallelWorker(const config::Config& c, const dist::DistEnv& env,
                                 const DdpBenchOptions& options, DdpBenchResult& out,
                                 std::string* error) {
  try {
    if (options.global_batch % env.world_size != 0)
      throw std::runtime_error("--batch " + std::to_string(options.global_batch) +
                               " is not divisible by the " + std::to_string(env.world_size) +
                               " processes");
    const torch::Device device = trainingDevice(c, env.local_rank);
    const auto policy = PrecisionPolicy::fromConfig(c);
    torch::manual_seed(static_cast<uint64_t>(c.getInt("RNG_SEED")));
    auto net = models::buildVideoNet(c);
    net->to(device);
    if (useChannelsLast3d(c, device)) toChannelsLast3d(*net);  // as the inputs below
    auto optimizer = buildOptimizer(c, *net);
    TrainStep stepper(c, *net, *optimizer, policy);
    std::unique_ptr<dist::Communicator> comm;
    std::unique_ptr<dist::GradientReducer> reducer;
    if (env.distributed() || (options.group_of_one && !env.init_method.empty())) {
      const std::string backend = device.is_cuda() ? c.getString("DIST_BACKEND") : "gloo";
      comm = std::make_unique<dist::Communicator>(env, backend, std::chrono::seconds(600));
      reducer = std::make_unique<dist::GradientReducer>(*comm, net->parameters(), net->buffers());
      reducer->broadcastState();
      reducer->timeOnDevice(true);
      stepper.setGradientReducer(reducer.get());
    }
    out.world_size = env.world_size;
    out.threads = at::get_num_threads();
    out.precision = policy.name;
    out.device = device.str();
    out.batch_per_rank = options.global_batch / env.world_size;
    const auto batch =
        randomMicroBatch(c, out.batch_per_rank, device, useChannelsLast3d(c, device));
    setLearningRate(*optimizer, c.getFloat("SOLVER.BASE_LR"));
    std::vector<double> steps, waits, inBackward;
    for (int i = 0; i < options.warmup + options.iterations; ++i) {
      if (comm) comm->barrier("start of a timed step");  // every rank starts the step together
      const auto t0 = std::chrono::steady_clock::now();
      const auto r = stepper.run({batch});
      if (device.is_cuda()) torch::cuda::synchronize();
      const double s = secondsSince(t0);
      out.last_loss = r.loss;
      if (i < options.warmup) continue;
      steps.push_back(s);
      if (reducer) {
        waits.push_back(reducer->lastStats().wait_s);
        inBackward.push_back(reducer->lastStats().launched_in_backward);
        out.buckets = static_cast<int>(reducer->bucketCount());
        out.gradient_bytes = static_cast<double>(reducer->lastStats().bytes);
      }
    }
    out.median_step_s = medianSeconds(steps);
    out.median_sync_wait_s = medianSeconds(waits);
    out.buckets_in_backward = static_cast<int>(medianSeconds(inBackward));
    if (comm) {  // the same bucketed all-reduces with no backward to hide behind
      std::vector<double> alone;
      for (int i = 0; i < std::max(3, options.iterations); ++i) {
        comm->barrier("start of a timed all-reduce");
        const auto t0 = std::chrono::steady_clock::now();
        reducer->beforeForward(true);
        reducer->finish();  // waits for the device too (timeOnDevice)
        alone.push_back(secondsSince(t0));
      }
      out.allreduce_alone_s = medianSeconds(alone);
    }
    return true;
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
}

}  // namespace amp::train
