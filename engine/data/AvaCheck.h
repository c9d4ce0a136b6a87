#pragma once
// An AVA split checked the way training reads it, for `ampstudio-cli data check` and the
// pre-flight: the frames its keyframes' clips read (each video's, once, however many keyframes
// share a frame), looked up and decoded, and the frame-list line of each bad one. An AVA video
// has ~27,000 frames of which its ~900 keyframes' clips read a few thousand: only those are
// checked, and past `max_decoded` frames a video's decodes are an even sample of them (every
// frame is still looked up).
//
//   AvaVideoCheck v = checkAvaVideo(params, ava, video, {1000});
//   for (const AvaFrameProblem& p : v.problems) report(p.frame_path, p.message);
//   const auto where = avaFrameListLines(settings.frameListFiles(split), settings.frame_dir,
//   paths);
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/AvaDataset.h"
#include "data/ClipSampler.h"

namespace amp::data {

/// The frame indices of video `video` that its keyframes' clips read (avaClipFrames), sorted,
/// each once.
std::vector<std::int64_t> avaFramesUsed(const ClipParams& p, const AvaDataset& ava, int video);

struct AvaVideoCheckOptions {
  /// Decode at most this many of a video's used frames, spread evenly (0: every one).
  std::size_t max_decoded = 0;
  /// Name at most this many bad frames of a video (the rest are counted).
  std::size_t max_problems = 5;
};

struct AvaFrameProblem {
  std::int64_t frame = 0;  ///< index in the video's frame list
  std::string path;
  std::string message;   ///< "cannot read 'path': No such file ..." and the like
  bool warning = false;  ///< decoded in part (a truncated JPEG OpenCV reads too)
};

struct AvaVideoCheck {
  bool ok = false;            ///< every looked-up frame exists and every decoded one decodes
  std::int64_t used = 0;      ///< frames the clips read
  std::int64_t decoded = 0;   ///< of them, decoded without a fault
  bool sampled = false;       ///< more than max_decoded used: the others were looked up only
  int width = 0, height = 0;  ///< the first decoded frame's size
  std::vector<AvaFrameProblem> problems;  ///< at most max_problems, in frame order
  std::int64_t more_problems = 0;         ///< bad frames past max_problems
};

/// The used frames of `video`: each looked up (missing ones named), the decoded ones (all, or a
/// spread of max_decoded) read as the loader reads them; a frame whose size differs from the
/// video's first is a problem, as the clip that holds both fails.
AvaVideoCheck checkAvaVideo(const ClipParams& p, const AvaDataset& ava, int video,
                            const AvaVideoCheckOptions& options);

/// "list.csv:LINE" for each of `paths` in the frame lists `files` (their frame paths joined to
/// `frameDir` as readAvaFrameLists joins them); a path that no line names is absent. Read again
/// only for the frames that failed, so the dataset need not keep a line per frame.
std::map<std::string, std::string> avaFrameListLines(const std::vector<std::string>& files,
                                                     const std::string& frameDir,
                                                     const std::set<std::string>& paths);

}  // namespace amp::data
