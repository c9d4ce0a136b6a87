#include "data/DemoWindows.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "config/Config.h"

namespace amp::data {

DemoWindowParams DemoWindowParams::fromConfig(const config::Config& c) {
  DemoWindowParams p;
  p.num_frames = static_cast<int>(c.getInt("DATA.NUM_FRAMES"));
  p.seq_len = p.num_frames * static_cast<int>(c.getInt("DATA.SAMPLING_RATE"));
  p.buffer = static_cast<int>(c.getInt("DEMO.BUFFER_SIZE"));
  p.clip_vis_size = static_cast<int>(c.getInt("DEMO.CLIP_VIS_SIZE"));
  p.clips_skip = static_cast<int>(c.getInt("DEMO.NUM_CLIPS_SKIP"));
  if (p.seq_len <= 0)
    throw std::invalid_argument(
        "DATA.NUM_FRAMES x DATA.SAMPLING_RATE: the demo's clips need a "
        "positive length, not " +
        std::to_string(p.seq_len));
  if (p.buffer < 0 || p.buffer > p.seq_len / 2)
    throw std::invalid_argument("DEMO.BUFFER_SIZE: " + std::to_string(p.buffer) +
                                " frames; the overlap of two windows is "
                                "0 .. half of DATA.NUM_FRAMES x DATA.SAMPLING_RATE (" +
                                std::to_string(p.seq_len / 2) + " here), as PySlowFast asserts");
  if (p.clip_vis_size < 0)
    throw std::invalid_argument(
        "DEMO.CLIP_VIS_SIZE: frames either side of a window's middle; "
        "0 or more, not " +
        std::to_string(p.clip_vis_size));
  if (p.clips_skip < 0)
    throw std::invalid_argument(
        "DEMO.NUM_CLIPS_SKIP: windows skipped after each predicted one; "
        "0 or more, not " +
        std::to_string(p.clips_skip));
  return p;
}

std::vector<DemoWindow> planDemoWindows(std::int64_t frames, const DemoWindowParams& p) {
  std::vector<DemoWindow> out;
  const std::int64_t step = p.seq_len - p.buffer;  // > 0: buffer <= seq_len / 2
  for (std::int64_t k = 0, first = 0; first + p.seq_len <= frames; ++k, first += step) {
    DemoWindow w;
    w.first = first;
    w.middle = first + p.seq_len / 2;
    // The frames this window adds: all of the first one's, the rest after the shared buffer.
    const std::int64_t added = first + (k == 0 ? 0 : p.buffer);
    w.draw_first = std::max(added, w.middle - p.clip_vis_size);
    w.draw_last = std::min(first + p.seq_len - 1, w.middle + p.clip_vis_size);
    w.predicted = p.clips_skip == 0 || k % (p.clips_skip + 1) == 0;
    // torch.linspace(0, seq_len - 1, num_frames).long(): exact in float32 for these sizes.
    for (int i = 0; i < p.num_frames; ++i) {
      const double t =
          p.num_frames == 1 ? 0.0 : static_cast<double>(i) * (p.seq_len - 1) / (p.num_frames - 1);
      w.sampled.push_back(first + static_cast<std::int64_t>(t));
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace amp::data
