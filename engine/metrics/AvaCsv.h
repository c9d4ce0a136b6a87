#pragma once
// AVA's box files (https://research.google.com/ava/download.html), read and written as
// PySlowFast's ava_eval_helper does (read_csv, read_exclusions, write_results):
//
//   groundtruth   video,second,x1,y1,x2,y2,action[,person_id]    -0FaIQI8uBU,0902,0.077,...,12,0
//   detections    video,second,x1,y1,x2,y2,action,score
//   exclusions    video,second
//
// Rows are grouped by the key "video,%04d" of their keyframe, keys in the order they first
// appear. These files come from strangers: lines are bounded, a malformed line is an error
// "file:line: what is wrong", never a crash.
//
//   std::string error;
//   const std::set<int> classes = {1, 3, 4};  // the label map's ids; empty keeps every class
//   const auto gt = amp::metrics::readAvaGroundTruth("ava_val_v2.2.csv", classes, &error);
//   if (!gt) return fail(error);
//   for (const AvaImage& image : *gt) use(image.key, image.boxes);
//   if (!amp::metrics::writeAvaCsv("detections_latest.csv", detections, &error)) fail(error);
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace amp::metrics {

struct AvaBox {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;  ///< the file's columns (AVA's are in [0, 1])
  int action = 0;                         ///< a class id of the label map
  double score = 1.0;                     ///< detections' last column; 1 for groundtruth
};

/// The boxes of one keyframe, in file order.
struct AvaImage {
  std::string key;  ///< "video,%04d" (avaImageKey)
  std::vector<AvaBox> boxes;
};

/// PySlowFast's make_image_key: the video id, a comma, the second zero-padded to 4 digits
/// ("abc,0902"; -1 gives "abc,-001" as Python's "%04d" does).
std::string avaImageKey(std::string_view video, std::int64_t second);

/// The longest line the readers take (AVA's are about 60 bytes; video ids are 11 characters).
inline constexpr std::size_t kAvaMaxLineBytes = 4096;
/// The most rows a box file may hold: AVA v2.2's validation detections of PySlowFast (every box
/// with a score for each of the 80 classes) are about 16 million; 50 million boxes are 2.4 GB.
inline constexpr std::int64_t kAvaMaxRows = 50'000'000;

/// The most boxes one keyframe may hold in a file: PySlowFast writes a row per person box and
/// class (30 people x 80 classes = 2,400); matching is quadratic in a keyframe's boxes of a class,
/// so a stranger's file of a million rows on one keyframe is refused rather than matched.
inline constexpr std::size_t kAvaMaxBoxesPerKeyframe = 20000;

/// Groundtruth as read_csv(..., load_score=False): 7 or 8 columns (the 8th, the person id, is
/// not read), score 1. Rows whose action is not in `classes` are skipped (all kept when it is
/// empty). Each row's numbers are checked in read_csv's order (second, box, action) before the
/// class filter, so a bad number is an error on any row. Blank lines are skipped (read_csv's
/// assert refuses them; they hold no box). nullopt with `error` as "file:line: what is wrong".
[[nodiscard]] std::optional<std::vector<AvaImage>> readAvaGroundTruth(const std::string& path,
                                                                      const std::set<int>& classes,
                                                                      std::string* error);

/// Detections as read_csv(..., load_score=True): the score is column 8; a row of 7 columns is an
/// error only when its action is in `classes` (read_csv reads the score after the class filter).
[[nodiscard]] std::optional<std::vector<AvaImage>> readAvaDetections(const std::string& path,
                                                                     const std::set<int>& classes,
                                                                     std::string* error);

/// The excluded keyframes as read_exclusions: exactly 2 columns a row, each made a key.
[[nodiscard]] std::optional<std::set<std::string>> readAvaExclusions(const std::string& path,
                                                                     std::string* error);

/// write_results' lines: "%s,%.03f,%.03f,%.03f,%.03f,%d,%.04f\n" of key, x1, y1, x2, y2, action,
/// score, images in order, boxes in order (whatever the locale; NaN as Python prints it, "nan").
std::string formatAvaCsv(const std::vector<AvaImage>& images);

/// formatAvaCsv written to `path` atomically (a temporary file renamed over it): false with
/// `error` naming the path.
[[nodiscard]] bool writeAvaCsv(const std::string& path, const std::vector<AvaImage>& images,
                               std::string* error);

}  // namespace amp::metrics
