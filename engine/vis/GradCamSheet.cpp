#include "vis/GradCamSheet.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "data/FrameCanvas.h"

namespace amp::vis {

std::vector<std::uint8_t> heatOverlay(const std::vector<std::uint8_t>& frames,
                                      const std::vector<float>& map, const ColourMap& colours,
                                      double alpha) {
  std::vector<std::uint8_t> out(frames.size());
  const std::size_t pixels = std::min(frames.size() / 3, map.size());
  const float a = static_cast<float>(alpha);
  for (std::size_t i = 0; i < pixels; ++i) {
    const auto heat = colours.at(map[i]);
    for (std::size_t c = 0; c < 3; ++c) {
      const float v = a * heat[c] + (1.0f - a) * (frames[i * 3 + c] / 255.0f);
      out[i * 3 + c] = static_cast<std::uint8_t>(std::clamp(std::lround(v * 255.0f), 0L, 255L));
    }
  }
  std::copy(frames.begin() + static_cast<std::ptrdiff_t>(pixels * 3), frames.end(),
            out.begin() + static_cast<std::ptrdiff_t>(pixels * 3));
  return out;
}

data::ContactSheet gradCamSheet(const data::PreviewClip& clip, const GradCamResult& result,
                                const ColourMap& colours, double alpha) {
  data::PreviewClip shown = clip;
  const std::size_t n = result.maps.size();
  if (n >= 1) {
    shown.fast = heatOverlay(clip.fast, result.maps[n - 1].values, colours, alpha);
    if (n == 2 && !clip.slow.empty())
      shown.slow = heatOverlay(clip.slow, result.maps[0].values, colours, alpha);
  }
  return data::contactSheet(shown, /*drawBoxes=*/false);
}

bool addLegend(data::ContactSheet& sheet, const ColourMap& colours, const std::string& caption,
               std::string* error) {
  constexpr int kGap = 4, kRow = 20, kBarHeight = 12, kFontPixels = 13, kMinWidth = 200;
  auto font = data::TextFont::open(kFontPixels, error);
  // Two rows under the sheet: the bar with its ends labelled, then the caption, the picture
  // widened (grey) when the caption is longer than the sheet is wide.
  const int labelWidth = font ? font->width("0") + 4 : 0;
  const int captionWidth = font ? font->width(caption) + 8 : 0;
  const int width = std::max({sheet.width, kMinWidth, captionWidth});
  const int rows = font ? 2 : 1;
  data::ContactSheet out;
  out.width = width;
  out.height = sheet.height + kGap + rows * kRow;
  out.rgb.assign(static_cast<std::size_t>(out.width) * out.height * 3, 32);  // the sheet's grey
  for (int y = 0; y < sheet.height; ++y)
    std::copy_n(sheet.rgb.data() + static_cast<std::size_t>(y) * sheet.width * 3, sheet.width * 3,
                out.rgb.data() + static_cast<std::size_t>(y) * out.width * 3);
  const int top = sheet.height + kGap;
  const int barLeft = labelWidth, barWidth = std::min(256, std::max(sheet.width, kMinWidth) / 2);
  const int barTop = top + (kRow - kBarHeight) / 2;
  for (int x = 0; x < barWidth; ++x) {
    const auto c = colours.bytesAt((x + 0.5f) / barWidth);
    for (int y = barTop; y < barTop + kBarHeight; ++y)
      std::copy_n(c.data(), 3,
                  out.rgb.data() + (static_cast<std::size_t>(y) * out.width + barLeft + x) * 3);
  }
  sheet = std::move(out);
  if (!font) return false;
  data::FrameCanvas canvas(sheet.rgb.data(), sheet.width, sheet.height);
  const data::Rgb text{230, 230, 230};
  const int textTop = top + (kRow - font->lineHeight()) / 2;
  canvas.text(*font, 0, textTop, "0", text);
  canvas.text(*font, barLeft + barWidth + 3, textTop, "1", text);
  canvas.text(*font, 0, textTop + kRow, caption, text);
  return true;
}

}  // namespace amp::vis
