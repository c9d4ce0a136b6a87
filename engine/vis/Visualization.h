#pragma once
// PySlowFast's visualisation run (tools/visualization.py visualize(): run_visualization,
// perform_wrong_prediction_vis and plot_eval of saved predictions) on the TEST split, written as a
// new events file into the run's TensorBoard folder:
//  - MODEL_VIS.MODEL_WEIGHTS: "Layer Weights/<layer>" per LAYER_LIST entry (vis/NdArrayImage),
//  - MODEL_VIS.ACTIVATIONS: "Input <i>/Activations: <layer>" per clip, with the entry's indexing,
//    both also as histogram summaries of the same values,
//  - MODEL_VIS.INPUT_VIDEO or GRAD_CAM.ENABLE: "Input <i>/Pathway <p>" videos (vis/ClipVideo),
//    Grad-CAM's overlay on them when it is on (vis/GradCamMaps, vis/GradCamSheet),
//  - WRONG_PRED_VIS.ENABLE: "<TAG>/Video <i>, Pathway <p>: <true class>" for each misclassified
//    clip (of WRONG_PRED_VIS.SUBSET_PATH's classes when set),
//  - PREDICTIONS_PATH: the confusion matrix and histograms of saved predictions
//    (checkpoint/SavedPredictions, train/EvalAnalysis's figures).
// One pass over the test clips serves all of them (PySlowFast makes two, one per part, on the
// same clips). Forward passes run in float32 on the test device, as PySlowFast's visualisation
// does (no autocast). Torch-free header: `ampstudio-cli visualize` calls it.
//
//   vis::VisualizationOptions o;
//   vis::VisualizationReport r;
//   std::string error;
//   if (!vis::runVisualization(cfg, o, r, &error)) return fail(error);
//   r.events_file   // the new events file; r.tags what it holds
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::vis {

struct VisualizationOptions {
  /// The weights; "": the test's (TEST.CHECKPOINT_FILE_PATH, else the newest of OUTPUT_DIR, else
  /// TRAIN.CHECKPOINT_FILE_PATH), as PySlowFast's load_test_checkpoint.
  std::string checkpoint;
  /// Called after each batch (clips done, clips in the test split).
  std::function<void(int done, int total)> progress;
};

struct VisualizationReport {
  std::string checkpoint;
  std::string log_dir, events_file;
  std::string device;
  int clips = 0;                  ///< test clips seen
  std::vector<std::string> tags;  ///< every summary written, in order ("image:", "histogram:",
                                  ///< "video:" before the tag)
  int images = 0, histograms = 0, videos = 0;
  int wrong_clips = 0;
  std::vector<int> wrong_classes;              ///< true classes of misclassified clips, sorted
  std::vector<std::string> wrong_class_names;  ///< their names (class number when unnamed)
  std::string predictions;                     ///< what PREDICTIONS_PATH held ("" when unset)
  std::vector<std::string> notes;              ///< what was skipped and why
};

/// nullopt when `cfg` asks for a visualisation run (TENSORBOARD.ENABLE and MODEL_VIS.ENABLE or
/// WRONG_PRED_VIS.ENABLE, as PySlowFast's visualize); else which keys to set.
std::optional<std::string> visualizationDisabled(const config::Config& cfg);

/// The run. False with `error` naming the key or file (disabled keys, a layer that is not there,
/// no checkpoint, a build without TensorBoard or FFmpeg where videos are asked for, a detection
/// config); the events file keeps what was written before a failure.
[[nodiscard]] bool runVisualization(const config::Config& cfg, const VisualizationOptions& options,
                                    VisualizationReport& report, std::string* error);

}  // namespace amp::vis
