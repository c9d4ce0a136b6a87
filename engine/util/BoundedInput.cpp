#include "util/BoundedInput.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace amp::util {
namespace {

// The deepest bracket nesting outside strings. Exact for valid JSON; for invalid JSON the parse
// that follows fails anyway, so a miscount there lets no deep value through.
bool textDeeperThan(std::string_view s, int maxDepth) {
  int depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if ((c == '[' || c == '{') && ++depth > maxDepth)
      return true;
    else if (c == ']' || c == '}')
      --depth;
  }
  return false;
}

}  // namespace

std::optional<nlohmann::json> parseJson(std::string_view text, std::string* error, int maxDepth) {
  auto fail = [&](const std::string& why) -> std::optional<nlohmann::json> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (textDeeperThan(text, maxDepth))
    return fail("nested more than " + std::to_string(maxDepth) + " levels deep");
  try {
    if (!error) {  // no message wanted: skip the exception a damaged line would cost
      auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
      if (j.is_discarded()) return std::nullopt;
      return j;
    }
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("not valid JSON: ") + e.what());
  } catch (const std::exception& e) {  // std::bad_alloc: the caller says which file
    return fail(std::string("cannot be read (") + e.what() + ")");
  }
}

bool jsonDeeperThan(const nlohmann::json& j, int maxDepth) {
  std::vector<std::pair<const nlohmann::json*, int>> todo{{&j, 1}};
  while (!todo.empty()) {
    const auto [v, depth] = todo.back();
    todo.pop_back();
    if (!v->is_structured()) continue;
    if (depth > maxDepth) return true;
    for (const auto& child : *v) todo.emplace_back(&child, depth + 1);
  }
  return false;
}

std::string excerpt(std::string_view text, std::size_t maxChars) {
  if (text.size() <= maxChars) return std::string(text);
  std::size_t n = maxChars;
  // Not in the middle of a UTF-8 sequence: the message stays valid text.
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return std::string(text.substr(0, n)) + "...";
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::open(const std::string& path, std::string* error) {
  path_ = path;
  // O_NONBLOCK: opening a FIFO must not wait for a writer that never comes.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    if (error) *error = path + ": cannot read it (" + std::strerror(errno) + ")";
    return false;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    if (error)
      *error = path + ": not a regular file (a FIFO, device or folder); point it at a file";
    return false;
  }
  return true;
}

bool LineReader::fill() {
  if (eof_ || fd_ < 0) return false;
  buf_.resize(65536);
  for (;;) {
    const ssize_t n = ::read(fd_, buf_.data(), buf_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error_ = path_ + ": " + std::strerror(errno);
    if (n <= 0) {
      eof_ = true;
      buf_.clear();
      return false;
    }
    buf_.resize(static_cast<std::size_t>(n));
    at_ = 0;
    return true;
  }
}

LineReader::Result LineReader::next(std::string& line) {
  line.clear();
  bool tooLong = false;
  for (;;) {
    if (at_ >= buf_.size()) {
      if (tooLong && fd_ >= 0) {
        // Skipping a line: a hole of a sparse file holds no newline, so jump over it rather
        // than read gigabytes of zeros.
        const off_t cur = ::lseek(fd_, 0, SEEK_CUR);
        off_t data = cur < 0 ? -1 : ::lseek(fd_, cur, SEEK_DATA);
        if (cur >= 0 && data < 0 && errno == ENXIO) data = ::lseek(fd_, 0, SEEK_END);
        if (cur >= 0 && data > cur) consumed_ += static_cast<std::uint64_t>(data - cur);
      }
      if (!fill()) {
        if (!tooLong && line.empty()) return Result::End;
        ++lineNo_;
        return tooLong ? Result::TooLong : Result::Line;
      }
    }
    const char* start = buf_.data() + at_;
    const std::size_t avail = buf_.size() - at_;
    const auto* nl = static_cast<const char*>(std::memchr(start, '\n', avail));
    const std::size_t take = nl ? static_cast<std::size_t>(nl - start) : avail;
    if (!tooLong && line.size() + take > maxLine_) {
      tooLong = true;
      std::string().swap(line);  // gives the memory back
    }
    if (!tooLong) line.append(start, take);
    at_ += take;
    consumed_ += take;
    if (nl) {
      ++at_;
      ++consumed_;
      ++lineNo_;
      return tooLong ? Result::TooLong : Result::Line;
    }
  }
}

}  // namespace amp::util
