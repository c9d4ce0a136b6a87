#pragma once
// PySlowFast's TensorBoard figures of an evaluation, drawn without matplotlib or Qt (the engine
// runs on GPU servers with the GUI off): the confusion matrix as plot_confusion_matrix draws it
// (matplotlib's Blues colour map over the row-normalised rates, a colour bar, "True label" down
// the side, "Predicted label" below, each cell's rate printed where the cells are large enough to
// hold it) and a class's top-k histogram as plot_topk_histogram draws it (orange bars of the
// most predicted classes, their frequency above each bar, the class as the title). Text is
// FreeType's (data::FrameCanvas); the pixels are RGB24 for data::encodePng.
//
//   std::string error;
//   auto img = metrics::drawConfusionMatrix(m, ids, names, 800, 800, "Confusion matrix", &error);
//   if (!img) return warn(error);              // no font: says what to install
//   std::string png;
//   if (data::encodePng(img->rgb.data(), img->width, img->height, png, &error)) ...
//   auto hist = metrics::drawTopKHistogram("walking", m.topPredictions(3, 10), names, 800, 800,
//                                          &error);
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/ConfusionMatrix.h"

namespace amp::metrics {

struct FigureImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  ///< width x height x 3, rows top to bottom
};

/// The pixels of PySlowFast's FIGSIZE (inches) at matplotlib's 100 dots per inch, each side
/// clamped to 200..4000.
std::pair<int, int> figurePixels(const std::vector<std::int64_t>& figsize);

/// The rates of classes `ids` against each other (ConfusionMatrix::rates: over each class's whole
/// row) as a heat map; `names` holds every class's name by index ("" or missing: its number).
/// Classes too many for a readable name per row are drawn without their names. nullopt with
/// `error` when no font can be opened.
std::optional<FigureImage> drawConfusionMatrix(const ConfusionMatrix& m,
                                               const std::vector<int>& ids,
                                               const std::vector<std::string>& names, int width,
                                               int height, const std::string& title,
                                               std::string* error);
/// Bars of (class, rate) in the given order, titled `title`.
std::optional<FigureImage> drawTopKHistogram(const std::string& title,
                                             const std::vector<std::pair<int, double>>& bars,
                                             const std::vector<std::string>& names, int width,
                                             int height, std::string* error);

/// matplotlib's "Blues" colour map at `t` in [0, 1] (clamped).
std::array<std::uint8_t, 3> bluesColour(double t);

}  // namespace amp::metrics
