#include "train/BoxPredict.h"

#include <chrono>
#include <stdexcept>

#include "config/Config.h"
#include "data/AvaClips.h"
#include "data/FrameSampling.h"
#include "data/Sampling.h"
#include "dist/DistEnv.h"
#include "models/VideoModels.h"
#include "system/ErrorText.h"
#include "train/MicroBatch.h"
#include "train/MultiViewTest.h"
#include "train/Tester.h"
#include "train/TrainingDevice.h"

namespace amp::train {
namespace {

// The transformed clip as a one-clip batch, packed as the AVA loader packs it (addAvaClip).
data::Batch clipBatch(const data::ClipParams& p, const data::AvaClip& clip) {
  data::Batch b;
  b.size = 1;
  b.channels = 3;
  b.frames = clip.frames;
  b.height = clip.height;
  b.width = clip.width;
  b.fast = clip.pixels;
  const std::size_t plane = static_cast<std::size_t>(clip.height) * clip.width;
  if (p.slowfast_alpha > 0) {
    const auto slowIdx = data::slowPathwayIndices(clip.frames, p.slowfast_alpha);
    b.slow_frames = static_cast<int>(slowIdx.size());
    b.slow.resize(3 * slowIdx.size() * plane);
    data::copySlowPathway(clip, slowIdx, b.slow.data());
  }
  for (const auto& box : clip.boxes) {
    b.boxes.push_back(0.0f);  // every box is of clip 0
    for (const double v : box) b.boxes.push_back(static_cast<float>(v));
  }
  b.num_boxes = static_cast<int>(clip.boxes.size());
  return b;
}

std::string keyOr(const config::Config& c, const std::string& given, const std::string& key) {
  return given.empty() ? c.getString(key) : given;
}

}  // namespace

bool predictBoxes(const config::Config& c, const std::string& inputPath, const BoxPredictOptions& o,
                  BoxPrediction& out, std::string* error) {
  out = {};
  const auto started = std::chrono::steady_clock::now();
  try {
    if (!c.getBool("DETECTION.ENABLE"))
      throw std::runtime_error(
          "DETECTION.ENABLE: predicting boxes needs a detection (AVA) config; this one classifies "
          "whole clips (use predict without boxes)");
    if (const auto why = unsupportedTask(c, false)) throw std::runtime_error(*why);
    const std::string boxes = keyOr(c, o.boxes, "DEMO.PREDS_BOXES");
    if (boxes.empty())
      throw std::runtime_error(
          "DEMO.PREDS_BOXES: no person boxes given (an AVA CSV: video,second,x1,y1,x2,y2,"
          "action,score; or --boxes)");
    const std::string path = o.checkpoint.empty() ? testCheckpoint(c) : o.checkpoint;
    if (path.empty())
      throw std::runtime_error(
          "--checkpoint: no checkpoint given, and neither TEST.CHECKPOINT_FILE_PATH, OUTPUT_DIR "
          "nor TRAIN.CHECKPOINT_FILE_PATH has one");

    data::AvaDemoInput input;
    std::string why;
    if (!input.open(inputPath, c.getInt("DEMO.FPS"), &why)) throw std::runtime_error(why);
    const int classes = static_cast<int>(c.getInt("MODEL.NUM_CLASSES"));
    data::AvaBoxOptions bo;
    bo.detection_score_thresh = c.getFloat("AVA.DETECTION_SCORE_THRESH");
    bo.num_classes = classes;
    const int startingSecond = static_cast<int>(c.getInt("DEMO.STARTING_SECOND"));
    data::DemoKeyframes keys;
    if (!data::readDemoKeyframes({boxes, false}, input, bo, startingSecond, keys, &why))
      throw std::runtime_error("DEMO.PREDS_BOXES: " + why);
    if (const std::string gt = keyOr(c, o.gt_boxes, "DEMO.GT_BOXES"); !gt.empty())
      if (!data::readDemoKeyframes({gt, true}, input, bo, startingSecond, out.ground_truth, &why))
        throw std::runtime_error("DEMO.GT_BOXES: " + why);
    out.input = inputPath;
    out.video = input.name();
    out.fps = input.fps();
    out.frames = input.frameCount();
    out.width = input.width();
    out.height = input.height();
    out.outside_input = keys.outside_input;
    out.below_score_thresh = keys.below_score_thresh;
    out.checkpoint = path;

    const torch::Device device = trainingDevice(c, 0);
    if (o.threads > 0 && device.is_cpu()) torch::set_num_threads(o.threads);
    const bool channelsLast = useChannelsLast3d(c, device);
    auto net = models::buildVideoNet(c);
    loadTestWeights(c, path, *net);
    net->to(device);
    if (channelsLast) toChannelsLast3d(*net);
    torch::NoGradGuard noGrad;
    net->eval();

    const auto params = data::ClipParams::fromConfig(c);
    const std::int64_t halfLen =
        static_cast<std::int64_t>(params.num_frames) * params.sampling_rate / 2;
    data::DecodedClip decoded;
    data::FixedDraws none({});  // the test transform draws nothing
    int done = 0;
    for (const data::DemoKeyframe& k : keys.keyframes) {
      const auto frames =
          data::avaFrameIndices(k.frame, halfLen, params.sampling_rate, input.frameCount());
      if (!input.read(frames, decoded, &why)) throw std::runtime_error(why);
      std::vector<data::PixelBox> boxesIn;
      for (const data::AvaBox& b : k.boxes) boxesIn.push_back(b.box);
      data::AvaClip clip;
      if (!data::transformAvaClip(params.ava, data::Split::Test, decoded, boxesIn, none, clip,
                                  &why))
        throw std::runtime_error(input.path() + " second " + std::to_string(k.second) + ": " + why);
      if (params.reverse_channels) data::reverseChannels(clip);  // as the AVA loader
      data::Batch b = clipBatch(params, clip);
      const auto scores = net->forward(batchTensors(b, device, channelsLast), batchBoxes(b, device))
                              .to(torch::kCPU, torch::kFloat)
                              .contiguous();
      if (scores.dim() != 2 || scores.size(0) != static_cast<std::int64_t>(k.boxes.size()) ||
          scores.size(1) != classes)
        throw std::logic_error("the detection head gave " + std::to_string(scores.numel()) +
                               " scores for " + std::to_string(k.boxes.size()) + " boxes");
      ScoredKeyframe sk{k.second, k.frame, {}};
      const float* s = scores.data_ptr<float>();
      for (std::size_t i = 0; i < k.boxes.size(); ++i)
        sk.boxes.push_back(
            {k.boxes[i].box, std::vector<float>(s + i * classes, s + (i + 1) * classes)});
      out.keyframes.push_back(std::move(sk));
      if (o.progress) o.progress(++done, static_cast<int>(keys.keyframes.size()));
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return true;
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
}

std::vector<metrics::AvaImage> boxDetections(const BoxPrediction& p) {
  std::vector<metrics::AvaImage> images;
  for (const ScoredKeyframe& k : p.keyframes) {
    metrics::AvaImage image{metrics::avaImageKey(p.video, k.second), {}};
    for (const ScoredBox& b : k.boxes)
      for (std::size_t a = 0; a < b.scores.size(); ++a)
        image.boxes.push_back({b.box[0], b.box[1], b.box[2], b.box[3], static_cast<int>(a) + 1,
                               static_cast<double>(b.scores[a])});
    images.push_back(std::move(image));
  }
  return images;
}

}  // namespace amp::train
