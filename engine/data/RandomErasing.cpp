#include "data/RandomErasing.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace amp::data {

bool parseEraseMode(const std::string& text, EraseMode& out) {
  std::string mode = text;
  std::transform(mode.begin(), mode.end(), mode.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (mode == "rand")
    out = EraseMode::Rand;
  else if (mode == "pixel")
    out = EraseMode::Pixel;
  else if (mode.empty() || mode == "const")
    out = EraseMode::Const;
  else
    return false;
  return true;
}

std::vector<EraseBox> drawEraseBoxes(const ErasingParams& p, int height, int width,
                                     DrawSource& draws) {
  std::vector<EraseBox> boxes;
  if (draws.uniform() > p.probability) return boxes;
  const int maxCount = std::max(1, p.max_count);  // max_count or min_count
  const int count = maxCount == 1 ? 1 : randInt(draws, 1, maxCount);
  const double area = static_cast<double>(height) * width;
  const double logLo = std::log(p.min_aspect), logHi = std::log(1.0 / p.min_aspect);
  for (int k = 0; k < count; ++k) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      const double target = uniformIn(draws, p.min_area, p.max_area) * area / count;
      const double aspect = std::exp(uniformIn(draws, logLo, logHi));
      const int h = static_cast<int>(std::nearbyint(std::sqrt(target * aspect)));
      const int w = static_cast<int>(std::nearbyint(std::sqrt(target / aspect)));
      if (w < width && h < height) {
        const int top = randInt(draws, 0, height - h);
        const int left = randInt(draws, 0, width - w);
        boxes.push_back({top, left, h, w});
        break;
      }
    }
  }
  return boxes;
}

int firstErasedFrame(const ErasingParams& p, int frames) {
  return p.num_splits > 1 ? frames / p.num_splits : 0;
}

void eraseClip(float* clip, int channels, int frames, int height, int width,
               const std::vector<EraseBox>& boxes, const ErasingParams& p, DrawSource& draws) {
  const std::size_t plane = static_cast<std::size_t>(height) * width;
  for (const EraseBox& b : boxes) {
    for (int t = firstErasedFrame(p, frames); t < frames; ++t) {
      for (int c = 0; c < channels; ++c) {
        const float colour =
            p.mode == EraseMode::Rand ? static_cast<float>(normalDraw(draws)) : 0.0f;
        float* frame =
            clip + (static_cast<std::size_t>(c) * frames + static_cast<std::size_t>(t)) * plane;
        for (int y = b.top; y < b.top + b.height; ++y)
          for (int x = b.left; x < b.left + b.width; ++x)
            frame[static_cast<std::size_t>(y) * width + x] =
                p.mode == EraseMode::Pixel ? static_cast<float>(normalDraw(draws)) : colour;
      }
    }
  }
}

}  // namespace amp::data
