#pragma once
// The statistics of a group of runs (the seeds of one learning rate, the runs of one precision):
// per x its members' mean, standard deviation, minimum, maximum and how many members count there,
// and the same for one figure per run (best accuracy, throughput). Researchers compare sweeps by
// these, not by one curve per run. Plain arithmetic, no Qt and no Torch: the Compare tab draws
// what this returns, and the numbers are tested against hand-computed ones.
//
//   std::vector<metrics::CurveView> members;
//   for (const runlog::Series* s : seedsOfOneLr)  // nullptr: the run lacks the metric
//     members.push_back(s ? metrics::CurveView{s->step.data(), s->value.data(), s->size()}
//                         : metrics::CurveView{});
//   const metrics::GroupBand band = metrics::computeGroupBand(members);
//   draw(band.x, band.mean);  // and a band between mean - std and mean + std, or min and max
//   const metrics::FigureStats best = metrics::figureStats({0.71, 0.73, std::nullopt});  // n = 2
#include <cstddef>
#include <optional>
#include <vector>

namespace amp::metrics {

/// One member's curve: n points (x ascending as a run logs them; unsorted input is sorted), not
/// owned. n = 0 (the default) is a member that lacks this metric.
struct CurveView {
  const double* x = nullptr;
  const double* y = nullptr;
  std::size_t n = 0;
};

/// The group's curve on a common x grid; every vector has one entry per grid x where at least
/// one member counts.
struct GroupBand {
  std::vector<double> x;
  std::vector<double> mean;
  std::vector<double> std;  ///< sample standard deviation (n - 1); 0 where one member counts
  std::vector<double> min, max;
  std::vector<int> count;  ///< members counted at this x
  int members = 0;         ///< members with at least one finite point of this metric
};

struct BandOptions {
  /// The grid holds every member's x (their union) when that is at most this many values, else
  /// this many evenly spaced x from the smallest to the largest: a replot and a regroup then cost
  /// the same for runs of 100 or 100,000 points.
  std::size_t maxPoints = 2000;
};

/// The band of `members` on a common grid (BandOptions). How x values that do not line up are
/// handled: a member's value at a grid x is linearly interpolated between its two points around
/// that x (its own value where it has a point there), and a member counts only between its first
/// and last x: a run that stopped early, or started later, is not extended, so beyond its end the
/// band is the mean of the runs still going (see `count`). Non-finite points are left out (a
/// diverged step does not poison the mean); a member without finite points, or without the metric
/// (n = 0), counts nowhere and is not in `members`.
GroupBand computeGroupBand(const std::vector<CurveView>& members, const BandOptions& options = {});

/// One figure over a group's runs (the summary table's cells).
struct FigureStats {
  int n = 0;  ///< runs that have the figure
  double mean = 0;
  double std = 0;  ///< sample standard deviation (n - 1); 0 for a single run
  double min = 0, max = 0;
};

/// The statistics of the runs' figures; a missing (nullopt) or non-finite figure does not count
/// towards n. nullopt when no run has it.
std::optional<FigureStats> figureStats(const std::vector<std::optional<double>>& values);

}  // namespace amp::metrics
