#include "train/Tester.h"

#include <chrono>
#include <stdexcept>

#include "config/Config.h"
#include "data/VideoLoader.h"
#include "models/VideoModels.h"
#include "train/Checkpoint.h"
#include "train/ErrorText.h"
#include "train/TrainStep.h"

namespace amp::train {

bool runMultiViewTest(const config::Config& c, const TestOptions& o, TestResult& r, std::string* error) {
  const auto started = std::chrono::steady_clock::now();
  r = TestResult{};
  try {
    std::string path = o.checkpoint;
    if (path.empty()) path = c.getString("TEST.CHECKPOINT_FILE_PATH");
    if (path.empty()) path = latestCheckpoint(c.getString("OUTPUT_DIR"));
    if (path.empty()) path = c.getString("TRAIN.CHECKPOINT_FILE_PATH");
    if (path.empty())
      throw std::runtime_error("TEST.CHECKPOINT_FILE_PATH: no checkpoint to test; OUTPUT_DIR " + c.getString("OUTPUT_DIR") +
                               " has none and neither TEST.CHECKPOINT_FILE_PATH nor TRAIN.CHECKPOINT_FILE_PATH is set");
    const torch::Device device = trainingDevice(c);
    const bool channelsLast = useChannelsLast3d(c, device);
    auto net = models::buildVideoNet(c);
    loadCheckpoint(path, {net.get(), nullptr, nullptr, false, {}});
    net->to(device);
    if (channelsLast) toChannelsLast3d(*net);
    net->eval();
    r.checkpoint = path;

    data::KineticsList list;
    std::string err;
    if (!data::readKineticsList(c.getString("DATA.PATH_TO_DATA_DIR"), "test", c.getString("DATA.PATH_LABEL_SEPARATOR"),
                                c.getString("DATA.PATH_PREFIX"), static_cast<int>(c.getInt("DATA.SKIP_ROWS")), list, &err))
      throw std::runtime_error(err);
    const auto params = data::ClipParams::fromConfig(c);
    const int nVideos = static_cast<int>(list.videos.size());
    std::vector<int> labels;
    for (const auto& v : list.videos) labels.push_back(v.label);
    data::VideoLoader loader(std::move(list), params, data::Split::Test, data::LoaderOptions::fromConfig(c, data::Split::Test));
    const int classes = static_cast<int>(c.getInt("MODEL.NUM_CLASSES"));
    auto sums = torch::zeros({nVideos, classes});
    int viewHits = 0, views = 0;
    const int total = nVideos * params.viewsPerTestVideo();
    torch::NoGradGuard noGrad;
    loader.startEpoch(0);
    while (auto b = loader.next()) {
      if (o.cancel && o.cancel->load()) throw std::runtime_error("test cancelled");
      std::vector<torch::Tensor> x;
      if (b->slow_frames > 0) x.push_back(torch::from_blob(b->slow.data(), {b->size, b->channels, b->slow_frames, b->height, b->width}));
      x.push_back(torch::from_blob(b->fast.data(), {b->size, b->channels, b->frames, b->height, b->width}));
      for (auto& t : x) t = t.to(device);
      x = toDevice(std::move(x), device, channelsLast);
      const auto probs = net->forward(x).to(torch::kCPU, torch::kFloat);
      const auto best = probs.argmax(1);
      for (int i = 0; i < b->size; ++i) {
        const int v = b->videos[static_cast<size_t>(i)];
        sums[v] += probs[i];  // PySlowFast's ensemble: the sum of the views' probabilities
        viewHits += best[i].item<int64_t>() == labels[static_cast<size_t>(v)] ? 1 : 0;
        ++views;
      }
      loader.recycle(std::move(*b));
      if (o.progress) o.progress(views, total);
    }
    if (!loader.error().empty()) throw std::runtime_error(loader.error());
    if (views == 0) throw std::runtime_error("DATA.PATH_TO_DATA_DIR: the test list " + c.getString("DATA.PATH_TO_DATA_DIR") + "/test.csv is empty");
    const auto target = torch::tensor(labels, torch::kLong);
    const int k = std::min(5, classes);
    const auto top = std::get<1>(sums.topk(k, 1));
    const auto hit = top.eq(target.unsqueeze(1));
    const double n = nVideos;
    r.videos = nVideos;
    r.views_per_video = params.viewsPerTestVideo();
    r.top1_err = 100.0 * (1.0 - hit.narrow(1, 0, 1).any(1).sum().item<double>() / n);
    r.top5_err = 100.0 * (1.0 - hit.any(1).sum().item<double>() / n);
    r.view_top1_err = 100.0 * (1.0 - static_cast<double>(viewHits) / views);
    r.per_class_videos.assign(static_cast<size_t>(classes), 0);
    r.per_class_top1_err.assign(static_cast<size_t>(classes), 0.0);
    const auto top1 = hit.narrow(1, 0, 1).any(1);
    std::vector<int> correct(static_cast<size_t>(classes), 0);
    for (int v = 0; v < nVideos; ++v) {
      const auto cls = static_cast<size_t>(labels[static_cast<size_t>(v)]);
      if (cls >= correct.size()) continue;
      ++r.per_class_videos[cls];
      correct[cls] += top1[v].item<bool>() ? 1 : 0;
    }
    for (size_t i = 0; i < correct.size(); ++i)
      r.per_class_top1_err[i] = r.per_class_videos[i] ? 100.0 * (1.0 - static_cast<double>(correct[i]) / r.per_class_videos[i]) : 0.0;
  } catch (const std::exception& e) {
    if (error) *error = errorText(e);
    return false;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return true;
}

}  // namespace amp::train
