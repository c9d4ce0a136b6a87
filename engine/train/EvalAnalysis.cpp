#include "train/EvalAnalysis.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "config/Config.h"
#include "data/ImageWriter.h"
#include "metrics/ConfusionFigure.h"
#include "runlog/RunRecorder.h"

namespace amp::train {

EvalAnalysis::EvalAnalysis(const config::Config& cfg, runlog::RunRecorder& rec)
    : cfg_(cfg), rec_(rec) {
  std::string error;
  if (auto g = metrics::readClassGroups(cfg, &error))
    groups_ = std::move(*g);
  else
    rec_.event("analysis",
               error + "; the confusion matrix is recorded with class numbers and no groups", 0, 0);
  if (!groups_.unknown.empty())
    rec_.event("analysis",
               std::to_string(groups_.unknown.size()) +
                   " class names of the subset or category files are not in " + groups_.names_file +
                   " and are left out (as PySlowFast), first: " + groups_.unknown.front(),
               0, 0);
}

std::string histogramTag(int k, const std::string& className) {
  return "Top " + std::to_string(k) + " predictions by classes/" + className;
}

runlog::PerClassValues perClassAccuracy(const metrics::ConfusionRecord& r) {
  runlog::PerClassValues p;
  p.split = r.split;
  p.metric = "top1_acc";
  const int k = r.matrix.classes();
  for (int c = 0; c < k; ++c) {
    p.classes.push_back(c);
    p.values.push_back(r.matrix.accuracy(c));
    p.positives.push_back(r.matrix.samples(c));
  }
  if (!r.names.empty()) p.names = r.names;
  return p;
}

void EvalAnalysis::record(metrics::ConfusionRecord r, std::int64_t step, double epoch,
                          std::int64_t tbStep) {
  if (!rec_.writes()) return;
  r.step = step;
  r.epoch = epoch;
  metrics::applyClassGroups(r, groups_);
  const std::string path =
      metrics::confusionFilePath(rec_.dir().dir(), r.split, static_cast<int>(std::lround(epoch)));
  std::string error;
  if (!metrics::writeConfusionRecord(r, path, &error))
    rec_.event("analysis", "the confusion matrix is not kept: " + error, step, epoch);
  rec_.recordPerClass(perClassAccuracy(r), step, epoch);
  if (rec_.tensorBoardOpen()) rec_.imagesToTensorBoard(figures(r), tbStep, step, epoch);
}

std::vector<runlog::TensorBoardImage> EvalAnalysis::figures(const metrics::ConfusionRecord& r) {
  if (warnedFigures_) return {};
  std::string problem;
  auto out = evalFigures(cfg_, groups_, r, &problem);
  if (!problem.empty()) {
    warnedFigures_ = true;
    rec_.event("tensorboard", "TENSORBOARD figures are not drawn: " + problem, r.step, r.epoch);
  }
  return out;
}

std::vector<runlog::TensorBoardImage> evalFigures(const config::Config& cfg,
                                                  const metrics::ClassGroups& groups,
                                                  const metrics::ConfusionRecord& r,
                                                  std::string* problem) {
  std::vector<runlog::TensorBoardImage> out;
  const bool matrices = cfg.getBool("TENSORBOARD.CONFUSION_MATRIX.ENABLE");
  const bool histograms = cfg.getBool("TENSORBOARD.HISTOGRAM.ENABLE");
  if (!matrices && !histograms) return out;
  std::string error;
  bool failed = false;
  const auto add = [&](const std::string& tag, const std::optional<metrics::FigureImage>& img) {
    std::string png;
    if (img && data::encodePng(img->rgb.data(), img->width, img->height, png, &error))
      out.push_back({tag, img->width, img->height, std::move(png)});
    else if (!failed) {
      failed = true;
      if (problem) *problem = error;
    }
  };
  const int k = r.matrix.classes();
  if (matrices) {
    const auto [w, h] =
        metrics::figurePixels(cfg.getIntList("TENSORBOARD.CONFUSION_MATRIX.FIGSIZE"));
    std::vector<int> all(static_cast<std::size_t>(k));
    std::iota(all.begin(), all.end(), 0);
    const auto draw = [&](const std::string& tag, const std::vector<int>& ids) {
      if (ids.empty() || failed) return;  // PySlowFast skips an empty subset
      add(tag,
          metrics::drawConfusionMatrix(r.matrix, ids, r.names, w, h, "Confusion matrix", &error));
    };
    draw("Confusion Matrix", all);
    if (r.subset) draw("Confusion Matrix Subset", *r.subset);
    for (const auto& [parent, children] : r.parents)
      draw("Confusion Matrices Grouped by Parent Classes/" + parent, children);
  }
  if (histograms) {
    const auto [w, h] = metrics::figurePixels(cfg.getIntList("TENSORBOARD.HISTOGRAM.FIGSIZE"));
    const int topk = static_cast<int>(cfg.getInt("TENSORBOARD.HISTOGRAM.TOPK"));
    std::set<int> ids;  // plot_hist walks a set: each class once, in order
    if (groups.histogram_subset)
      ids.insert(groups.histogram_subset->begin(), groups.histogram_subset->end());
    else
      for (int c = 0; c < k; ++c) ids.insert(c);
    for (const int c : ids) {
      if (failed) break;
      add(histogramTag(topk, r.className(c)),
          metrics::drawTopKHistogram(r.className(c), r.matrix.topPredictions(c, topk), r.names, w,
                                     h, &error));
    }
  }
  return out;
}

}  // namespace amp::train
