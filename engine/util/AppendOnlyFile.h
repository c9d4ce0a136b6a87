#pragma once
// A file that is only ever appended to (the metrics log, TensorBoard's event file): opened with
// O_APPEND, so a record lands whole at the end even when another process appends too; writes
// retried on EINTR and partial writes; sync() (fdatasync) where its owner wants the records on
// disk, e.g. at checkpoints and before closing a run's log. Not synchronised: its owner holds the
// lock. Torch-free.
//
//   util::AppendOnlyFile log;
//   std::string why;
//   if (!log.open("run/metrics.jsonl", /*createNew=*/false, &why)) fail(why);
//   if (!log.append("{\"step\": 1}\n", &why)) fail(why);
#include <string>

namespace amp::util {

class AppendOnlyFile {
 public:
  AppendOnlyFile() = default;
  ~AppendOnlyFile();
  AppendOnlyFile(const AppendOnlyFile&) = delete;
  AppendOnlyFile& operator=(const AppendOnlyFile&) = delete;

  /// Opens `path` for appending, creating it (0644); with `createNew`, fails when it exists.
  /// Closes a file already open. False with `error` = the system's reason (strerror).
  [[nodiscard]] bool open(const std::string& path, bool createNew, std::string* error);
  bool isOpen() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  /// True when the file is non-empty and its last byte is not '\n' (a torn last line).
  bool endsInsideALine() const;
  /// Appends all of `bytes`. False with `error` = "cannot append to 'PATH': reason".
  [[nodiscard]] bool append(const std::string& bytes, std::string* error);
  void sync();   ///< fdatasync; nothing when not open
  void close();  ///< close (the destructor too); nothing when not open

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace amp::util
