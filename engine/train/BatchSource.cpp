#include "train/BatchSource.h"

#include <stdexcept>

#include "config/Config.h"
#include "data/Dataset.h"
#include "data/VideoLoader.h"

namespace amp::train {

BatchSource::BatchSource(const config::Config& cfg, std::int64_t batchSize,
                         const torch::Device& device, bool channelsLast)
    : cfg_(cfg), batchSize_(batchSize), device_(device), channelsLast_(channelsLast) {}

BatchSource::~BatchSource() = default;

std::unique_ptr<BatchSource> BatchSource::open(const config::Config& cfg, std::int64_t batchSize,
                                               const torch::Device& device, bool channelsLast,
                                               bool random, std::string* error) {
  std::unique_ptr<BatchSource> source(new BatchSource(cfg, batchSize, device, channelsLast));
  if (random) return source;
  data::SampleList list;
  std::string err;
  if (!data::readSampleList(cfg, data::Split::Train, list, &err)) {
    if (error) *error = err;
    return nullptr;
  }
  auto options = data::LoaderOptions::fromConfig(cfg, data::Split::Train);
  options.batch_size = static_cast<int>(batchSize);
  source->loader_ = std::make_unique<data::VideoLoader>(
      std::move(list), data::ClipParams::fromConfig(cfg), data::Split::Train, options);
  if (source->loader_->batchesPerEpoch() == 0) {
    if (error)
      *error =
          "--batch: " + std::to_string(batchSize) + " clips is more than the training set holds";
    return nullptr;
  }
  source->loader_->startEpoch(0);
  return source;
}

MicroBatch BatchSource::next() {
  if (stopped_) throw std::logic_error("BatchSource::next after stop()");
  if (!loader_) return randomMicroBatch(cfg_, batchSize_, device_, channelsLast_);
  auto b = loader_->next();
  if (!b) {
    if (!loader_->error().empty()) throw std::runtime_error(loader_->error());
    loader_->startEpoch(++epoch_);
    b = loader_->next();
    if (!b)
      throw std::runtime_error(loader_->error().empty() ? "the training loader delivered nothing"
                                                        : loader_->error());
  }
  MicroBatch mb = toMicroBatch(*b, device_, channelsLast_);
  loader_->recycle(std::move(*b));
  return mb;
}

void BatchSource::stop() {
  stopped_ = true;
  if (loader_) loader_->stop();
}

std::size_t BatchSource::batchesPerEpoch() const {
  return loader_ ? loader_->batchesPerEpoch() : 1;
}

}  // namespace amp::train
