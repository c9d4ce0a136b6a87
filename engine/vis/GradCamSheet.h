#pragma once
// Grad-CAM's maps drawn over a clip's frames, as PySlowFast blends them (gradcam_utils: alpha x
// colour map + (1 - alpha) x the frame, normalisation undone), on the clip preview's contact
// sheet; and the legend the PNGs carry (colour bar from 0 to 1 and a caption). Torch-free: the
// maps come from vis/GradCam.h, the frames from data/ClipPreview.h.
//
//   const vis::ColourMap* map = vis::findColourMap("viridis", &error);
//   data::ContactSheet sheet = vis::gradCamSheet(clip, result, *map, 0.5);
//   vis::addLegend(sheet, *map, "class 3 growing, p 0.41 (predicted)", &error);
#include <cstdint>
#include <string>
#include <vector>

#include "data/ClipPreview.h"
#include "vis/ColourMap.h"
#include "vis/GradCamResult.h"

namespace amp::vis {

/// PySlowFast's default blend: half the colour map, half the frame.
inline constexpr double kDefaultAlpha = 0.5;

/// `frames` (T x H x W x 3 bytes) under `map` (T x H x W values in [0, 1]): per pixel
/// alpha x colour(v) + (1 - alpha) x pixel, in [0, 1] then x 255, rounded.
std::vector<std::uint8_t> heatOverlay(const std::vector<std::uint8_t>& frames,
                                      const std::vector<float>& map, const ColourMap& colours,
                                      double alpha);

/// The clip's contact sheet (data::contactSheet) with each pathway's frames under its map:
/// SlowFast's pathway 0 (slow) on the slow row, pathway 1 on the fast row; a one-pathway model's
/// map on the frames. The source frame at the top is left as it is, with the clip's region.
data::ContactSheet gradCamSheet(const data::PreviewClip& clip, const GradCamResult& result,
                                const ColourMap& colours, double alpha);

/// Adds a legend under `sheet`: the colour bar from 0 (left) to 1 with "0" and "1" at its ends,
/// and `caption` on a row of its own (the picture widened when the caption is wider). The text
/// needs a font (data::TextFont): false with `error` when none is found, the bar then alone.
[[nodiscard]] bool addLegend(data::ContactSheet& sheet, const ColourMap& colours,
                             const std::string& caption, std::string* error);

}  // namespace amp::vis
