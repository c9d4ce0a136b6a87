#pragma once
// PySlowFast's frame lists (datasets/utils.py load_image_lists): the datasets stored as one JPEG
// per frame (Charades, Something-Something V2, AVA) list every frame on a line of their own,
//
//   original_vido_id video_id frame_id path labels
//   46GP8 0 0 46GP8/46GP8-000001.jpg "1,5"
//
// and group the lines by their first field into videos.
//
//   FrameList list;
//   if (!readFrameList(dir + "/train.csv", cfg.pathPrefix, list, &error)) return fail(error);
//   for (const FrameVideo& v : list.videos) use(v.frames, v.frame_labels);
#include <string>
#include <vector>

namespace amp::data {

struct FrameVideo {
  std::string name;                            ///< original_vido_id (column 1)
  std::vector<std::string> frames;             ///< paths, PATH_PREFIX joined as os.path.join
  std::vector<std::vector<int>> frame_labels;  ///< per frame: "1,5" -> {1, 5}, "" -> {}
  int line = 0;                                ///< 1-based line of its first frame
};

struct FrameList {
  std::string path;
  std::vector<FrameVideo> videos;  ///< in the order of their first line
  int maxLabel = -1;               ///< the largest label of any frame; -1 when none has one
};

/// Reads the frame list `file` as PySlowFast does: the first line must start with
/// "original_vido_id" (PySlowFast's spelling); every later line, split at whitespace, has exactly
/// five fields. Lines of one video need not be next to each other (frames keep the file's
/// order). Each path is joined to `pathPrefix` as os.path.join does (an absolute path keeps no
/// prefix). Labels lose their '"' and are comma-separated class indices (>= 0); an empty field
/// means no label. False with `error` as "file:line: what is wrong" for the first malformed line
/// (and how many more there are).
[[nodiscard]] bool readFrameList(const std::string& file, const std::string& pathPrefix,
                                 FrameList& out, std::string* error);

/// os.path.join(prefix, path) for POSIX paths: "" keeps `path`, an absolute `path` drops the
/// prefix, else one '/' between them unless `prefix` already ends with one.
std::string joinPathPrefix(const std::string& prefix, const std::string& path);

}  // namespace amp::data
