#include "vis/Visualization.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "checkpoint/SavedPredictions.h"
#include "config/Config.h"
#include "data/ClipPreview.h"
#include "data/GifEncoder.h"
#include "data/ImageWriter.h"
#include "data/VideoLoader.h"
#include "metrics/ClassGroups.h"
#include "metrics/ConfusionRecord.h"
#include "models/ActivationTap.h"
#include "models/VideoModels.h"
#include "runlog/TensorBoardHistogram.h"
#include "runlog/TensorBoardWriter.h"
#include "system/ErrorText.h"
#include "train/EvalAnalysis.h"
#include "train/MicroBatch.h"
#include "train/MultiViewTest.h"
#include "train/Tester.h"
#include "train/TrainingDevice.h"
#include "vis/ClipVideo.h"
#include "vis/GradCam.h"
#include "vis/GradCamMaps.h"
#include "vis/GradCamSheet.h"
#include "vis/NdArrayImage.h"
#include "vis/VisLayers.h"

namespace amp::vis {
namespace {

double unixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A failure that names its key or file; the run ends with its text.
struct VisFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One visualisation run: the model, the writer and what each enabled part needs.
class VisualizationPass {
 public:
  VisualizationPass(const config::Config& cfg, VisualizationReport& report)
      : cfg_(cfg), report_(report) {}

  void run(const VisualizationOptions& o);

 private:
  bool on(const char* key) const { return cfg_.getBool(key); }
  void write(const std::vector<runlog::TensorBoardImage>& images, const char* kind);
  void writeHistogram(const std::string& tag, const torch::Tensor& values);
  void writeArray(const std::string& tag, const torch::Tensor& array, bool heatMap);
  void setUp(const VisualizationOptions& o);
  void drawWeights();
  void drawSavedPredictions();
  void visitBatch(data::Batch& b, const data::ClipParams& params);
  // Pathway p of clip i of `b`, normalisation undone: T x H x W x 3 bytes.
  std::vector<std::uint8_t> frames(const data::Batch& b, int i, int p,
                                   const data::ClipParams& params) const;
  std::string className(int k) const {
    const auto it = groups_.names.find(k);
    return it != groups_.names.end() ? it->second : std::to_string(k);
  }

  const config::Config& cfg_;
  VisualizationReport& report_;
  runlog::TensorBoardWriter writer_;
  std::shared_ptr<models::VideoNetImpl> net_;
  torch::Device device_{torch::kCPU};
  int pathways_ = 1, classes_ = 1, topk_ = 1;
  bool modelVis_ = false, activations_ = false, videos_ = false, gradCam_ = false, wrong_ = false;
  bool useTrueLabel_ = false;
  VisLayers layers_;
  std::vector<const torch::nn::Module*> activationModules_, camModules_;
  std::vector<const VisLayer*> activationLayers_;  ///< the watched ones, as activationModules_
  const ColourMap* camColours_ = nullptr;
  std::unique_ptr<ClipVideo> video_;
  metrics::ClassGroups groups_;
  std::optional<std::set<int>> wrongSubset_;
  std::set<int> wrongClasses_;
  int global_ = -1;
};

void VisualizationPass::write(const std::vector<runlog::TensorBoardImage>& images,
                              const char* kind) {
  if (images.empty()) return;
  std::string error;
  if (!writer_.addImages(images, 0, unixNow(), &error)) throw VisFailure(error);
  for (const auto& i : images) report_.tags.push_back(std::string(kind) + ":" + i.tag);
  (std::string(kind) == "video" ? report_.videos : report_.images) +=
      static_cast<int>(images.size());
}

void VisualizationPass::writeHistogram(const std::string& tag, const torch::Tensor& values) {
  const auto v = values.detach().to(torch::kCPU, torch::kFloat).contiguous();
  std::string error;
  const auto h =
      runlog::makeHistogram(tag, v.data_ptr<float>(), static_cast<std::size_t>(v.numel()), &error);
  if (!h) {
    report_.notes.push_back("no histogram: " + error);
    return;
  }
  if (!writer_.addHistograms({*h}, 0, unixNow(), &error)) throw VisFailure(error);
  report_.tags.push_back("histogram:" + tag);
  ++report_.histograms;
}

// add_ndim_array's picture of `array` and, beside it, the histogram of the same values.
void VisualizationPass::writeArray(const std::string& tag, const torch::Tensor& array,
                                   bool heatMap) {
  const NdImage img = ndArrayImage(array, heatMap);
  if (!img.error.empty()) {
    report_.notes.push_back(tag + ": no picture: " + img.error);
  } else {
    std::string png, error;
    if (!data::encodePng(img.rgb.data(), img.width, img.height, png, &error))
      throw VisFailure(error);
    write({{tag, img.width, img.height, std::move(png)}}, "image");
  }
  if (array.numel() > 0) writeHistogram(tag, array);
}

void VisualizationPass::setUp(const VisualizationOptions& o) {
  if (cfg_.getBool("DETECTION.ENABLE"))
    throw VisFailure(
        "DETECTION.ENABLE: visualize is built for classification configs (PySlowFast's Grad-CAM "
        "refuses detection models, and its activations need the clips' boxes)");
  if (const auto why = train::unsupportedTask(cfg_, false)) throw VisFailure(*why);
  modelVis_ = on("TENSORBOARD.MODEL_VIS.ENABLE");
  activations_ = modelVis_ && on("TENSORBOARD.MODEL_VIS.ACTIVATIONS");
  gradCam_ = modelVis_ && on("TENSORBOARD.MODEL_VIS.GRAD_CAM.ENABLE");
  videos_ = modelVis_ && (on("TENSORBOARD.MODEL_VIS.INPUT_VIDEO") || gradCam_);
  wrong_ = on("TENSORBOARD.WRONG_PRED_VIS.ENABLE");
  useTrueLabel_ = on("TENSORBOARD.MODEL_VIS.GRAD_CAM.USE_TRUE_LABEL");
  pathways_ = cfg_.getString("MODEL.ARCH") == "slowfast" ? 2 : 1;
  classes_ = static_cast<int>(cfg_.getInt("MODEL.NUM_CLASSES"));
  topk_ = static_cast<int>(cfg_.getInt("TENSORBOARD.MODEL_VIS.TOPK_PREDS"));
  std::string error;
  if (auto g = metrics::readClassGroups(cfg_, &error))
    groups_ = std::move(*g);
  else
    throw VisFailure(error);
  if (const std::string subset = cfg_.getString("TENSORBOARD.WRONG_PRED_VIS.SUBSET_PATH");
      wrong_ && !subset.empty()) {
    if (groups_.names.empty())
      throw VisFailure(
          "TENSORBOARD.WRONG_PRED_VIS.SUBSET_PATH: its class names need the class list "
          "(TENSORBOARD.CLASS_NAMES_PATH, or DEMO.LABEL_FILE_PATH)");
    std::vector<std::string> unknown;
    const auto ids = metrics::readSubsetFile(subset, groups_.names, unknown, &error);
    if (!ids) throw VisFailure("TENSORBOARD.WRONG_PRED_VIS.SUBSET_PATH: " + error);
    wrongSubset_ = std::set<int>(ids->begin(), ids->end());
    for (const auto& u : unknown)
      report_.notes.push_back("WRONG_PRED_VIS.SUBSET_PATH: " + u + " is not a class (left out)");
  }
  if (videos_ || wrong_) {
    video_ = ClipVideo::open(cfg_.getString("TENSORBOARD.MODEL_VIS.COLORMAP"), classes_,
                             groups_.names, &error);
    if (!video_) throw VisFailure(error);
  }
  if (gradCam_) {
    camColours_ = findColourMap(cfg_.getString("TENSORBOARD.MODEL_VIS.GRAD_CAM.COLORMAP"), &error);
    if (!camColours_) throw VisFailure("TENSORBOARD.MODEL_VIS.GRAD_CAM.COLORMAP: " + error);
  }
  // The model and its test weights, as PySlowFast's build_model and load_test_checkpoint.
  report_.checkpoint = o.checkpoint.empty() ? train::testCheckpoint(cfg_) : o.checkpoint;
  if (report_.checkpoint.empty())
    throw VisFailure(
        "--checkpoint: none given, and neither TEST.CHECKPOINT_FILE_PATH, OUTPUT_DIR (" +
        cfg_.getString("OUTPUT_DIR") + ") nor TRAIN.CHECKPOINT_FILE_PATH has one");
  torch::manual_seed(static_cast<std::uint64_t>(cfg_.getInt("RNG_SEED")));
  device_ = train::trainingDevice(cfg_, 0);
  report_.device = device_.str();
  net_ = models::buildVideoNet(cfg_);
  (void)train::loadTestWeights(cfg_, report_.checkpoint, *net_);
  net_->to(device_);
  net_->eval();
  const bool weights = modelVis_ && on("TENSORBOARD.MODEL_VIS.MODEL_WEIGHTS");
  if (weights || activations_) {
    const auto specs = parseLayerSpecs(cfg_.getStringList(kModelVisLayersKey), &error);
    if (!specs) throw VisFailure(error);
    if (specs->empty())
      report_.notes.push_back(std::string(kModelVisLayersKey) +
                              " is empty: no weights or activations are drawn");
    try {
      layers_ = findVisLayers(*net_, *specs, activations_);
    } catch (const std::invalid_argument& e) {
      throw VisFailure(e.what());
    }
    report_.notes.insert(report_.notes.end(), layers_.notes.begin(), layers_.notes.end());
    if (weights)
      report_.notes.insert(report_.notes.end(), layers_.weightNotes.begin(),
                           layers_.weightNotes.end());
    else
      for (auto& l : layers_.layers) l.weight = torch::Tensor();
    if (activations_)
      for (const auto& l : layers_.layers)
        if (l.watchable) {
          activationModules_.push_back(l.module);
          activationLayers_.push_back(&l);
        }
  }
  if (gradCam_) {
    auto names = cfg_.getStringList(kLayerListKey);
    if (names.empty()) names = defaultGradCamLayers(models::tapLayerNames(*net_), pathways_);
    if (static_cast<int>(names.size()) != pathways_)
      throw VisFailure(std::string(kLayerListKey) + ": " + std::to_string(names.size()) +
                       " layer(s) for " + std::to_string(pathways_) +
                       " pathway(s); give one per pathway, in pathway order");
    for (const auto& n : names) {
      const auto* m = models::findTapLayer(*net_, n, &error);
      if (!m) throw VisFailure(std::string(kLayerListKey) + ": " + error);
      camModules_.push_back(m);
    }
  }
  // Videos need FFmpeg's gif encoder: a build without it says so before any work.
  if (videos_ || wrong_) {
    std::string gif;
    const std::uint8_t pixel[3] = {0, 0, 0};
    if (!data::encodeGif(pixel, 1, 1, 1, kVideoFps, gif, &error)) throw VisFailure(error);
  }
  report_.log_dir =
      runlog::tensorBoardLogDir(cfg_.getString("OUTPUT_DIR"), cfg_.getString("TENSORBOARD.LOG_DIR"),
                                cfg_.getString("TRAIN.DATASET"));
  if (!writer_.open(report_.log_dir, unixNow(), &error)) throw VisFailure(error);
  report_.events_file = writer_.path();
}

void VisualizationPass::drawWeights() {
  for (const auto& l : layers_.layers)
    if (l.weight.defined()) writeArray("Layer Weights/" + l.spec.name, l.weight, false);
}

// plot_eval of TENSORBOARD.PREDICTIONS_PATH: the figures the test would have drawn.
void VisualizationPass::drawSavedPredictions() {
  const std::string path = cfg_.getString("TENSORBOARD.PREDICTIONS_PATH");
  if (path.empty()) return;
  checkpoint::SavedPredictions saved;
  std::string error;
  if (!checkpoint::readSavedPredictions(path, saved, &error)) throw VisFailure(error);
  report_.predictions = saved.described;
  if (saved.classes != classes_)
    throw VisFailure("TENSORBOARD.PREDICTIONS_PATH " + path + ": " + saved.described + ", " +
                     std::to_string(saved.classes) + " classes; MODEL.NUM_CLASSES is " +
                     std::to_string(classes_));
  auto r = metrics::recordFromScores(saved.scores.data(), saved.labels, {}, saved.classes, 1.0);
  r.split = "test";
  if (!groups_.names.empty()) {
    r.names.assign(static_cast<std::size_t>(classes_), std::string());
    for (const auto& [id, name] : groups_.names)
      if (id >= 0 && id < classes_) r.names[static_cast<std::size_t>(id)] = name;
  }
  r.subset = groups_.subset;
  r.parents = groups_.parents;
  if (!on("TENSORBOARD.CONFUSION_MATRIX.ENABLE") && !on("TENSORBOARD.HISTOGRAM.ENABLE"))
    report_.notes.push_back(
        "TENSORBOARD.PREDICTIONS_PATH is read, but TENSORBOARD.CONFUSION_MATRIX.ENABLE and "
        "HISTOGRAM.ENABLE are off: plot_eval draws nothing");
  std::string problem;
  write(train::evalFigures(cfg_, groups_, r, &problem), "image");
  if (!problem.empty()) report_.notes.push_back("saved predictions' figures: " + problem);
}

std::vector<std::uint8_t> VisualizationPass::frames(const data::Batch& b, int i, int p,
                                                    const data::ClipParams& params) const {
  const bool slow = pathways_ == 2 && p == 0;
  const int t = slow ? b.slow_frames : b.frames;
  const std::size_t clip = static_cast<std::size_t>(b.channels) * static_cast<std::size_t>(t) *
                           static_cast<std::size_t>(b.height) * static_cast<std::size_t>(b.width);
  const float* data = (slow ? b.slow.data() : b.fast.data()) + clip * static_cast<std::size_t>(i);
  return data::denormalise(data, t, b.height, b.width, params);
}

void VisualizationPass::visitBatch(data::Batch& b, const data::ClipParams& params) {
  const auto inputs = train::batchTensors(b, device_, false);
  torch::Tensor preds;
  std::vector<torch::Tensor> activations;
  if (activations_ || !gradCam_) {
    torch::NoGradGuard noGrad;
    models::ActivationTap tap(activationModules_);
    preds = net_->forward(inputs);
    for (std::size_t j = 0; j < activationModules_.size(); ++j) {
      const auto& out = tap.output(j).tensor;
      if (!out.defined())
        throw VisFailure(std::string(kModelVisLayersKey) + ": " + activationLayers_[j]->spec.name +
                         " did not run in the forward pass");
      activations.push_back(out.detach().to(torch::kCPU));
    }
  }
  CamMaps cam;
  if (gradCam_) {
    std::vector<std::int64_t> targets(static_cast<std::size_t>(b.size), -1);
    if (useTrueLabel_)
      for (int i = 0; i < b.size; ++i) targets[static_cast<std::size_t>(i)] = b.labels[i];
    models::ActivationTap tap(camModules_);
    cam = gradCamMaps(*net_, tap, inputs, targets);
    preds = cam.scores;  // PySlowFast draws the Grad-CAM pass's predictions
  }
  const auto scores = preds.detach().to(torch::kCPU, torch::kFloat).contiguous();
  const std::string wrongTag = cfg_.getString("TENSORBOARD.WRONG_PRED_VIS.TAG");
  for (int i = 0; i < b.size; ++i) {
    ++global_;
    ++report_.clips;
    const float* row = scores.data_ptr<float>() + static_cast<std::int64_t>(i) * scores.size(1);
    const std::vector<float> clipScores(row, row + scores.size(1));
    const std::string input = "Input " + std::to_string(global_);
    if (videos_) {
      for (int p = 0; p < pathways_; ++p) {
        auto f = frames(b, i, p, params);
        if (gradCam_) {
          const auto map = cam.maps[static_cast<std::size_t>(p)][i].contiguous();
          f = heatOverlay(
              f, std::vector<float>(map.data_ptr<float>(), map.data_ptr<float>() + map.numel()),
              *camColours_, kDefaultAlpha);
        }
        runlog::TensorBoardImage v;
        std::string error;
        if (!video_->encode(f, static_cast<int>(f.size() / (3u * b.height * b.width)), b.height,
                            b.width, topLabels(clipScores, topk_, video_->names()),
                            input + "/Pathway " + std::to_string(p + 1), v, &error))
          throw VisFailure(error);
        write({v}, "video");
      }
    }
    for (std::size_t j = 0; j < activations.size(); ++j) {
      const VisLayer& l = *activationLayers_[j];
      torch::Tensor selected;
      try {
        selected = selectForClip(activations[j], i, l.spec.indexing);
      } catch (const std::invalid_argument& e) {
        throw VisFailure(std::string(kModelVisLayersKey) + ": '" + l.spec.text + "': " + e.what());
      }
      writeArray(input + "/Activations: " + l.spec.name, selected, true);
    }
    if (!wrong_) continue;
    // WrongPredictionVis: the top-1 class (the first of equal scores, as argmax) against the label.
    const int label = b.labels[static_cast<std::size_t>(i)];
    const int top = static_cast<int>(std::max_element(clipScores.begin(), clipScores.end()) -
                                     clipScores.begin());
    if (top == label || (wrongSubset_ && !wrongSubset_->count(label))) continue;
    wrongClasses_.insert(label);
    ++report_.wrong_clips;
    for (int p = 0; p < pathways_; ++p) {
      auto f = frames(b, i, p, params);
      runlog::TensorBoardImage v;
      std::string error;
      if (!video_->encode(f, static_cast<int>(f.size() / (3u * b.height * b.width)), b.height,
                          b.width, topLabels(clipScores, 1, video_->names()),
                          wrongTag + "/Video " + std::to_string(global_) + ", Pathway " +
                              std::to_string(p) + ": " + className(label),
                          v, &error))
        throw VisFailure(error);
      write({v}, "video");
    }
  }
}

void VisualizationPass::run(const VisualizationOptions& o) {
  setUp(o);
  drawSavedPredictions();
  drawWeights();
  data::SampleList list;
  std::string error;
  if (!data::readSampleList(cfg_, data::Split::Test, list, &error)) throw VisFailure(error);
  const auto params = data::ClipParams::fromConfig(cfg_);
  data::VideoLoader loader(std::move(list), params, data::Split::Test,
                           data::LoaderOptions::fromConfig(cfg_, data::Split::Test));
  const int total = static_cast<int>(loader.samplesPerEpoch());
  loader.startEpoch(0);
  while (auto b = loader.next()) {
    visitBatch(*b, params);
    loader.recycle(std::move(*b));
    if (o.progress) o.progress(report_.clips, total);
  }
  loader.stop();
  if (!loader.error().empty()) throw VisFailure(loader.error());
  for (const int k : wrongClasses_) {
    report_.wrong_classes.push_back(k);
    report_.wrong_class_names.push_back(className(k));
  }
  if (const auto& p = video_ ? video_->fontProblem() : std::string(); !p.empty())
    report_.notes.push_back("the videos carry no class labels: " + p);
  writer_.close();
}

}  // namespace

std::optional<std::string> visualizationDisabled(const config::Config& cfg) {
  const bool tb = cfg.getBool("TENSORBOARD.ENABLE");
  const bool any = cfg.getBool("TENSORBOARD.MODEL_VIS.ENABLE") ||
                   cfg.getBool("TENSORBOARD.WRONG_PRED_VIS.ENABLE");
  if (tb && any) return std::nullopt;
  std::string s = "nothing to visualise: set ";
  if (!tb) s += "TENSORBOARD.ENABLE True (the run writes TensorBoard event files)";
  if (!tb && !any) s += " and ";
  if (!any)
    s += "TENSORBOARD.MODEL_VIS.ENABLE True (with MODEL_WEIGHTS, ACTIVATIONS, INPUT_VIDEO or "
         "GRAD_CAM.ENABLE) or TENSORBOARD.WRONG_PRED_VIS.ENABLE True";
  return s + ", as PySlowFast's tools/visualization.py asks";
}

bool runVisualization(const config::Config& cfg, const VisualizationOptions& options,
                      VisualizationReport& report, std::string* error) {
  report = VisualizationReport{};
  if (const auto why = visualizationDisabled(cfg)) {
    if (error) *error = *why;
    return false;
  }
  if (const auto why = runlog::tensorBoardSupport()) {
    if (error) *error = "TENSORBOARD.ENABLE: " + *why;
    return false;
  }
  try {
    VisualizationPass pass(cfg, report);
    pass.run(options);
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
  return true;
}

}  // namespace amp::vis
