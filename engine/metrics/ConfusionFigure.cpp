#include "metrics/ConfusionFigure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "data/FrameCanvas.h"

namespace amp::metrics {
namespace {

using data::FrameCanvas;
using data::Rgb;
using data::TextFont;

constexpr Rgb kBlack{0, 0, 0}, kWhite{255, 255, 255}, kGrey{90, 90, 90};
constexpr Rgb kOrange{255, 165, 0};  // matplotlib's "orange", plot_topk_histogram's bars

std::string nameOf(const std::vector<std::string>& names, int k) {
  if (k >= 0 && static_cast<std::size_t>(k) < names.size() &&
      !names[static_cast<std::size_t>(k)].empty())
    return names[static_cast<std::size_t>(k)];
  return std::to_string(k);
}

std::string fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// `utf8` cut with "…" to at most `maxWidth` pixels.
std::string fitted(const TextFont& font, std::string utf8, int maxWidth) {
  if (font.width(utf8) <= maxWidth) return utf8;
  const std::string ellipsis = "\xE2\x80\xA6";
  while (!utf8.empty() && font.width(utf8 + ellipsis) > maxWidth) {
    utf8.pop_back();
    while (!utf8.empty() && (static_cast<unsigned char>(utf8.back()) & 0xC0) == 0x80)
      utf8.pop_back();  // a whole UTF-8 sequence at a time
  }
  return utf8.empty() ? std::string() : utf8 + ellipsis;
}

// A white figure with the drawing calls the two plots share.
class Figure {
 public:
  Figure(int width, int height)
      : img_{width, height,
             std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height * 3, 255)},
        canvas_(img_.rgb.data(), width, height) {}
  FrameCanvas& canvas() { return canvas_; }
  FigureImage take() { return std::move(img_); }

  // `utf8` centred on x, its line box's top at y.
  void centred(const TextFont& font, int x, int y, const std::string& utf8, Rgb colour) {
    canvas_.text(font, x - font.width(utf8) / 2, y, utf8, colour);
  }
  // `utf8` turned a quarter to the left (read bottom to top), its end at (x, yBottom) when
  // `anchorEnd`, else starting there going up; x is the left of the turned line box. The text is
  // drawn white on black into a scratch frame whose grey levels then blend `colour` in.
  void vertical(const TextFont& font, int x, int y, const std::string& utf8, Rgb colour,
                bool endAtY) {
    const int w = font.width(utf8) + 1, h = font.lineHeight();
    if (w <= 1 || h <= 0) return;
    std::vector<std::uint8_t> scratch(static_cast<std::size_t>(w) * h * 3, 0);
    FrameCanvas(scratch.data(), w, h).text(font, 0, 0, utf8, kWhite);
    // Scratch (col, row) goes to (x + row, top + w - 1 - col): the text reads upwards.
    const int top = endAtY ? y : y - w;
    for (int row = 0; row < h; ++row)
      for (int col = 0; col < w; ++col) {
        const std::uint8_t cover = scratch[(static_cast<std::size_t>(row) * w + col) * 3];
        if (cover) blend(x + row, top + w - 1 - col, colour, cover / 255.0);
      }
  }
  void blend(int x, int y, Rgb colour, double alpha) {
    if (x < 0 || y < 0 || x >= img_.width || y >= img_.height) return;
    std::uint8_t* p = img_.rgb.data() + (static_cast<std::size_t>(y) * img_.width + x) * 3;
    for (int c = 0; c < 3; ++c)
      p[c] = static_cast<std::uint8_t>(std::lround(p[c] + (colour[c] - p[c]) * alpha));
  }

 private:
  FigureImage img_;
  FrameCanvas canvas_;
};

std::unique_ptr<TextFont> openFont(int pixels, std::string* error) {
  std::string why;
  auto font = TextFont::open(std::max(6, pixels), &why);
  if (!font && error) *error = "cannot draw the figure's text: " + why;
  return font;
}

}  // namespace

std::pair<int, int> figurePixels(const std::vector<std::int64_t>& figsize) {
  const auto side = [&](std::size_t i) {
    const std::int64_t inches = i < figsize.size() ? figsize[i] : 8;
    return static_cast<int>(std::clamp<std::int64_t>(inches * 100, 200, 4000));
  };
  return {side(0), side(1)};
}

std::array<std::uint8_t, 3> bluesColour(double t) {
  // matplotlib's Blues (ColorBrewer's sequential blues), its nine anchors.
  static const std::uint8_t kAnchors[9][3] = {{247, 251, 255}, {222, 235, 247}, {198, 219, 239},
                                              {158, 202, 225}, {107, 174, 214}, {66, 146, 198},
                                              {33, 113, 181},  {8, 81, 156},    {8, 48, 107}};
  if (!(t > 0)) t = 0;  // NaN too
  t = std::min(t, 1.0) * 8.0;
  const int i = std::min(static_cast<int>(t), 7);
  const double f = t - i;
  std::array<std::uint8_t, 3> c{};
  for (int k = 0; k < 3; ++k)
    c[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(
        std::lround(kAnchors[i][k] + (kAnchors[i + 1][k] - kAnchors[i][k]) * f));
  return c;
}

std::optional<FigureImage> drawConfusionMatrix(const ConfusionMatrix& m,
                                               const std::vector<int>& ids,
                                               const std::vector<std::string>& names, int width,
                                               int height, const std::string& title,
                                               std::string* error) {
  const int n = static_cast<int>(ids.size());
  const int base = std::max(10, std::min(width, height) / 50);  // 16 px at 800 x 800
  auto font = openFont(base, error), small = openFont(base * 3 / 4, error);
  if (!font || !small) return std::nullopt;
  Figure fig(width, height);
  FrameCanvas& cv = fig.canvas();
  // Names only where a row is tall enough for a line of text: 400 classes in 800 pixels are not.
  const int margin = base;
  const int plotSpan = std::min(width, height) * 3 / 4;
  int cell = n > 0 ? std::max(1, plotSpan / n) : 1;
  auto labelFont = openFont(std::min(base, cell - 2), error);
  if (!labelFont) return std::nullopt;
  const bool named = cell >= 8;
  int labelSpace = 0;
  if (named)
    for (const int k : ids) labelSpace = std::max(labelSpace, labelFont->width(nameOf(names, k)));
  labelSpace = std::min(labelSpace + 6, width / 4);
  const int left = margin + font->lineHeight() + labelSpace;  // "True label", the names
  const int top = margin + font->lineHeight() + margin / 2;   // the title
  const int colourBar = base * 5;                             // its bar and tick labels
  const int bottom = margin + font->lineHeight() + labelSpace;
  const int avail = std::max(1, std::min(width - left - colourBar - margin, height - top - bottom));
  cell = n > 0 ? std::max(1, avail / n) : 1;
  const int side = cell * n;
  double vmax = 0;  // imshow scales its colours to the data, as PySlowFast's figure
  const std::vector<double> rates = m.rates(ids);
  for (const double r : rates) vmax = std::max(vmax, r);
  const double scale = vmax > 0 ? vmax : 1.0;

  fig.centred(*font, left + side / 2, margin / 2, title, kBlack);
  const bool values = cell >= small->width("0.00") + 4 && cell >= small->lineHeight() + 2;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double r = rates[static_cast<std::size_t>(i) * n + j];
      const auto c = bluesColour(r / scale);
      const int x = left + j * cell, y = top + i * cell;
      cv.fill({x, y, x + cell - 1, y + cell - 1}, {c[0], c[1], c[2]});
      if (values)  // as plot_confusion_matrix: white on dark cells, "." for an empty one
        fig.centred(*small, x + cell / 2, y + (cell - small->lineHeight()) / 2,
                    r != 0 ? fixed2(r) : ".", r > scale / 2 ? kWhite : kBlack);
    }
  cv.rectangle({left - 1, top - 1, left + side, top + side}, kBlack, 1);
  if (named)
    for (int i = 0; i < n; ++i) {
      const std::string name =
          fitted(*labelFont, nameOf(names, ids[static_cast<std::size_t>(i)]), labelSpace - 6);
      const int yText = top + i * cell + (cell - labelFont->lineHeight()) / 2;
      cv.text(*labelFont, left - 4 - labelFont->width(name), yText, name, kBlack);
      fig.vertical(*labelFont, left + i * cell + (cell - labelFont->lineHeight()) / 2,
                   top + side + 4, name, kBlack, /*endAtY=*/true);
    }
  else
    fig.centred(*small, left + side / 2, top + side + 4,
                std::to_string(n) + " classes (too many to name at this size)", kGrey);
  fig.vertical(*font, margin / 2, top + side / 2 + font->width("True label") / 2, "True label",
               kBlack, /*endAtY=*/false);
  fig.centred(*font, left + side / 2, height - margin / 2 - font->lineHeight(), "Predicted label",
              kBlack);
  // The colour bar, 0 at the bottom.
  const int barX = left + side + base, barW = std::max(8, base);
  for (int y = 0; y < side; ++y) {
    const auto c = bluesColour(1.0 - static_cast<double>(y) / std::max(1, side - 1));
    cv.fill({barX, top + y, barX + barW - 1, top + y}, {c[0], c[1], c[2]});
  }
  cv.rectangle({barX - 1, top - 1, barX + barW, top + side}, kBlack, 1);
  for (int t = 0; t <= 4; ++t) {
    const int y = top + side - 1 - (side - 1) * t / 4;
    cv.fill({barX + barW, y, barX + barW + 3, y}, kBlack);
    cv.text(*small, barX + barW + 5, y - small->lineHeight() / 2, fixed2(scale * t / 4), kBlack);
  }
  return fig.take();
}

std::optional<FigureImage> drawTopKHistogram(const std::string& title,
                                             const std::vector<std::pair<int, double>>& bars,
                                             const std::vector<std::string>& names, int width,
                                             int height, std::string* error) {
  const int base = std::max(10, std::min(width, height) / 50);
  auto font = openFont(base, error), small = openFont(base * 3 / 4, error);
  if (!font || !small) return std::nullopt;
  Figure fig(width, height);
  FrameCanvas& cv = fig.canvas();
  const int k = static_cast<int>(bars.size());
  int labelSpace = 0;
  for (const auto& [cls, rate] : bars)
    labelSpace = std::max(labelSpace, small->width(nameOf(names, cls)));
  labelSpace = std::min(labelSpace + 6, height / 3);
  const int left = base + font->lineHeight() + small->width("0.0") + 10;
  const int top = base + font->lineHeight() * 2;
  const int bottom = base + font->lineHeight() + labelSpace;
  const int plotW = std::max(1, width - left - base), plotH = std::max(1, height - top - bottom);
  fig.centred(*font, left + plotW / 2, base / 2, title, kBlack);
  // The y axis from 0 to 1, as PySlowFast's fixed ticks.
  for (int t = 0; t <= 5; ++t) {
    const int y = top + plotH - plotH * t / 5;
    cv.fill({left - 4, y, left - 1, y}, kBlack);
    const std::string label = fixed2(t / 5.0).substr(0, 3);
    cv.text(*small, left - 6 - small->width(label), y - small->lineHeight() / 2, label, kBlack);
  }
  cv.fill({left - 1, top, left - 1, top + plotH}, kBlack);
  cv.fill({left - 1, top + plotH, left + plotW, top + plotH}, kBlack);
  const int slot = k > 0 ? plotW / k : plotW;
  const int barW = std::max(1, slot * 3 / 4);  // PySlowFast's width 0.75
  for (int i = 0; i < k; ++i) {
    const auto& [cls, rate] = bars[static_cast<std::size_t>(i)];
    const int x = left + i * slot + (slot - barW) / 2;
    const int h = static_cast<int>(std::lround(std::clamp(rate, 0.0, 1.0) * plotH));
    if (h > 0) cv.fill({x, top + plotH - h, x + barW - 1, top + plotH - 1}, kOrange);
    fig.centred(*small, x + barW / 2, top + plotH - h - small->lineHeight() - 2, fixed2(rate),
                kOrange);
    const std::string name = fitted(*small, nameOf(names, cls), labelSpace - 6);
    fig.vertical(*small, x + (barW - small->lineHeight()) / 2, top + plotH + 4, name, kBlack,
                 /*endAtY=*/true);
  }
  fig.vertical(*font, base / 2, top + plotH / 2 + font->width("Frequency") / 2, "Frequency", kBlack,
               /*endAtY=*/false);
  fig.centred(*font, left + plotW / 2, height - base / 2 - font->lineHeight(), "Candidates",
              kBlack);
  return fig.take();
}

}  // namespace amp::metrics
