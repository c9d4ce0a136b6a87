#pragma once
// One video checked the way training will read it: opened, then decoded (every frame, or only
// the first for a quick look). Shared by `ampstudio-cli data check` and the pre-flight checks.
#include <cstdint>
#include <string>
#include <vector>

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

/// A frame folder's frames decoded as training reads them (every one, or the first, middle and
/// last when `wholeStream` is false): the first frame that is missing or does not decode is
/// named; sizes that differ within the folder fail as they fail a clip. info carries the size.
VideoCheck checkFrames(const std::vector<std::string>& frames, bool wholeStream);

}  // namespace amp::data
