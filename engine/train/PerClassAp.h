#pragma once
// An evaluation's average precision per class as the run directory records it (a `per_class`
// line, runlog::PerClassValues): from a multi-label run's get_map (Charades) or from AVA's
// frame-mAP. The trainer's validations and its test write one each, so the studio can compare
// runs class by class (which classes did mixed precision change against FP32?).
//
//   const auto m = metrics::meanAveragePrecision(scores, targets, n, k);
//   rec.recordPerClass(train::perClassAp(m, "val", train::classNames(cfg)), step, epoch);
//   rec.recordPerClass(train::perClassAp(detection.ava, "test"), step, epoch);
#include <map>
#include <string>

#include "metrics/AvaEvaluation.h"
#include "metrics/MeanAveragePrecision.h"
#include "runlog/PerClassValues.h"

namespace amp::config {
class Config;
}

namespace amp::train {

/// Every class 0..K-1 of `m`: its AP (NaN where get_map dropped it) and its positive samples;
/// names from `names` by class index where it has them (none: no names in the line).
runlog::PerClassValues perClassAp(const metrics::MapResult& m, const std::string& split,
                                  const std::map<int, std::string>& names = {});
/// Every label-map class of `r` by its id: its AP (NaN without ground truth), its name and its
/// ground-truth boxes.
runlog::PerClassValues perClassAp(const metrics::AvaResult& r, const std::string& split);

/// The class names a multi-label run can show: DEMO.LABEL_FILE_PATH's, when the config names
/// one that can be read (as the clip preview); empty otherwise (Charades ships none: the studio
/// then shows class numbers). A label file that cannot be read is no reason to stop a run.
std::map<int, std::string> classNames(const config::Config& cfg);

}  // namespace amp::train
