#include "data/AvaDemoInput.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "data/JpegFrames.h"

namespace amp::data {

namespace fs = std::filesystem;

AvaDemoInput::AvaDemoInput() = default;
AvaDemoInput::~AvaDemoInput() = default;

bool AvaDemoInput::open(const std::string& path, double folderFps, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    return false;
  };
  path_ = path;
  frames_.clear();
  decoder_.reset();
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    // PySlowFast reads "<folder>/<name>_%06d.jpg" through OpenCV; any *.jpg in name order
    // covers that naming and AVA's extracted frame folders.
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file(ec) && e.path().extension() == ".jpg")
        frames_.push_back(e.path().string());
    if (ec) return fail(ec.message());
    if (frames_.empty()) return fail("a folder with no .jpg frames");
    std::sort(frames_.begin(), frames_.end());
    if (!(folderFps > 0)) return fail("a folder of frames needs a frame rate (DEMO.FPS)");
    DecodedClip first;
    if (!decodeJpegFrames({frames_.front()}, first, error)) return false;
    fps_ = folderFps;
    count_ = static_cast<std::int64_t>(frames_.size());
    width_ = first.width;
    height_ = first.height;
    name_ = fs::path(path).lexically_normal().filename().string();
    if (name_.empty() || name_ == ".")  // "dir/" names the folder before the slash
      name_ = fs::path(path).lexically_normal().parent_path().filename().string();
    return true;
  }
  decoder_ = std::make_unique<VideoDecoder>();
  if (!decoder_->open(path, error)) return false;
  const VideoInfo& info = decoder_->info();
  fps_ = info.fps;
  count_ = info.frames;
  width_ = info.width;
  height_ = info.height;
  if (!(fps_ > 0) || count_ <= 0) return fail("the video does not say its frame rate or length");
  const std::string file = fs::path(path).filename().string();
  name_ = file.substr(0, file.find('.'));  // video_name.split(".")[0]
  return true;
}

bool AvaDemoInput::read(const std::vector<std::int64_t>& indices, DecodedClip& out,
                        std::string* error) {
  for (const std::int64_t i : indices)
    if (i < 0 || i >= count_) {
      if (error) *error = path_ + ": frame " + std::to_string(i) + " of " + std::to_string(count_);
      return false;
    }
  if (!frames_.empty()) {
    std::vector<std::string> paths;
    paths.reserve(indices.size());
    for (const std::int64_t i : indices) paths.push_back(frames_[static_cast<std::size_t>(i)]);
    if (!decodeJpegFrames(paths, out, error)) return false;
    out.indices = indices;
    return true;
  }
  if (!decoder_->decode(indices, 0, 0, out, error)) return false;
  // cv2.VideoCapture gives B, G, R: the order the AVA transform expects of its frames.
  for (std::size_t p = 0; p + 2 < out.rgb.size(); p += 3) std::swap(out.rgb[p], out.rgb[p + 2]);
  return true;
}

bool readDemoKeyframes(const AvaBoxFile& file, const AvaDemoInput& input,
                       const AvaBoxOptions& options, int startingSecond, DemoKeyframes& out,
                       std::string* error) {
  out = {};
  AvaBoxTable table;
  if (!readAvaBoxes({file}, options, table, error)) return false;
  out.below_score_thresh = table.below_score_thresh;
  const AvaVideoBoxes* video = table.find(input.name());
  if (!video) {
    std::string names;
    for (std::size_t i = 0; i < table.videos.size() && i < 5; ++i)
      names += (i ? ", " : "") + table.videos[i].name;
    if (table.videos.size() > 5) names += ", ...";
    if (error)
      *error = file.path + ": no boxes for video '" + input.name() + "' (the input " +
               input.path() + "); " +
               (names.empty() ? std::string("the file has no box in AVA's seconds 902 .. 1798")
                              : "it names " + names);
    return false;
  }
  for (const auto& [second, boxes] : video->seconds) {
    if (boxes.empty()) continue;  // load_boxes_labels skips keyframes without boxes
    const auto frame =
        static_cast<std::int64_t>(std::llround((second - startingSecond) * input.fps()));
    if (frame < 0 || frame >= input.frameCount()) {
      ++out.outside_input;
      continue;
    }
    out.keyframes.push_back({second, frame, boxes});
    out.boxes += static_cast<std::int64_t>(boxes.size());
  }
  return true;
}

}  // namespace amp::data
