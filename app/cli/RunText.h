#pragma once
// What ampstudio-cli writes about a run in words: `train`'s live lines (a step, a validation, the
// test, an event) and the best figure `runs list` shows. Torch-free, so its suite tests the text
// without training. A multi-label run (Charades) has mean average precision ("map", a fraction)
// where a single-label run has top-1 errors; a figure the event lacks is left out, not printed 0.
//
//   StepLine step{totalSteps, maxEpoch, util::formatDuration(remaining)};
//   std::cout << trainStepLine(event, step) << "\n";  // "[epoch 1.50/3][step 12] loss ..."
//   std::cout << evaluationLine(valEvent) << "\n";    // "[val epoch 2] mAP 41.30 %  best ..."
#include <cstdint>
#include <optional>
#include <string>

#include "runlog/MetricEvent.h"
#include "runlog/RunRecord.h"

namespace amp::cli {

/// What a train step's line says besides its event's values.
struct StepLine {
  std::int64_t totalSteps = 0;
  int maxEpoch = 0;
  std::string eta;  ///< formatted remaining time
};

/// A train step for a log: "[epoch 1.50/3][step 12] loss 1.2345  top1_err 50.0  lr ...".
std::string trainStepLine(const runlog::MetricEvent& e, const StepLine& s);
/// A train step as the terminal's progress bar (redrawn in place).
std::string trainStepBar(const runlog::MetricEvent& e, const StepLine& s);
/// A val, test or notable event's line; "" for other kinds.
std::string evaluationLine(const runlog::MetricEvent& e);
/// `runs list`'s BEST column: "72.0 %" (val top-1 accuracy), "mAP 41.3 %" for a multi-label run
/// (run.json's multi_label, or val/test map in its log), "-" while it has none.
std::string bestValText(const runlog::RunSummary& s, bool multiLabel);

}  // namespace amp::cli
