#include "PreflightReport.h"

#include <iostream>

#include "preflight/RunPreflight.h"

namespace amp::cli {

int reportPreflight(const config::Config& cfg, const std::string& path, const PreflightFlags& flags,
                    const config::Diagnostics& checked) {
  preflight::PreflightOptions options;
  options.memory = flags.memory;
  preflight::MemoryEstimator estimator;
  const config::Diagnostics found = preflight::runPreflight(cfg, path, options, &estimator);
  config::Diagnostics all = config::withoutRepeatsOf(checked, found);
  all.insert(all.end(), found.begin(), found.end());
  std::cerr << config::formatDiagnostics(all);
  const size_t errors = config::countErrors(found);
  const size_t warnings = found.size() - errors;
  if (estimator.measurements() > 0) {
    const preflight::MemoryEstimate e = estimator.estimate(cfg);  // the cached measurement
    if (e.measured)
      std::cout << "memory: about " << preflight::formatBytes(preflight::stepPeakBytes(cfg, e))
                << " per process for one training step of " << preflight::clipsPerProcessStep(cfg)
                << " clips (" << (e.cuda ? "GPU" : "RAM") << ", measured on one clip)\n";
    else if (!e.note.empty() && errors == 0)
      std::cout << "memory: not measured (" << e.note << ")\n";
  }
  std::cout << path << ": pre-flight: " << errors << " error" << (errors == 1 ? "" : "s") << ", "
            << warnings << " warning" << (warnings == 1 ? "" : "s")
            << (errors ? "; training would fail" : "; ready to train")
            << " (nothing was written)\n";
  return errors ? 1 : 0;
}

}  // namespace amp::cli
