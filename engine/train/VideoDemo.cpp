#include "train/VideoDemo.h"

#include <chrono>
#include <stdexcept>

#include "config/Config.h"
#include "data/AvaDemoInput.h"
#include "data/ClipSampler.h"
#include "data/Cv2Resize.h"
#include "data/DemoVideo.h"
#include "data/Sampling.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "system/ErrorText.h"
#include "train/MicroBatch.h"
#include "train/MultiViewTest.h"
#include "train/Tester.h"
#include "train/TrainingDevice.h"

namespace amp::train {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// predictor.py + process_cv2_inputs: B, G, R frames as the reader gives them -> RGB (unless
// DEMO.INPUT_FORMAT says they are RGB already), the short side scaled to the test crop size
// (cv2_transform.scale, no crop), /255, DATA.MEAN / DATA.STD, C x T x H x W, the slow pathway
// taken from it as pack_pathway_output does.
data::Batch windowBatch(const config::Config& c, data::DecodedClip& clip, int width, int height,
                        data::Size scaled) {
  const bool toRgb = c.getString("DEMO.INPUT_FORMAT") == "BGR";
  const auto mean = c.getFloatList("DATA.MEAN"), stdev = c.getFloatList("DATA.STD");
  data::Batch b;
  b.size = 1;
  b.channels = 3;
  b.frames = static_cast<int>(clip.indices.size());
  b.height = scaled.height;
  b.width = scaled.width;
  const std::size_t plane = static_cast<std::size_t>(scaled.height) * scaled.width;
  b.fast.resize(3 * b.frames * plane);
  std::vector<std::uint8_t> resized(plane * 3);
  for (int t = 0; t < b.frames; ++t) {
    const std::uint8_t* src = clip.frame(static_cast<std::size_t>(t));
    if (scaled.height != height || scaled.width != width) {
      data::cv2ResizeLinear(src, height, width, 3, resized.data(), scaled.height, scaled.width);
      src = resized.data();
    }
    for (int ch = 0; ch < 3; ++ch) {
      const int from = toRgb ? 2 - ch : ch;
      const float m = static_cast<float>(mean.at(static_cast<std::size_t>(ch)));
      const float s = static_cast<float>(stdev.at(static_cast<std::size_t>(ch)));
      float* dst = b.fast.data() + (static_cast<std::size_t>(ch) * b.frames + t) * plane;
      for (std::size_t i = 0; i < plane; ++i)
        dst[i] = (static_cast<float>(src[i * 3 + from]) / 255.0f - m) / s;
    }
  }
  const int alpha = data::ClipParams::fromConfig(c).slowfast_alpha;  // MULTI_PATHWAY_ARCH
  if (alpha > 0) {
    const auto slow = data::slowPathwayIndices(b.frames, alpha);
    b.slow_frames = static_cast<int>(slow.size());
    b.slow.resize(3 * slow.size() * plane);
    for (int ch = 0; ch < 3; ++ch)
      for (std::size_t i = 0; i < slow.size(); ++i)
        std::copy_n(b.fast.data() + (static_cast<std::size_t>(ch) * b.frames +
                                     static_cast<std::size_t>(slow[i])) *
                                        plane,
                    plane, b.slow.data() + (ch * slow.size() + i) * plane);
  }
  return b;
}

}  // namespace

bool runVideoDemo(const config::Config& c, const VideoDemoOptions& o, VideoDemoResult& out,
                  std::string* error) {
  out = {};
  try {
    if (c.getBool("DETECTION.ENABLE"))
      throw std::runtime_error(
          "DETECTION.ENABLE: a detection (AVA) config draws actions on person boxes: give the "
          "boxes (DEMO.PREDS_BOXES or --boxes); PySlowFast's Detectron2 person detector is not "
          "built here");
    if (c.getInt("DEMO.WEBCAM") >= 0)
      throw std::runtime_error(
          "DEMO.WEBCAM: " + std::to_string(c.getInt("DEMO.WEBCAM")) +
          ": live camera input is not supported (the demo reads a file or a folder of frames; "
          "record the camera to a file, e.g. ffmpeg -f v4l2 -i /dev/video0 clip.mp4, and set "
          "DEMO.INPUT_VIDEO), or set DEMO.WEBCAM -1");
    if (const auto why = unsupportedTask(c, false)) throw std::runtime_error(*why);
    const auto params = data::DemoWindowParams::fromConfig(c);
    out.input = o.input.empty() ? c.getString("DEMO.INPUT_VIDEO") : o.input;
    if (out.input.empty())
      throw std::runtime_error("DEMO.INPUT_VIDEO: no input video given (or --input)");
    out.output = o.output.empty() ? c.getString("DEMO.OUTPUT_FILE") : o.output;
    out.checkpoint = o.checkpoint.empty() ? testCheckpoint(c) : o.checkpoint;
    if (out.checkpoint.empty())
      throw std::runtime_error(
          "--checkpoint: no checkpoint given, and neither TEST.CHECKPOINT_FILE_PATH, OUTPUT_DIR "
          "nor TRAIN.CHECKPOINT_FILE_PATH has one");
    data::AvaDemoInput input;
    std::string why;
    if (!input.open(out.input, static_cast<double>(c.getInt("DEMO.FPS")), &why))
      throw std::runtime_error(why);
    out.fps = input.fps();
    out.frames = input.frameCount();
    out.width = input.width();
    out.height = input.height();
    const auto windows = data::planDemoWindows(out.frames, params);
    if (windows.empty())
      throw std::runtime_error(out.input + ": " + std::to_string(out.frames) +
                               " frames, shorter than one demo window (DATA.NUM_FRAMES x "
                               "DATA.SAMPLING_RATE = " +
                               std::to_string(params.seq_len) + ")");
    const data::Size scaled = data::scaleShortSide(
        {out.height, out.width}, static_cast<int>(c.getInt("DATA.TEST_CROP_SIZE")));
    out.model_width = scaled.width;
    out.model_height = scaled.height;

    auto started = Clock::now();
    const torch::Device device = trainingDevice(c, 0);
    if (o.threads > 0 && device.is_cpu()) torch::set_num_threads(o.threads);
    const bool channelsLast = useChannelsLast3d(c, device);
    auto net = models::buildVideoNet(c);
    loadTestWeights(c, out.checkpoint, *net);
    net->to(device);
    if (channelsLast) toChannelsLast3d(*net);
    torch::NoGradGuard noGrad;
    net->eval();
    const auto classes = c.getInt("MODEL.NUM_CLASSES");
    data::DecodedClip decoded;
    std::int64_t done = 0;
    const auto total = static_cast<std::int64_t>(windows.size());
    for (const data::DemoWindow& w : windows) {
      DemoWindowScores s{w, {}};
      if (w.predicted) {
        if (!input.read(w.sampled, decoded, &why)) throw std::runtime_error(why);
        data::Batch b = windowBatch(c, decoded, out.width, out.height, scaled);
        const auto scores =
            net->forward(batchTensors(b, device, channelsLast)).to(torch::kCPU, torch::kFloat);
        if (scores.numel() != classes)
          throw std::logic_error("the model gave " + std::to_string(scores.numel()) +
                                 " scores for MODEL.NUM_CLASSES " + std::to_string(classes));
        const float* p = scores.contiguous().data_ptr<float>();
        s.scores.assign(p, p + classes);
      }
      out.windows.push_back(std::move(s));
      if (o.progress && !o.progress("predict", ++done, total))
        throw std::runtime_error(out.input + ": stopped");
    }
    out.predict_seconds = since(started);
    if (out.output.empty()) return true;

    started = Clock::now();
    const auto vis = data::DemoVisParams::fromConfig(c, o.names);
    std::vector<data::DemoDrawing> drawings;
    for (const DemoWindowScores& s : out.windows) {
      if (s.scores.empty()) continue;
      data::DemoDrawing d;
      d.frame = s.window.middle;
      d.first = s.window.draw_first;
      d.last = s.window.draw_last;
      data::DemoBoxDrawing labels;
      labels.whole_frame = true;
      labels.labels = vis.labels(s.scores, o.names);
      d.boxes.push_back(std::move(labels));
      drawings.push_back(std::move(d));
    }
    data::DemoVideoOptions vo;
    vo.output = out.output;
    vo.fps = c.getInt("DEMO.OUTPUT_FPS") > 0 ? static_cast<double>(c.getInt("DEMO.OUTPUT_FPS")) : 0;
    vo.slowmo = 1;  // draw_predictions repeats no frame of a classification window
    vo.progress = [&](std::int64_t d, std::int64_t t) {
      return !o.progress || o.progress("write", d, t);
    };
    if (!data::writeDemoVideo(input, drawings, vo, &why)) throw std::runtime_error(why);
    out.write_seconds = since(started);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
}

}  // namespace amp::train
