#include "data/AvaCheck.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "data/AvaClips.h"
#include "data/FrameList.h"
#include "data/JpegFrames.h"
#include "util/BoundedInput.h"

namespace amp::data {

std::vector<std::int64_t> avaFramesUsed(const ClipParams& p, const AvaDataset& ava, int video) {
  std::set<std::int64_t> used;
  for (const AvaKeyframe& k : ava.keyframes)
    if (k.video == video)
      for (const std::int64_t f : avaClipFrames(p, ava, k)) used.insert(f);
  return {used.begin(), used.end()};
}

AvaVideoCheck checkAvaVideo(const ClipParams& p, const AvaDataset& ava, int video,
                            const AvaVideoCheckOptions& options) {
  AvaVideoCheck r;
  const AvaVideo& v = ava.videos.at(static_cast<std::size_t>(video));
  const std::vector<std::int64_t> used = avaFramesUsed(p, ava, video);
  r.used = static_cast<std::int64_t>(used.size());
  auto problem = [&](std::int64_t frame, const std::string& path, const std::string& message,
                     bool warning) {
    if (r.problems.size() < options.max_problems)
      r.problems.push_back({frame, path, message, warning});
    else
      ++r.more_problems;
  };
  // Which used frames are decoded: all, or an even spread that keeps the first and the last.
  std::vector<bool> decode(used.size(), true);
  if (options.max_decoded > 0 && used.size() > options.max_decoded) {
    r.sampled = true;
    std::fill(decode.begin(), decode.end(), false);
    const std::size_t n = options.max_decoded;
    for (std::size_t k = 0; k < n; ++k) decode[n == 1 ? 0 : k * (used.size() - 1) / (n - 1)] = true;
  }
  bool failed = false;
  DecodedClip frame;  // reused: its pixel buffer is kept from frame to frame
  for (std::size_t i = 0; i < used.size(); ++i) {
    const std::int64_t f = used[i];
    if (f < 0 || static_cast<std::size_t>(f) >= v.frames.size()) {  // a video with no frames
      problem(f, "",
              "has " + std::to_string(v.frames.size()) +
                  " frames in its frame list; its clips "
                  "need frame " +
                  std::to_string(f),
              false);
      failed = true;
      continue;
    }
    const std::string& path = v.frames[static_cast<std::size_t>(f)];
    std::error_code ec;
    if (!decode[i]) {  // looked up only: a missing frame shows without decoding it
      if (!std::filesystem::is_regular_file(path, ec)) {
        problem(f, path, "cannot read '" + path + "': No such file", false);
        failed = true;
      }
      continue;
    }
    std::string why;
    // One frame at a time (the loader decodes a clip's together): the bad one is named, and
    // the sizes are compared here, across the whole video rather than one clip.
    if (!decodeJpegFrames({path}, frame, &why)) {
      problem(f, path, why, false);
      failed = true;
      continue;
    }
    ++r.decoded;
    if (r.width == 0) {
      r.width = frame.width;
      r.height = frame.height;
    } else if (frame.width != r.width || frame.height != r.height) {
      problem(f, path,
              path + ": " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                  ", but the video's first frame is " + std::to_string(r.width) + "x" +
                  std::to_string(r.height) + "; a clip's frames must share one size",
              false);
      failed = true;
    }
    if (frame.corrupt_packets > 0)
      problem(f, path, path + ": warning: truncated, decoded in part (OpenCV reads it so too)",
              true);
  }
  r.ok = !failed;
  return r;
}

std::map<std::string, std::string> avaFrameListLines(const std::vector<std::string>& files,
                                                     const std::string& frameDir,
                                                     const std::set<std::string>& paths) {
  std::map<std::string, std::string> out;
  if (paths.empty()) return out;
  for (const std::string& file : files) {
    util::LineReader in(std::size_t(64) << 10);  // readFrameList's bound
    std::string cannot;
    if (!in.open(file, &cannot)) continue;  // gone since it was read: its frames keep no line
    std::string line;
    for (util::LineReader::Result r; (r = in.next(line)) != util::LineReader::Result::End;) {
      if (r != util::LineReader::Result::Line || in.lineNumber() == 1) continue;  // the header
      std::istringstream fields(line);
      std::string name, id, frame, path;
      if (!(fields >> name >> id >> frame >> path)) continue;
      const std::string joined = joinPathPrefix(frameDir, path);
      if (paths.count(joined) && !out.count(joined))
        out[joined] = file + ":" + std::to_string(in.lineNumber());
    }
  }
  return out;
}

}  // namespace amp::data
