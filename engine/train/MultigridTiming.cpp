#include "train/MultigridTiming.h"

#include <algorithm>
#include <cstdint>
#include <exception>

#include "config/Config.h"

namespace amp::train {
namespace {

// The config a shape's step is timed with: the multigrid run's, or the plain run's for a shape
// only the plain run has. sync_batchnorm needs the processes it synchronises; one device times
// plain batch norm.
config::Config shapeConfig(const config::Config& plain, const config::Config& mg, bool inMultigrid,
                           const multigrid::StepShape& sh) {
  config::Config c = inMultigrid ? mg : plain;
  c.setOrThrow("DATA.NUM_FRAMES", sh.frames);
  c.setOrThrow("DATA.TRAIN_CROP_SIZE", sh.crop);
  const bool sub = sh.norm_type == "sub_batchnorm";
  c.setOrThrow("BN.NORM_TYPE", sub ? std::string("sub_batchnorm") : std::string("batchnorm"));
  c.setOrThrow("BN.NUM_SPLITS", sub ? sh.bn_count : std::int64_t{1});
  return c;
}

bool contains(const multigrid::RunSteps& r, const multigrid::StepShape& sh) {
  for (const auto& p : r.phases)
    for (const auto& e : p.per_epoch)
      if (e.shape == sh && e.steps > 0) return true;
  return false;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::function<double(const multigrid::StepShape&)> MultigridTiming::stepSeconds(
    std::size_t k) const {
  return [this, k](const multigrid::StepShape& sh) {
    const auto at = std::find(shapes.begin(), shapes.end(), sh);
    return timed[static_cast<std::size_t>(at - shapes.begin())][k].median_step_s;
  };
}

bool timeMultigridShapes(const config::Config& plain, const config::Config& mg,
                         const multigrid::RunSteps& plainSteps, const multigrid::RunSteps& mgSteps,
                         const MultigridTimingOptions& o, MultigridTiming& out,
                         std::string* error) {
  out = {};
  out.shapes = multigrid::distinctShapes({&plainSteps, &mgSteps});
  out.timed.resize(out.shapes.size());
  out.round_seconds.resize(out.shapes.size());
  for (int round = 0; round < o.rounds; ++round)
    for (std::size_t i = 0; i < out.shapes.size(); ++i) {
      const auto& sh = out.shapes[i];
      if (o.on_shape) o.on_shape(round, sh);
      StepBenchOptions so;
      so.batch = static_cast<int>(sh.clips);
      so.iterations = o.iterations;
      so.warmup = o.warmup;
      so.precisions = o.precisions;
      std::vector<StepBenchResult> results;
      std::string why;
      bool ok = false;
      try {
        ok = benchmarkTrainingStep(shapeConfig(plain, mg, contains(mgSteps, sh), sh), so, results,
                                   &why);
      } catch (const std::exception& e) {
        why = e.what();
      }
      if (ok)
        for (const auto& r : results)
          if (!r.finite) {
            ok = false;
            why = r.precision + ": the loss is not finite";
          }
      if (!ok) {
        if (error) *error = sh.text() + ": " + why;
        return false;
      }
      if (o.on_shape_timed) o.on_shape_timed(results);
      if (out.labels.empty())
        for (const auto& r : results) out.labels.push_back(r.precision);
      out.device = results.front().device;
      out.round_seconds[i].resize(results.size());
      for (std::size_t k = 0; k < results.size(); ++k) {
        out.round_seconds[i][k].push_back(results[k].median_step_s);
        if (round == 0)
          out.timed[i].push_back(results[k]);
        else
          out.timed[i][k].peak_bytes = std::max(out.timed[i][k].peak_bytes, results[k].peak_bytes);
      }
    }
  for (std::size_t i = 0; i < out.shapes.size(); ++i)
    for (std::size_t k = 0; k < out.timed[i].size(); ++k) {
      out.timed[i][k].median_step_s = median(out.round_seconds[i][k]);
      out.timed[i][k].clips_per_s =
          static_cast<double>(out.shapes[i].clips) / out.timed[i][k].median_step_s;
    }
  return true;
}

}  // namespace amp::train
