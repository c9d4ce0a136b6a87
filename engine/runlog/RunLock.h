#pragma once
// One writer per run directory: an exclusive flock(2) on OUTPUT_DIR/run.lock, held for the whole
// life of the trainer that writes the run. The kernel releases it when the process dies, so a
// killed run never blocks its own resume. Readers (CLI, studio) never take it.
#include <optional>
#include <string>

namespace amp::runlog {

class RunLock {
 public:
  static constexpr const char* kLockFile = "run.lock";

  RunLock() = default;
  ~RunLock() { release(); }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;

  /// Takes the lock of the run directory `dir` (which must exist) without waiting. On success the
  /// lock file names this process ("pid host since"); on failure `error` says who holds it, e.g.
  /// "OUTPUT_DIR 'runs/a' is being written by another trainer (pid 4242 on host gpu1, since
  /// 2026-12-01 08:00:00); stop that run first, or choose another OUTPUT_DIR".
  [[nodiscard]] bool acquire(const std::string& dir, std::string* error);
  /// Whether another holder has `dir` locked now, without taking the lock or creating anything:
  /// The same message as acquire() when another holder has it; nullopt when free (or when there
  /// is no lock file yet). A lock held through another RunLock of this process counts as held.
  static std::optional<std::string> probe(const std::string& dir);
  void release();
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace amp::runlog
