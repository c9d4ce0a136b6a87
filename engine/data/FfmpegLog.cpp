#include "data/FfmpegLog.h"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/log.h>
}

#include <cstdarg>
#include <mutex>

namespace amp::data {
namespace {

thread_local std::string tLastError;

void logHook(void* avcl, int level, const char* fmt, va_list args) {
  if (level > AV_LOG_ERROR) return;
  char line[512];
  int prefix = 1;
  av_log_format_line(avcl, level, fmt, args, line, sizeof line, &prefix);
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (!text.empty()) tLastError = text;
}

}  // namespace

void installFfmpegLogHook() {
  static std::once_flag once;
  std::call_once(once, [] { av_log_set_callback(logHook); });
}

const std::string& lastFfmpegError() {
  return tLastError;
}
void clearLastFfmpegError() {
  tLastError.clear();
}

std::string ffmpegErrorText(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, buf, sizeof buf);
  return buf;
}

}  // namespace amp::data
