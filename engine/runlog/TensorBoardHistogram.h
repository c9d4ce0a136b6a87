#pragma once
// A TensorBoard histogram summary of an array (SummaryWriter.add_histogram with its default
// bins="tensorflow"), so TensorBoard's Histograms and Distributions tabs show how a layer's
// weights or activations spread: the counts of torch.utils.tensorboard's fixed bucket edges
// (0, then +-1e-12 growing by x1.1 up to 1e20: 1549 edges, numpy.histogram's [left, right)
// buckets, the last one closed), cut to the buckets from the first to the last non-empty one
// with one empty bucket before them, as its make_histogram does. Torch-free.
//
//   std::string error;
//   auto h = runlog::makeHistogram("Layer Weights/head/projection", values.data(),
//                                  values.size(), &error);
//   if (h) writer.addHistograms({*h}, step, wallTime, &error);
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace amp::runlog {

/// One histogram summary: TensorFlow's HistogramProto fields.
struct TensorBoardHistogram {
  std::string tag;
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> bucket_limit;  ///< the right edge of each bucket
  std::vector<double> bucket;        ///< the values in each bucket
};

/// torch.utils.tensorboard's default bucket edges ("tensorflow" bins), rising.
const std::vector<double>& defaultHistogramEdges();

/// The histogram of `count` values as add_histogram makes it (min, max, sum and sum of squares
/// over every value, in double). nullopt with `error` when there is nothing to count: no values,
/// or none inside the edges (NaN, or beyond +-1e20), where torch.utils.tensorboard raises.
std::optional<TensorBoardHistogram> makeHistogram(const std::string& tag, const float* values,
                                                  std::size_t count, std::string* error);

}  // namespace amp::runlog
