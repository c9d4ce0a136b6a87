#pragma once
// Readers of files from strangers (run folders, dataset lists, label files) with bounded work:
// JSON with a nesting limit, and text lines with a length limit, from regular files only.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace amp::util {

/// The deepest JSON nesting a reader here accepts. Ours nests 3 deep (run.json's versions),
/// PySlowFast's json_stats 1; nlohmann's copy, dump and comparison recurse once per level, so
/// 100,000 '[' would overflow the stack.
inline constexpr int kJsonMaxDepth = 64;

/// Parses `text` as one JSON value nested at most `maxDepth` deep. On failure: nullopt and
/// `error` says why, without a path ("nested more than 64 levels deep", "not valid JSON: ...").
/// The depth is checked by a scan before parsing (linear, no allocation): nlohmann's parser
/// callback, which could refuse it too, erases discarded values by searching their parent, which
/// is quadratic (300 KB of `[{},{},...]` took 46 s).
[[nodiscard]] std::optional<nlohmann::json> parseJson(std::string_view text,
                                                      std::string* error = nullptr,
                                                      int maxDepth = kJsonMaxDepth);

/// True when `j` nests deeper than `maxDepth` (walked without recursion).
bool jsonDeeperThan(const nlohmann::json& j, int maxDepth);

/// Up to `maxChars` of `text`, with "..." when it was longer: for quoting input in a message.
std::string excerpt(std::string_view text, std::size_t maxChars = 80);

/// Lines of a regular file, each at most a stated length: never holds more than that line and a
/// 64 KiB buffer, and a line too long is skipped to its newline (the reader says so), so a file
/// with no newline, or a sparse one, costs no memory. A FIFO, device or folder is refused at
/// open(): /dev/zero never ends, and opening a FIFO waits for a writer.
class LineReader {
 public:
  enum class Result { Line, TooLong, End };

  explicit LineReader(std::size_t maxLineBytes) : maxLine_(maxLineBytes) {}
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// False with `error` as "path: why" when the file cannot be read or is not a regular file.
  [[nodiscard]] bool open(const std::string& path, std::string* error);
  /// The next line, without its '\n' (a '\r' is left for the caller). TooLong: the line had more
  /// than maxLineBytes; `line` is empty and the reader is past its newline. End: no more lines
  /// (or a read error, then error() says it).
  Result next(std::string& line);
  /// 1-based number of the line next() returned last.
  std::uint64_t lineNumber() const { return lineNo_; }
  /// Bytes consumed so far (for readers that stop after a budget).
  std::uint64_t bytesRead() const { return consumed_; }
  const std::string& error() const { return error_; }

 private:
  bool fill();
  int fd_ = -1;
  std::size_t maxLine_;
  std::string buf_;
  std::size_t at_ = 0;
  std::uint64_t lineNo_ = 0, consumed_ = 0;
  bool eof_ = false;
  std::string path_, error_;
};

}  // namespace amp::util
