#pragma once
// Reads runs' metrics logs into summaries (best val top-1, final loss, peak memory ...) on one
// worker thread, so that the run list's GUI thread never reads a log: a sweep's thousand logs,
// or one long run's 20 MB, would freeze the window for seconds. The list asks, then collects
// what is done from its own timer (data under a short lock, a timer decides when to repaint).
// A log asked for again (a run being written) is followed from where it was read, while the
// followed logs stay under kMaxFollowed and kMaxFollowedBytes together (a followed run's record
// stays in memory: about 2 MB per 2,000 steps of ours) and each under kMaxFollowedLogBytes;
// a live log beyond that is read whole at most every kBigLogSeconds. A live run's log is thus
// not read whole every 2 s.
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
    /// The figures of an earlier read (a long live log is read at most every kBigLogSeconds):
    /// ask again later for the newest.
    bool stale = false;
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
  /// Whether nothing is queued or being read (results may still wait to be taken).
  bool readsDone() const;

  static constexpr std::size_t kMaxFollowed = 64;
  static constexpr std::size_t kMaxFollowedBytes = std::size_t(16) << 20;
  static constexpr qint64 kMaxFollowedLogBytes = qint64(1) << 20;
  static constexpr double kBigLogSeconds = 30;
  static constexpr double kForgetSeconds = 120;  ///< not asked for that long: not followed

 private:
  // A log being followed: the reader's offset and the record so far (worker thread only).
  struct Followed {
    std::unique_ptr<runlog::MetricsReader> reader;
    runlog::RunRecord record;
    double lastAsked = 0;   ///< steady seconds
    std::size_t bytes = 0;  ///< the log's size when following began
  };
  void work();
  runlog::RunSummary summarize(const QString& dir, qint64 size, bool* stale);
  struct BigLog {
    double readAt = 0;  ///< steady seconds
    runlog::RunSummary summary;
  };
  std::map<QString, BigLog> bigLogs_;
  std::map<QString, Followed> followed_;
  std::map<QString, int> timesAsked_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Result> queue_;  ///< requests (summary empty)
  std::vector<Result> done_;
  bool reading_ = false;
  bool stop_ = false;
  std::thread thread_;  ///< last: started once the members above exist
};

}  // namespace amp::widgets
