#include "vis/ClipVideo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "data/GifEncoder.h"

namespace amp::vis {

std::vector<ClipLabel> topLabels(const std::vector<float>& scores, int k,
                                 const std::map<int, std::string>& names) {
  std::vector<int> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return scores[static_cast<std::size_t>(a)] > scores[static_cast<std::size_t>(b)];
  });
  order.resize(std::min(order.size(), static_cast<std::size_t>(std::max(0, k))));
  std::vector<ClipLabel> out;
  for (const int c : order) {
    char score[32];
    std::snprintf(score, sizeof score, "[%.2f] ",
                  static_cast<double>(scores[static_cast<std::size_t>(c)]));
    const auto name = names.find(c);
    out.push_back({c, score + (name != names.end() ? name->second : std::to_string(c))});
  }
  return out;
}

std::unique_ptr<ClipVideo> ClipVideo::open(const std::string& colormap, int classes,
                                           std::map<int, std::string> names, std::string* error) {
  std::unique_ptr<ClipVideo> v(new ClipVideo);
  std::string why;
  v->colours_ = findColourMap(colormap, &why);
  if (!v->colours_) {
    if (error) *error = "TENSORBOARD.MODEL_VIS.COLORMAP: " + why;
    return nullptr;
  }
  v->classes_ = std::max(1, classes);
  v->names_ = std::move(names);
  return v;
}

bool ClipVideo::encode(std::vector<std::uint8_t>& frames, int t, int h, int w,
                       const std::vector<ClipLabel>& labels, const std::string& tag,
                       runlog::TensorBoardImage& out, std::string* error) {
  // PySlowFast's label font grows with the frame (sqrt(H x W) / 35 points, 5 to 9); in pixels
  // that is about sqrt(H x W) / 20 (7 pixels, the least that reads, on small crops).
  const int pixels = std::clamp(static_cast<int>(std::sqrt(double(h) * w) / 20), 7, 20);
  if (!labels.empty() && fontProblem_.empty() && (!font_ || fontPixels_ != pixels)) {
    font_ = data::TextFont::open(pixels, &fontProblem_);
    fontPixels_ = pixels;
  }
  if (font_ && !labels.empty()) {
    const std::size_t frameBytes = static_cast<std::size_t>(h) * static_cast<std::size_t>(w) * 3;
    for (int f = 0; f < t; ++f) {
      data::FrameCanvas canvas(frames.data() + frameBytes * static_cast<std::size_t>(f), w, h);
      int y = 5;
      for (const ClipLabel& l : labels) {
        const auto c = colours_->bytesAt(static_cast<float>(l.class_index) / classes_);
        canvas.label(*font_, 0, y, l.text, {255, 255, 255}, {c[0], c[1], c[2]}, 0.5);
        y += font_->lineHeight() + 7;  // the panel (3 pixels of padding each side) and a gap
      }
    }
  }
  std::string gif;
  if (!data::encodeGif(frames.data(), t, w, h, kVideoFps, gif, error)) return false;
  out = {tag, w, h, std::move(gif)};
  return true;
}

}  // namespace amp::vis
