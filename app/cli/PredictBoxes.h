#pragma once
// `ampstudio-cli predict` on a detection (AVA) config: every box of a boxes CSV scored on its
// keyframe's clip (PySlowFast's AVA demo with precomputed boxes), printed or as JSON, optionally
// written as AVA detections and as the video with the boxes and their actions drawn.
#include <string>
#include <utility>
#include <vector>

#include "config/Config.h"

namespace amp::cli {

struct PredictBoxesArgs {
  std::string cfgPath, checkpoint, labels;
  std::string boxes, gtBoxes;  ///< "" reads DEMO.PREDS_BOXES / DEMO.GT_BOXES
  std::string detections;      ///< AVA CSV of every box's scores ("" none)
  std::string output;          ///< video with boxes drawn ("" reads DEMO.OUTPUT_FILE)
  int top = 5;                 ///< actions listed per box
  bool json = false;
  int threads = 0;
};

/// The `top` largest of `scores` (at least one) as (index, score), best first.
std::vector<std::pair<int, float>> topScores(const std::vector<float>& scores, int top);

/// Runs the box prediction on `inputs` (video files or frame folders). Exit code: 0, 1 when an
/// input fails (the others still run), 2 for bad arguments.
int runPredictBoxes(const config::Config& cfg, const PredictBoxesArgs& args,
                    const std::vector<std::string>& inputs);

}  // namespace amp::cli
