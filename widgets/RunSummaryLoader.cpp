#include "RunSummaryLoader.h"

#include <algorithm>

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
    queue_.push_back({dir, size, mtime, {}});
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

void RunSummaryLoader::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Result r = std::move(queue_.front());
    queue_.pop_front();
    reading_ = true;
    lock.unlock();
    runlog::RunRecord record;  // unreadable: an empty summary, as before
    (void)record.loadRunDirectory(r.dir.toStdString(), nullptr);
    r.summary = record.summary();
    lock.lock();
    reading_ = false;
    done_.push_back(std::move(r));
  }
}

}  // namespace amp::widgets
