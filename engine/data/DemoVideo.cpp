#include "data/DemoVideo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "config/Config.h"
#include "data/FrameCanvas.h"
#include "data/VideoWriter.h"

namespace amp::data {
namespace {

// Matplotlib's Pastel2, the colour map PySlowFast's visualiser gives class labels by default
// (TENSORBOARD.MODEL_VIS.COLORMAP), with dark text on it.
constexpr std::array<Rgb, 8> kPastel2{{{179, 226, 205},
                                       {253, 205, 172},
                                       {203, 213, 232},
                                       {244, 202, 228},
                                       {230, 245, 201},
                                       {255, 242, 174},
                                       {241, 226, 204},
                                       {204, 204, 204}}};
constexpr Rgb kPredicted{40, 200, 60}, kGroundTruth{230, 40, 40}, kText{20, 20, 20};

std::string className(int k, const std::map<int, std::string>& names) {
  const auto it = names.find(k);
  return it != names.end() ? it->second : "class " + std::to_string(k);
}

// One box and its label panels: predictions stacked down from the top-left corner, ground truth
// stacked up from the bottom-left corner (as the visualiser's top_corner).
void drawBox(FrameCanvas& canvas, const TextFont& font, const DemoBoxDrawing& b, int width,
             int height) {
  if (b.whole_frame) {
    const int step = font.lineHeight() + 7;
    int y = 5;
    for (const DemoLabel& l : b.labels) {
      const Rgb bg =
          kPastel2[static_cast<std::size_t>(std::max(0, l.class_index)) % kPastel2.size()];
      canvas.label(font, 0, y, l.text, kText, bg, 0.7);
      y += step;
    }
    return;
  }
  const PixelRect r{static_cast<int>(std::lround(b.box[0] * width)),
                    static_cast<int>(std::lround(b.box[1] * height)),
                    static_cast<int>(std::lround(b.box[2] * width)),
                    static_cast<int>(std::lround(b.box[3] * height))};
  canvas.rectangle(r, b.ground_truth ? kGroundTruth : kPredicted, std::max(2, height / 240));
  const int step = font.lineHeight() + 7;
  int y = b.ground_truth ? r[3] - step : r[1];
  for (const DemoLabel& l : b.labels) {
    const Rgb bg = kPastel2[static_cast<std::size_t>(std::max(0, l.class_index)) % kPastel2.size()];
    canvas.label(font, r[0], y, l.text, kText, bg);
    y += b.ground_truth ? -step : step;
  }
}

}  // namespace

DemoVisParams DemoVisParams::fromConfig(const config::Config& c,
                                        const std::map<int, std::string>& names) {
  DemoVisParams p;
  p.mode = c.getString("DEMO.VIS_MODE");
  p.top_k = static_cast<int>(c.getInt("TENSORBOARD.MODEL_VIS.TOPK_PREDS"));
  p.common_thres = c.getFloat("DEMO.COMMON_CLASS_THRES");
  p.uncommon_thres = c.getFloat("DEMO.UNCOMMON_CLASS_THRES");
  if (!names.empty()) {  // _get_thres_array: common classes by name when there are names
    const auto common = c.getStringList("DEMO.COMMON_CLASS_NAMES");
    for (const auto& [k, name] : names)
      if (std::find(common.begin(), common.end(), name) != common.end()) p.common_classes.insert(k);
    if (p.common_classes.empty()) p.common_classes.insert(-1);  // none is common
  }
  return p;
}

std::vector<DemoLabel> DemoVisParams::labels(const std::vector<float>& scores,
                                             const std::map<int, std::string>& names) const {
  std::vector<std::pair<float, int>> shown;
  for (std::size_t k = 0; k < scores.size(); ++k)
    shown.emplace_back(scores[k], static_cast<int>(k));
  if (mode == "top-k") {
    const std::size_t n = std::min(scores.size(), static_cast<std::size_t>(std::max(0, top_k)));
    std::partial_sort(shown.begin(), shown.begin() + static_cast<std::ptrdiff_t>(n), shown.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    shown.resize(n);
  } else {
    const auto keep = [&](const std::pair<float, int>& s) {
      const bool common = common_classes.empty() || common_classes.count(s.second);
      return s.first >= (common ? common_thres : uncommon_thres);
    };
    shown.erase(std::remove_if(shown.begin(), shown.end(), [&](const auto& s) { return !keep(s); }),
                shown.end());
    std::stable_sort(shown.begin(), shown.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
  }
  std::vector<DemoLabel> out;
  for (const auto& [score, k] : shown) {
    char text[16];
    std::snprintf(text, sizeof text, " %.2f", static_cast<double>(score));
    out.push_back({k, className(k, names) + text});
  }
  return out;
}

std::vector<DemoLabel> groundTruthLabels(const std::vector<int>& actionIds,
                                         const std::map<int, std::string>& names) {
  std::vector<DemoLabel> out;
  for (const int id : actionIds)
    if (id > 0) out.push_back({id - 1, "GT " + className(id - 1, names)});
  return out;
}

bool writeDemoVideo(AvaDemoInput& input, const std::vector<DemoDrawing>& drawings,
                    const DemoVideoOptions& o, std::string* error) {
  const std::int64_t total = input.frameCount();
  const int width = input.width(), height = input.height();
  const int outW = width & ~1, outH = height & ~1;
  // Per frame, the drawings that cover it.
  std::vector<std::vector<std::size_t>> cover(
      static_cast<std::size_t>(std::max<std::int64_t>(total, 0)));
  for (std::size_t d = 0; d < drawings.size(); ++d) {
    const DemoDrawing& g = drawings[d];
    const std::int64_t first = g.first >= 0 ? g.first : g.frame - o.draw_radius;
    const std::int64_t last = g.first >= 0 ? g.last : g.frame + o.draw_radius;
    for (std::int64_t f = std::max<std::int64_t>(0, first); f <= std::min(total - 1, last); ++f)
      cover[static_cast<std::size_t>(f)].push_back(d);
  }
  // PySlowFast scales its label font with the frame: about 1/30 of its geometric mean size.
  const int fontPixels =
      std::clamp(static_cast<int>(std::sqrt(double(width) * height) / 30), 10, 28);
  auto font = TextFont::open(fontPixels, error);
  if (!font) return false;
  VideoWriterOptions wo;
  wo.width = outW;
  wo.height = outH;
  wo.fps = std::max(1, static_cast<int>(std::lround(o.fps > 0 ? o.fps : input.fps())));
  VideoWriter writer;
  if (!writer.open(o.output, wo, error)) return false;
  auto abandon = [&](const std::string& why) {
    std::string ignored;
    (void)writer.close(&ignored);  // the file is removed next: its close cannot matter
    std::error_code ec;
    std::filesystem::remove(o.output, ec);
    if (error) *error = why;
    return false;
  };
  constexpr std::int64_t kChunk = 32;
  DecodedClip chunk;
  std::vector<std::uint8_t> frame(static_cast<std::size_t>(outW) * outH * 3);
  std::string why;
  for (std::int64_t start = 0; start < total; start += kChunk) {
    std::vector<std::int64_t> indices;
    for (std::int64_t f = start; f < std::min(total, start + kChunk); ++f) indices.push_back(f);
    if (!input.read(indices, chunk, &why)) return abandon(why);
    for (std::size_t i = 0; i < indices.size(); ++i) {
      const std::uint8_t* bgr = chunk.frame(i);
      for (int y = 0; y < outH; ++y)
        for (int x = 0; x < outW; ++x) {
          const std::uint8_t* s = bgr + (static_cast<std::size_t>(y) * width + x) * 3;
          std::uint8_t* d = frame.data() + (static_cast<std::size_t>(y) * outW + x) * 3;
          d[0] = s[2];
          d[1] = s[1];
          d[2] = s[0];
        }
      const auto& covering = cover[static_cast<std::size_t>(indices[i])];
      FrameCanvas canvas(frame.data(), outW, outH);
      for (const std::size_t d : covering)
        for (const DemoBoxDrawing& b : drawings[d].boxes) drawBox(canvas, *font, b, width, height);
      const int copies = covering.empty() ? 1 : std::max(1, o.slowmo);
      for (int k = 0; k < copies; ++k)
        if (!writer.write(frame.data(), &why)) return abandon(why);
      if (o.progress && !o.progress(indices[i] + 1, total)) return abandon(o.output + ": stopped");
    }
  }
  return writer.close(error);
}

}  // namespace amp::data
