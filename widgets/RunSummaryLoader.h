#pragma once
// Reads runs' metrics logs into summaries (best val top-1, final loss, peak memory ...) on one
// worker thread, so that the run list's GUI thread never reads a log: a sweep's thousand logs,
// or one long run's 20 MB, would freeze the window for seconds. The list asks, then collects
// what is done from its own timer (data under a short lock, a timer decides when to repaint).
//
//   loader.request(dir, size, mtime);          // the log's size and mtime when asked
//   for (auto& r : loader.takeResults()) show(r.dir, r.summary);
#include <QString>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "runlog/RunRecord.h"

namespace amp::widgets {

class RunSummaryLoader {
 public:
  struct Result {
    QString dir;
    qint64 size = 0, mtime = 0;  ///< of the log, as requested
    runlog::RunSummary summary;
  };

  RunSummaryLoader();
  ~RunSummaryLoader();  ///< stops after the log being read and joins the thread
  RunSummaryLoader(const RunSummaryLoader&) = delete;
  RunSummaryLoader& operator=(const RunSummaryLoader&) = delete;

  /// Queues a read of the run's log; a run already queued is read once, at its newest stamp.
  void request(const QString& dir, qint64 size, qint64 mtime);
  /// The summaries read since the last call, in the order they were read.
  std::vector<Result> takeResults();
  /// Whether reads are queued or running, or results wait to be taken.
  bool busy() const;

 private:
  void work();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Result> queue_;  ///< requests (summary empty)
  std::vector<Result> done_;
  bool reading_ = false;
  bool stop_ = false;
  std::thread thread_;  ///< last: started once the members above exist
};

}  // namespace amp::widgets
