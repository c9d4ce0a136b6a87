#pragma once
// FFmpeg prints to stderr from every thread by default. We route its messages into a per-thread
// "last error" that our own messages quote, and drop its informational chatter.
#include <string>

namespace amp::data {

/// Installs the log hook once per process (thread-safe).
void installFfmpegLogHook();
/// FFmpeg's last error on this thread ("Invalid NAL unit size"), or "".
const std::string& lastFfmpegError();
void clearLastFfmpegError();
/// FFmpeg's text for an AVERROR code.
std::string ffmpegErrorText(int code);

}  // namespace amp::data
