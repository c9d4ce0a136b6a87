#pragma once
// One video checked the way training will read it: opened, then decoded (every frame, or only
// the first for a quick look). Shared by `ampstudio-cli data check` and the pre-flight checks.
#include <cstdint>
#include <string>

#include "data/VideoDecoder.h"

namespace amp::data {

struct VideoCheck {
  bool ok = false;
  std::string message;  ///< why it failed; or, when ok, a warning ("path: warning: ...") or ""
  VideoInfo info;
  std::int64_t frames = 0;  ///< frames decoded (whole stream), or 1 for a first-frame check
};

/// Opens `path` and decodes the whole stream once (counting frames and damaged packets), or
/// only its first frame when `wholeStream` is false (bounded time for long videos).
VideoCheck checkVideo(const std::string& path, bool wholeStream);

}  // namespace amp::data
