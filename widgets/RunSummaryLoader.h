#pragma once
// Reads runs' metrics logs into summaries (best val top-1, final loss, peak memory ...) on one
// worker thread, so that the run list's GUI thread never reads a log: a sweep's thousand logs,
// or one long run's 20 MB, would freeze the window for seconds. The list asks, then collects
// what is done from its own timer (data under a short lock, a timer decides when to repaint).
// A log asked for again (a run being written) is followed from where it was read, for the
// kMaxFollowed most recently asked whose logs are under kMaxFollowedLogBytes (a followed run's
// record stays in memory: about 1 MB per 2,000 steps); a larger live log is read whole at most
// every kBigLogSeconds. A live run's log is thus not read whole every 2 s.
//
//   loader.request(dir, size, mtime);          // the log's size and mtime when asked
//   for (auto& r : loader.takeResults()) show(r.dir, r.summary);
#include <QString>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runlog/MetricsReader.h"
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

  /// Logs followed at once (their records stay in memory); beyond, the least recently asked goes.
  static constexpr std::size_t kMaxFollowed = 16;
  static constexpr qint64 kMaxFollowedLogBytes = qint64(4) << 20;
  static constexpr double kBigLogSeconds = 30;

 private:
  // A log being followed: the reader's offset and the record so far (worker thread only).
  struct Followed {
    std::unique_ptr<runlog::MetricsReader> reader;
    runlog::RunRecord record;
    std::uint64_t lastAsked = 0;
  };
  void work();
  runlog::RunSummary summarize(const QString& dir, qint64 size);
  struct BigLog {
    double readAt = 0;  ///< steady seconds
    runlog::RunSummary summary;
  };
  std::map<QString, BigLog> bigLogs_;
  std::map<QString, Followed> followed_;
  std::map<QString, int> timesAsked_;
  std::uint64_t asked_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Result> queue_;  ///< requests (summary empty)
  std::vector<Result> done_;
  bool reading_ = false;
  bool stop_ = false;
  std::thread thread_;  ///< last: started once the members above exist
};

}  // namespace amp::widgets
