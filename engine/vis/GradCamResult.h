#pragma once
// What a Grad-CAM of one clip found (vis/GradCam.h computes it): the target class, the model's
// top classes and one map per pathway on the pathway's input frames. Plain data, torch-free, in
// a header of its own so that the core's drawing (vis/GradCamSheet.h) reads it without the
// engine.
//
//   vis::GradCamResult r;                       // filled by GradCam::run
//   const vis::GradCamMap& m = r.maps.back();   // the fast (or only) pathway's map
//   float v = m.values[(t * m.height + y) * m.width + x];
#include <string>
#include <utility>
#include <vector>

namespace amp::vis {

/// One pathway's map, on its input frames.
struct GradCamMap {
  int pathway = 0;
  std::string layer;
  int frames = 0, height = 0, width = 0;
  std::vector<float> values;  ///< frames x height x width, each in [0, 1]
  /// The map before scaling was zero everywhere (no positive evidence for the class at this
  /// layer): `values` are all 0.
  bool flat = false;
};

struct GradCamResult {
  int target_class = 0;
  bool target_is_label = false;      ///< the clip's label was asked for
  bool target_is_prediction = true;  ///< the predicted top-1 class (neither a class nor a label)
  double target_score = 0.0;         ///< the model's output for that class (a probability)
  std::vector<std::pair<int, double>> top;  ///< the model's top-5 classes and outputs
  std::vector<GradCamMap> maps;             ///< one per pathway, in pathway order
  std::string precision;                    ///< the forward's precision: fp32, bf16 or fp16
};

}  // namespace amp::vis
