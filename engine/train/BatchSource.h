#pragma once
// Training batches without end for the tools that need N steps of data rather than epochs (the
// precision audit, the step and precision benchmarks): the config's training list through a
// VideoLoader, which starts its next epoch when one runs out, or random clips of the config's
// shape. Internal to the engine (LibTorch types).
//
//   std::string error;
//   auto source = train::BatchSource::open(cfg, 8, device, channelsLast, /*random=*/false, &error);
//   if (!source) return fail(error);  // names the list or the batch that does not fit
//   for (int i = 0; i < steps; ++i) step.run({source->next()});
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>

#include "config/Config.h"
#include "train/MicroBatch.h"

namespace amp::data {
class VideoLoader;
}

namespace amp::train {

class BatchSource {
 public:
  /// Batches of `batchSize` clips from the config's training split (DATA.PATH_TO_DATA_DIR's
  /// train.csv, PySlowFast's training transform), or random clips when `random`. nullptr with
  /// `error` naming the list, or saying the batch is larger than the training set.
  [[nodiscard]] static std::unique_ptr<BatchSource> open(const config::Config& cfg,
                                                         std::int64_t batchSize,
                                                         const torch::Device& device,
                                                         bool channelsLast, bool random,
                                                         std::string* error);
  ~BatchSource();
  BatchSource(const BatchSource&) = delete;
  BatchSource& operator=(const BatchSource&) = delete;

  /// The next batch, on the device. At the end of an epoch the loader starts the next one; throws
  /// std::runtime_error with the loader's reason when it cannot deliver (every video broken).
  MicroBatch next();
  /// Batches in one epoch of the training set (1 for random clips).
  std::size_t batchesPerEpoch() const;
  bool random() const { return !loader_; }
  /// Stops the loader's workers (they prefetch the next batches), e.g. before timing steps;
  /// next() after it throws.
  void stop();

 private:
  BatchSource(const config::Config& cfg, std::int64_t batchSize, const torch::Device& device,
              bool channelsLast);

  config::Config cfg_;  // a copy: random clips take their shape from it
  std::int64_t batchSize_;
  torch::Device device_;
  bool channelsLast_;
  std::unique_ptr<data::VideoLoader> loader_;
  int epoch_ = 0;
  bool stopped_ = false;
};

}  // namespace amp::train
