#include "RunSummaryLoader.h"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "runlog/RunDirectory.h"

namespace amp::widgets {

RunSummaryLoader::RunSummaryLoader() : thread_([this] { work(); }) {}

RunSummaryLoader::~RunSummaryLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

void RunSummaryLoader::request(const QString& dir, qint64 size, qint64 mtime) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto queued =
        std::find_if(queue_.begin(), queue_.end(), [&](const Result& r) { return r.dir == dir; });
    if (queued != queue_.end()) {
      queued->size = size;
      queued->mtime = mtime;
      return;
    }
    queue_.push_back({dir, size, mtime, {}, false});
  }
  wake_.notify_one();
}

std::vector<RunSummaryLoader::Result> RunSummaryLoader::takeResults() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Result> out;
  out.swap(done_);
  return out;
}

bool RunSummaryLoader::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reading_ || !queue_.empty() || !done_.empty();
}

bool RunSummaryLoader::readsDone() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !reading_ && queue_.empty();
}

void RunSummaryLoader::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Result r = std::move(queue_.front());
    queue_.pop_front();
    reading_ = true;
    lock.unlock();
    r.summary = summarize(r.dir, r.size, &r.stale);
    lock.lock();
    reading_ = false;
    done_.push_back(std::move(r));
  }
}

runlog::RunSummary RunSummaryLoader::summarize(const QString& dir, qint64 size, bool* stale) {
  const double now =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  // A run no longer asked for (it finished, or left the list) is no longer followed.
  for (auto f = followed_.begin(); f != followed_.end();)
    f = now - f->second.lastAsked > kForgetSeconds ? followed_.erase(f) : std::next(f);
  auto it = followed_.find(dir);
  const bool again = it == followed_.end() && ++timesAsked_[dir] >= 2;
  std::size_t followedBytes = 0;
  for (const auto& f : followed_) followedBytes += f.second.bytes;
  const bool room =
      followed_.size() < kMaxFollowed &&
      followedBytes + static_cast<std::size_t>(std::max<qint64>(size, 0)) <= kMaxFollowedBytes;
  if (again && (size > kMaxFollowedLogBytes || !room)) {
    // A long live log, or more live runs than are followed: read whole, but not more often
    // than every kBigLogSeconds (following more would trade the time for memory; evicting one
    // followed run for another would read both whole every time).
    auto big = bigLogs_.find(dir);
    if (big != bigLogs_.end() && now - big->second.readAt < kBigLogSeconds) {
      *stale = true;
      return big->second.summary;
    }
    runlog::RunRecord record;
    (void)record.loadRunDirectory(dir.toStdString(), nullptr);
    bigLogs_[dir] = {now, record.summary()};
    return bigLogs_[dir].summary;
  }
  if (again) {  // asked again: its log grows; followed from here on
    it = followed_.emplace(dir, Followed{}).first;
    it->second.reader = std::make_unique<runlog::MetricsReader>(
        runlog::RunDirectory(dir.toStdString()).metricsPath());
    it->second.bytes = static_cast<std::size_t>(std::max<qint64>(size, 0));
  }
  if (it == followed_.end()) {
    runlog::RunRecord record;  // unreadable: an empty summary, as before
    (void)record.loadRunDirectory(dir.toStdString(), nullptr);
    return record.summary();
  }
  Followed& f = it->second;
  f.lastAsked = now;
  // A complete line at a time (a line being written waits for the next ask); the record applies
  // the resume rule as events arrive. A replaced or truncated log starts the record again.
  auto events = f.reader->poll();
  if (f.reader->restarted()) {
    f.reader = std::make_unique<runlog::MetricsReader>(
        runlog::RunDirectory(dir.toStdString()).metricsPath());
    f.record.clear();
    events = f.reader->poll();
  }
  f.record.addAll(events);
  return f.record.summary();
}

}  // namespace amp::widgets
