#include "data/VideoLoader.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "config/BatchLayout.h"
#include "config/Config.h"
#include "data/AvaClips.h"
#include "data/Draws.h"
#include "util/FaultInjection.h"

namespace amp::data {
namespace {

// Key of the per-copy streams of the augmented training path (relative crops, RandAugment,
// erasing, and the spatial draws of copies after the first).
constexpr std::uint64_t kAugmentStream = 0x4155474d454e54ULL;

}  // namespace

LoaderOptions LoaderOptions::fromConfig(const config::Config& c, Split split, int rank,
                                        int worldSize) {
  LoaderOptions o;
  o.batch_size = config::perProcessBatch(c, split == Split::Test);
  o.workers = static_cast<int>(c.getInt("DATA_LOADER.NUM_WORKERS"));
  o.shuffle = split == Split::Train;
  o.drop_last = split == Split::Train;
  o.seed = static_cast<std::uint64_t>(c.getInt("RNG_SEED"));
  o.rank = rank;
  o.world_size = worldSize;
  o.num_classes = static_cast<int>(c.getInt("MODEL.NUM_CLASSES"));
  o.decoder.threads = c.getBool("DATA_LOADER.ENABLE_MULTI_THREAD_DECODE") ? 0 : 1;
  return o;
}

namespace {
// The list decides how its frames are picked (a test list is TEST.DATASET's).
ClipParams forList(ClipParams p, const SampleList& list) {
  p.dataset = list.kind;
  return p;
}
}  // namespace

VideoLoader::VideoLoader(SampleList list, ClipParams params, Split split, LoaderOptions options)
    : list_(std::move(list)),
      sampler_(forList(params, list_), options.decoder),
      split_(split),
      options_(options) {
  params = sampler_.params();
  options_.batch_size = std::max(1, options_.batch_size);
  options_.world_size = std::max(1, options_.world_size);
  for (auto& shape : options_.short_cycle) {
    shape.batch_size = std::max(1, shape.batch_size);
    ClipParams p = params;
    p.train_crop = shape.crop;
    p.jitter_min = shape.jitter_min;
    cycleSamplers_.emplace_back(p, options.decoder);
  }
}

std::pair<std::size_t, std::size_t> VideoLoader::batchSpan(int k) const {
  const std::size_t n = items_.size();
  if (options_.short_cycle.empty()) {
    const std::size_t b = static_cast<std::size_t>(options_.batch_size),
                      first = static_cast<std::size_t>(k) * b;
    return {first, first < n ? std::min(b, n - first) : 0};
  }
  const auto& cycle = options_.short_cycle;
  std::size_t perCycle = 0;
  for (const auto& shape : cycle) perCycle += static_cast<std::size_t>(shape.batch_size);
  std::size_t first = static_cast<std::size_t>(k) / cycle.size() * perCycle;
  for (std::size_t j = 0; j < static_cast<std::size_t>(k) % cycle.size(); ++j)
    first += static_cast<std::size_t>(cycle[j].batch_size);
  const std::size_t b =
      static_cast<std::size_t>(cycle[static_cast<std::size_t>(k) % cycle.size()].batch_size);
  return {first, first < n ? std::min(b, n - first) : 0};
}

VideoLoader::~VideoLoader() {
  stop();
}

std::size_t VideoLoader::samplesPerEpoch() const {
  return epochItems(0).size();
}

std::size_t VideoLoader::batchesPerEpoch() const {
  const std::size_t n = samplesPerEpoch();
  if (options_.short_cycle.empty()) {
    const std::size_t b = static_cast<std::size_t>(options_.batch_size);
    return options_.drop_last ? n / b : (n + b - 1) / b;
  }
  // The batches ShortCycleBatchSampler yields: whole ones, and a last partial one without
  // drop_last.
  std::size_t batches = 0, used = 0;
  for (;; ++batches) {
    const std::size_t b = static_cast<std::size_t>(
        options_.short_cycle[batches % options_.short_cycle.size()].batch_size);
    if (used + b > n) return batches + (!options_.drop_last && used < n ? 1 : 0);
    used += b;
  }
}

std::vector<VideoLoader::Item> VideoLoader::epochItems(int epoch) const {
  std::vector<Item> all;
  const int views = split_ == Split::Test ? sampler_.params().viewsPerTestVideo() : 1;  // AVA: 1
  for (int v = 0; v < static_cast<int>(list_.videos.size()); ++v)
    for (int view = 0; view < views; ++view) all.push_back({v, view, 0});
  if (options_.shuffle) {  // Fisher-Yates with the epoch's own stream
    Draws d(options_.seed, 0x5348554646ULL, static_cast<std::uint64_t>(epoch), 0);
    for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[d.integer(i)]);
  }
  // Training: DistributedSampler's split. The shuffled list is padded by repeating its start
  // to a multiple of the world size, so every rank has as many clips (and batches) as the
  // others; rank r takes every world-th clip from r on. Evaluation: no padding, so each clip is
  // evaluated exactly once across ranks and the summed counts equal one process's.
  const std::size_t world = static_cast<std::size_t>(options_.world_size);
  if (options_.drop_last && world > 1 && !all.empty()) {
    const std::size_t total = (all.size() + world - 1) / world * world;
    for (std::size_t i = 0; all.size() < total; ++i) all.push_back(all[i]);
  }
  for (std::size_t i = 0; i < all.size(); ++i) all[i].global = i;
  std::vector<Item> mine;
  for (std::size_t i = static_cast<std::size_t>(options_.rank); i < all.size(); i += world)
    mine.push_back(all[i]);
  return mine;
}

void VideoLoader::startEpoch(int epoch, int firstBatch) {
  stop();
  std::lock_guard<std::mutex> lock(mutex_);
  epoch_ = epoch;
  items_ = epochItems(epoch);
  numBatches_ = static_cast<int>(batchesPerEpoch());
  nextToBuild_ = nextToDeliver_ = std::clamp(firstBatch, 0, numBatches_);
  ready_.clear();
  error_.clear();
  stopping_ = false;
  for (int i = 0; i < options_.workers; ++i) threads_.emplace_back(&VideoLoader::worker, this);
}

void VideoLoader::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

bool VideoLoader::buildBatchCaught(int batchIndex, Batch& out, std::string* fatal) {
  try {  // an exception leaving a worker thread would end the process (the studio with it)
    return buildBatch(batchIndex, out, fatal);
  } catch (const std::exception& e) {
    *fatal = "building batch " + std::to_string(batchIndex) + " failed: " + e.what();
    return false;
  }
}

void VideoLoader::worker() {
  const int ahead = std::max(1, options_.prefetch) * std::max(1, options_.workers);
  while (true) {
    int k;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] {
        return stopping_ || !error_.empty() || nextToBuild_ >= numBatches_ ||
               nextToBuild_ < nextToDeliver_ + ahead;
      });
      if (stopping_ || !error_.empty() || nextToBuild_ >= numBatches_) return;
      k = nextToBuild_++;
    }
    Batch batch;
    std::string fatal;
    const bool ok = buildBatchCaught(k, batch, &fatal);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (ok)
        ready_.emplace(k, std::move(batch));
      else if (error_.empty())
        error_ = fatal;
    }
    cv_.notify_all();
  }
}

std::optional<Batch> VideoLoader::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (nextToDeliver_ >= numBatches_ || !error_.empty()) return std::nullopt;
  const int k = nextToDeliver_;
  if (threads_.empty()) {  // no workers: build here
    lock.unlock();
    Batch batch;
    std::string fatal;
    const bool ok = buildBatchCaught(k, batch, &fatal);
    lock.lock();
    if (!ok) {
      error_ = fatal;
      return std::nullopt;
    }
    ++nextToDeliver_;
    return batch;
  }
  cv_.wait(lock, [&] { return ready_.count(k) || !error_.empty() || stopping_; });
  auto it = ready_.find(k);
  if (it == ready_.end()) return std::nullopt;
  Batch batch = std::move(it->second);
  ready_.erase(it);
  ++nextToDeliver_;
  lock.unlock();
  cv_.notify_all();
  return batch;
}

std::string VideoLoader::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

std::vector<DecodeFailure> VideoLoader::takeFailures() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<DecodeFailure> out;
  out.swap(failures_);
  return out;
}

void VideoLoader::recycle(Batch&& batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare_.size() <
      static_cast<std::size_t>(std::max(2, options_.workers * (options_.prefetch + 1))))
    spare_.push_back(std::move(batch));
}

void VideoLoader::takeSpare(Batch& out) {
  std::vector<float> fastBuffer, slowBuffer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!spare_.empty()) {
      fastBuffer = std::move(spare_.back().fast);
      slowBuffer = std::move(spare_.back().slow);
      spare_.pop_back();
    }
  }
  out = Batch{};
  out.fast = std::move(fastBuffer);
  out.slow = std::move(slowBuffer);
}

bool VideoLoader::sampleWithRetries(
    Item& item, int& replaced,
    const std::function<bool(const Sample&, Draws&, int, std::string*)>& attempt,
    std::string* fatal) {
  const int nVideos = static_cast<int>(list_.videos.size());
  for (int tried = 0;; ++tried) {
    // Draws depend only on (seed, epoch, position in the whole epoch, attempt): the same clips
    // every run, and the same clip for the same position whatever the number of ranks, so
    // 2 ranks x B clips see exactly what one process of 2B clips sees.
    Draws d(options_.seed, static_cast<std::uint64_t>(epoch_), item.global,
            static_cast<std::uint64_t>(tried));
    std::string reason;
    const Sample& entry = list_.videos[static_cast<std::size_t>(item.video)];
    bool sampled = false;
    try {
      util::throwIfArmed("decode");
      sampled = attempt(entry, d, tried, &reason);
    } catch (const std::bad_alloc&) {  // a header declaring frames far larger than the file
      reason =
          "out of memory decoding it (std::bad_alloc); its header may declare a size the file "
          "does not hold";
    } catch (const std::exception& e) {  // a broken video is a failed clip, as a decode error is
      reason = e.what();
    }
    if (sampled) return true;
    ++totalFailures_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failures_.size() < 10000) failures_.push_back({entry.path, reason});
    }
    if (split_ == Split::Test) {
      *fatal = "test clip failed to decode (" +
               (list_.ava ? "AVA video '" + entry.name + "', keyframe frame " + entry.path
                          : list_.listPath + ":" + std::to_string(entry.line)) +
               "): " + reason;
      return false;
    }
    if (tried + 1 >= options_.max_failures_in_a_row) {
      *fatal = std::to_string(tried + 1) +
               " clips in a row failed to decode; the last one: " + reason +
               (list_.ava ? ". Check AVA.FRAME_DIR, AVA.FRAME_LIST_DIR and the frames"
                          : ". Check DATA.PATH_TO_DATA_DIR, DATA.PATH_PREFIX and the videos") +
               " (ampstudio-cli data check).";
      return false;
    }
    // As PySlowFast: try another random clip instead.
    item.video = static_cast<int>(d.integer(static_cast<std::uint64_t>(nVideos)));
    ++replaced;
  }
}

bool VideoLoader::buildBatch(int k, Batch& out, std::string* fatal) {
  if (list_.ava) return buildAvaBatch(k, out, fatal);
  const auto [first, count] = batchSpan(k);
  ClipSampler& sampler = cycleSamplers_.empty()
                             ? sampler_
                             : cycleSamplers_[static_cast<std::size_t>(k) % cycleSamplers_.size()];
  takeSpare(out);
  out.index = k;
  const ClipParams& p = sampler.params();
  const std::size_t fastSize = p.fastSize(split_), slowSize = p.slowSize(split_);
  const int copies = p.copiesPerVideo(split_);
  out.size = static_cast<int>(count) * copies;
  out.copies = copies;
  out.channels = 3;
  out.frames = p.num_frames;
  out.slow_frames = p.slowfast_alpha > 0 ? p.num_frames / p.slowfast_alpha : 0;
  out.height = out.width = p.cropSize(split_);
  if (list_.multi_label) out.num_classes = std::max(1, options_.num_classes);
  const std::size_t clips = count * static_cast<std::size_t>(copies);
  out.fast.resize(fastSize * clips);  // clips are written straight into the batch: no collate copy
  out.slow.resize(slowSize * clips);
  std::vector<Clip> clip(static_cast<std::size_t>(copies));
  std::vector<ClipDraws> copyDraws(static_cast<std::size_t>(copies));
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t pos = first + i;
    Item item = items_[pos];
    for (std::size_t j = 0; j < clip.size(); ++j) {
      const std::size_t at = i * static_cast<std::size_t>(copies) + j;
      clip[j] = Clip{};
      clip[j].fast_out = out.fast.data() + at * fastSize;
      clip[j].slow_out = slowSize ? out.slow.data() + at * slowSize : nullptr;
    }
    std::vector<Draws> more;
    auto attempt = [&](const Sample& entry, Draws& d, int tried, std::string* reason) {
      ClipDraws draws;
      draws.temporal = d.uniform();
      draws.scale = d.uniform();
      draws.crop_y = d.uniform();
      draws.crop_x = d.uniform();
      draws.flip = d.uniform();
      if (split_ != Split::Test && p.max_sampling_rate > p.sampling_rate) draws.rate = d.uniform();
      // The augmented path's further draws, one stream per copy; copies after the first also
      // take their own scale, crop and flip draws from it (the temporal draw is the video's).
      more.clear();
      more.reserve(copyDraws.size());
      for (std::size_t j = 0; j < copyDraws.size(); ++j) {
        more.emplace_back(options_.seed ^ kAugmentStream, static_cast<std::uint64_t>(epoch_),
                          item.global, static_cast<std::uint64_t>(tried), j);
        ClipDraws& cd = copyDraws[j];
        cd = draws;
        if (j > 0) {
          cd.scale = more[j].uniform();
          cd.crop_y = more[j].uniform();
          cd.crop_x = more[j].uniform();
          cd.flip = more[j].uniform();
          // The first copy of each further temporal window (DATA.TRAIN_CROP_NUM_TEMPORAL) draws its
          // start.
          if (split_ == Split::Train && j % static_cast<std::size_t>(p.aug.copiesPerWindow()) == 0)
            cd.temporal = more[j].uniform();
        }
        cd.more = &more[j];
      }
      return sampler.sampleCopies(entry, split_, item.view, copyDraws.data(), clip.data(), copies,
                                  reason);
    };
    if (!sampleWithRetries(item, out.replaced, attempt, fatal)) return false;
    const Sample& used = list_.videos[static_cast<std::size_t>(item.video)];
    for (const Clip& c : clip) {  // multiple_samples_collate: a video's copies side by side
      out.decode_s += c.decode_s;
      out.resize_s += c.resize_s;
      out.transform_s += c.transform_s;
      if (list_.multi_label) {
        const auto classes = c.frame_indices.empty() ? used.labels
                                                     : targetClasses(used, c.frame_indices.front(),
                                                                     c.frame_indices.back());
        const std::size_t row = out.targets.size();
        out.targets.resize(row + static_cast<std::size_t>(out.num_classes), 0.0f);
        for (const int k : classes)
          if (k >= 0 && k < out.num_classes) out.targets[row + static_cast<std::size_t>(k)] = 1;
        out.labels.push_back(classes.empty() ? 0 : classes.front());
      } else {
        out.labels.push_back(used.label);
      }
      out.videos.push_back(item.video);
      out.views.push_back(item.view);
      const CropRect region =
          c.region.height > 0 ? c.region : CropRect{c.box.y, c.box.x, c.box.size, c.box.size};
      out.info.push_back(
          {c.frame_indices, c.scaled, region, c.flipped, c.augment_ops, c.erased_boxes});
    }
  }
  return true;
}

bool VideoLoader::buildAvaBatch(int k, Batch& out, std::string* fatal) {
  const auto [first, count] = batchSpan(k);
  takeSpare(out);
  out.index = k;
  out.size = static_cast<int>(count);
  out.copies = 1;  // Ava.__getitem__ gives one clip per keyframe
  const ClipParams& p = sampler_.params();
  const int numClasses = std::max(1, options_.num_classes);
  AvaClip clip;
  std::vector<std::int64_t> frames;
  for (std::size_t i = 0; i < count; ++i) {
    Item item = items_[first + i];
    auto attempt = [&](const Sample& entry, Draws& d, int, std::string* reason) {
      return makeAvaClip(p, *list_.ava, entry.keyframe, split_, d, clip, frames, reason);
    };
    if (!sampleWithRetries(item, out.replaced, attempt, fatal)) return false;
    if (!addAvaClip(p, list_, item.video, clip, frames, numClasses, i, count, out, fatal))
      return false;
  }
  return true;
}

}  // namespace amp::data
