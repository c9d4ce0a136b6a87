#include "train/Tester.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <stdexcept>

#include "config/Config.h"
#include "config/Refusals.h"
#include "data/VideoLoader.h"
#include "metrics/MeanAveragePrecision.h"
#include "models/VideoModels.h"
#include "system/ErrorText.h"
#include "train/Checkpoint.h"
#include "train/DataParallel.h"
#include "train/DetectionEval.h"
#include "train/MultiViewTest.h"
#include "train/PerClassAp.h"
#include "train/TrainStep.h"
#include "util/FaultInjection.h"

namespace amp::train {

std::optional<std::string> unsupportedTask(const config::Config& c, bool training) {
  const auto refused = config::refusedSettings(c, training);
  if (refused.empty()) return std::nullopt;
  return refused.front().key + ": " + refused.front().message;
}

std::string testCheckpoint(const config::Config& c) {
  std::string path = c.getString("TEST.CHECKPOINT_FILE_PATH");
  if (path.empty()) path = latestCheckpoint(c.getString("OUTPUT_DIR"), c.getString("TASK"));
  if (path.empty()) path = c.getString("TRAIN.CHECKPOINT_FILE_PATH");
  return path;
}

CheckpointInfo loadTestWeights(const config::Config& c, const std::string& path,
                               torch::nn::Module& net) {
  LoadTargets t{&net, nullptr, nullptr, false, {}};
  const bool isTest = path == c.getString("TEST.CHECKPOINT_FILE_PATH");
  if (isTest)
    t.caffe2 = c.getString("TEST.CHECKPOINT_TYPE") == "caffe2";
  else if (path == c.getString("TRAIN.CHECKPOINT_FILE_PATH"))
    t.caffe2 = c.getString("TRAIN.CHECKPOINT_TYPE") == "caffe2";
  auto info = loadCheckpoint(path, t);
  if (t.caffe2) {  // PySlowFast loads what converts; testing half a model would mislead, so all
                   // must fit
    std::vector<std::string> fresh;
    for (const auto& n : info.notes)
      if (n.find("keeps its initialisation") != std::string::npos) fresh.push_back(n);
    if (!fresh.empty())
      throw std::runtime_error(
          path + ": the Caffe2 weights do not cover this model (" + fresh.front() +
          (fresh.size() > 1 ? ", and " + std::to_string(fresh.size() - 1) + " more"
                            : std::string()) +
          "): nothing to test");
  }
  return info;
}

namespace {
void testList(const config::Config& c, models::VideoNetImpl& net, const torch::Device& device,
              bool channelsLast, DataParallel& ddp, const TestOptions& o, data::SampleList list,
              TestResult& r);
}  // namespace

void testLoadedModel(const config::Config& c, models::VideoNetImpl& net,
                     const torch::Device& device, bool channelsLast, DataParallel& ddp,
                     const TestOptions& o, TestResult& r) {
  data::SampleList list;
  std::string err;
  if (!data::readSampleList(c, data::Split::Test, list, &err)) throw std::runtime_error(err);
  testList(c, net, device, channelsLast, ddp, o, std::move(list), r);
}

namespace {
// A test stops at a cancel request, or where the fault drill asks for a stop ("test_batch").
bool stopAsked(const TestOptions& o) {
  return (o.cancel && o.cancel->load()) ||
         util::injectedFault("test_batch") == util::FaultAction::Stop;
}

// AVA's test (PySlowFast's AVAMeter in test mode): one clip per keyframe, every predicted box
// scored, gathered over the ranks and evaluated against the ground truth of every second.
void testDetection(const config::Config& c, models::VideoNetImpl& net, const torch::Device& device,
                   bool channelsLast, DataParallel& ddp, const TestOptions& o,
                   data::SampleList list, TestResult& r) {
  const auto ava = list.ava;
  const int keyframes = static_cast<int>(list.videos.size());
  if (keyframes == 0 || !ava)
    throw std::runtime_error("AVA.TEST_LISTS: no keyframe with a box to test (AVA.FRAME_LIST_DIR " +
                             c.getString("AVA.FRAME_LIST_DIR") + ", AVA.TEST_PREDICT_BOX_LISTS)");
  data::VideoLoader loader(
      std::move(list), data::ClipParams::fromConfig(c), data::Split::Test,
      data::LoaderOptions::fromConfig(c, data::Split::Test, ddp.rank(), ddp.worldSize()));
  BoxScores mine(c.getInt("MODEL.NUM_CLASSES"));
  const int share = static_cast<int>(loader.samplesPerEpoch());
  int done = 0;
  torch::NoGradGuard noGrad;
  net.eval();
  loader.startEpoch(0);
  bool cancelled = false;
  while (auto b = loader.next()) {
    if (stopAsked(o)) {
      cancelled = true;
      break;
    }
    if (b->num_boxes > 0)
      mine.add(net.forward(batchTensors(*b, device, channelsLast), batchBoxes(*b, device)), *b);
    done += b->size;
    loader.recycle(std::move(*b));
    if (o.progress)
      o.progress(
          share ? static_cast<int>(static_cast<std::int64_t>(done) * keyframes / share) : keyframes,
          keyframes);
  }
  loader.stop();
  if (!loader.error().empty()) throw std::runtime_error(loader.error());
  if (ddp.control(cancelled, false).stop) throw TestCancelled();
  const BoxScores all = gatherBoxScores(mine, ddp);
  const std::string csv =
      ddp.isMain()
          ? (std::filesystem::path(c.getString("OUTPUT_DIR")) / "detections_latest.csv").string()
          : std::string();
  if (!csv.empty()) std::filesystem::create_directories(c.getString("OUTPUT_DIR"));
  const auto e = evaluateBoxScores(c, all, *ava, /*fullGroundTruth=*/true, csv);
  r.detection = r.multi_label = true;
  r.videos = keyframes;
  r.views_per_video = 1;
  r.world_size = ddp.worldSize();
  r.boxes = e.boxes;
  r.map = std::isnan(e.ava.map) ? 0.0 : e.ava.map;
  r.map_classes = e.ava.classes_with_groundtruth;
  r.detections_csv = e.detections_csv;
  r.per_class_ap = perClassAp(e.ava, "test");
  r.top1_err = r.top5_err = r.view_top1_err = std::nan("");
}

void testList(const config::Config& c, models::VideoNetImpl& net, const torch::Device& device,
              bool channelsLast, DataParallel& ddp, const TestOptions& o, data::SampleList list,
              TestResult& r) {
  if (list.kind == data::DatasetKind::Ava)
    return testDetection(c, net, device, channelsLast, ddp, o, std::move(list), r);
  const auto params = data::ClipParams::fromConfig(c);
  const int nVideos = static_cast<int>(list.videos.size());
  if (nVideos == 0)
    throw std::runtime_error("DATA.PATH_TO_DATA_DIR: the test list " +
                             c.getString("DATA.PATH_TO_DATA_DIR") + "/test.csv is empty");
  std::vector<int> labels;
  r.video_paths.clear();
  const int classes = static_cast<int>(c.getInt("MODEL.NUM_CLASSES"));
  r.multi_label = list.multi_label;
  r.video_targets.assign(r.multi_label ? static_cast<std::size_t>(nVideos) * classes : 0, 0);
  for (const auto& v : list.videos) {
    labels.push_back(r.multi_label ? (v.labels.empty() ? -1 : v.labels.front()) : v.label);
    r.video_paths.push_back(v.frames.empty() ? v.path : v.name);
    if (r.multi_label)  // the video's classes: its frames' union (convert_to_video_level_labels)
      for (const int k : v.labels)
        if (k >= 0 && k < classes)
          r.video_targets[(r.video_paths.size() - 1) * static_cast<std::size_t>(classes) +
                          static_cast<std::size_t>(k)] = 1;
  }
  // Each rank takes every world-th view (no padding), so every view is scored exactly once.
  data::VideoLoader loader(
      std::move(list), params, data::Split::Test,
      data::LoaderOptions::fromConfig(c, data::Split::Test, ddp.rank(), ddp.worldSize()));
  // Per video: the sum of its views' probabilities (PySlowFast's ensemble), then views scored and
  // views whose own top-1 was right, so that one all-reduce combines the ranks.
  auto sums = torch::zeros({nVideos, classes + 2}, torch::kDouble);
  auto acc = sums.accessor<double, 2>();
  // DATA.ENSEMBLE_METHOD max: the element-wise maximum of the views' probabilities instead
  // (PySlowFast's TestMeter starts each video at zeros and takes torch.max with every view).
  const bool ensembleMax = c.getString("DATA.ENSEMBLE_METHOD") == "max";
  auto maxes = torch::zeros({ensembleMax ? nVideos : 0, classes}, torch::kDouble);
  auto mx = maxes.accessor<double, 2>();
  const int mine = static_cast<int>(loader.samplesPerEpoch());
  const int total = nVideos * params.viewsPerTestVideo();
  int views = 0;
  torch::NoGradGuard noGrad;
  net.eval();
  loader.startEpoch(0);
  bool cancelled = false;
  while (auto b = loader.next()) {
    if (stopAsked(o)) {
      cancelled = true;
      break;
    }
    const auto x = batchTensors(*b, device, channelsLast);
    const auto probs = net.forward(x).to(torch::kCPU, torch::kDouble).contiguous();
    const auto best = probs.argmax(1);
    const auto p = probs.accessor<double, 2>();
    for (int i = 0; i < b->size; ++i) {
      const int v = b->videos[static_cast<size_t>(i)];
      for (int k = 0; k < classes; ++k) acc[v][k] += p[i][k];
      if (ensembleMax)
        for (int k = 0; k < classes; ++k) mx[v][k] = std::max(mx[v][k], p[i][k]);
      acc[v][classes] += 1;
      acc[v][classes + 1] += best[i].item<int64_t>() == labels[static_cast<size_t>(v)] ? 1 : 0;
      ++views;
    }
    loader.recycle(std::move(*b));
    // One process's share, shown as the whole test's progress (every rank moves at about one pace).
    if (o.progress)
      o.progress(mine ? static_cast<int>(static_cast<std::int64_t>(views) * total / mine) : total,
                 total);
  }
  loader.stop();
  if (!loader.error().empty()) throw std::runtime_error(loader.error());
  // A stop seen by any rank ends the test on all, before the all-reduces a rank that stopped
  // alone would leave unmatched.
  if (ddp.control(cancelled, false).stop) throw TestCancelled();
  ddp.sumInPlace(sums, "sum of the test views' scores");
  if (ensembleMax) ddp.maxInPlace(maxes, "maximum of the test views' scores");
  const auto viewCounts = sums.select(1, classes);
  if (viewCounts.min().item<double>() != params.viewsPerTestVideo() ||
      viewCounts.max().item<double>() != params.viewsPerTestVideo())
    throw std::runtime_error("test: a video was scored with " +
                             std::to_string(viewCounts.min().item<double>()) + " to " +
                             std::to_string(viewCounts.max().item<double>()) +
                             " views instead of " + std::to_string(params.viewsPerTestVideo()));
  const auto scores = ensembleMax ? maxes : sums.narrow(1, 0, classes).contiguous();
  r.video_labels = labels;
  r.video_scores.assign(scores.data_ptr<double>(), scores.data_ptr<double>() + scores.numel());
  const auto target = torch::tensor(labels, torch::kLong);
  const int k = std::min(5, classes);
  const auto top = std::get<1>(scores.topk(k, 1));
  const auto hit = top.eq(target.unsqueeze(1));
  const double n = nVideos;
  r.videos = nVideos;
  r.views_per_video = params.viewsPerTestVideo();
  r.world_size = ddp.worldSize();
  const auto top1 = hit.narrow(1, 0, 1).any(1);
  r.top1_err = 100.0 * (1.0 - top1.sum().item<double>() / n);
  r.top5_err = 100.0 * (1.0 - hit.any(1).sum().item<double>() / n);
  r.view_top1_err = 100.0 * (1.0 - sums.select(1, classes + 1).sum().item<double>() /
                                       viewCounts.sum().item<double>());
  if (r.multi_label) {  // TestMeter.finalize_metrics: get_map over the ensembled video scores
    std::vector<float> s(r.video_scores.begin(), r.video_scores.end()),
        t(r.video_targets.begin(), r.video_targets.end());
    const auto m = metrics::meanAveragePrecision(s.data(), t.data(), static_cast<size_t>(nVideos),
                                                 static_cast<size_t>(classes));
    r.map = m.map;
    r.map_classes = m.classes_used;
    r.per_class_ap = perClassAp(m, "test", classNames(c));
    r.top1_err = r.top5_err = r.view_top1_err = std::nan("");
    return;
  }
  r.per_class_videos.assign(static_cast<size_t>(classes), 0);
  r.per_class_top1_err.assign(static_cast<size_t>(classes), 0.0);
  std::vector<int> correct(static_cast<size_t>(classes), 0);
  for (int v = 0; v < nVideos; ++v) {
    const auto cls = static_cast<size_t>(labels[static_cast<size_t>(v)]);
    if (cls >= correct.size()) continue;
    ++r.per_class_videos[cls];
    correct[cls] += top1[v].item<bool>() ? 1 : 0;
  }
  for (size_t i = 0; i < correct.size(); ++i)
    r.per_class_top1_err[i] =
        r.per_class_videos[i]
            ? 100.0 * (1.0 - static_cast<double>(correct[i]) / r.per_class_videos[i])
            : 0.0;
}

}  // namespace

bool predictVideos(const config::Config& c, const std::string& checkpoint,
                   const std::vector<std::string>& videos, std::vector<Prediction>& out,
                   std::string* error, int threads) {
  out.clear();
  try {
    if (const auto why = unsupportedTask(c, false)) throw std::runtime_error(*why);
    const std::string path = checkpoint.empty() ? testCheckpoint(c) : checkpoint;
    if (path.empty())
      throw std::runtime_error(
          "--checkpoint: no checkpoint given, and neither TEST.CHECKPOINT_FILE_PATH, OUTPUT_DIR "
          "nor "
          "TRAIN.CHECKPOINT_FILE_PATH has one");
    const torch::Device device = trainingDevice(c, 0);
    if (threads > 0 && device.is_cpu()) torch::set_num_threads(threads);
    dist::DistEnv one;
    DataParallel ddp(one, c, device);
    const bool channelsLast = useChannelsLast3d(c, device);
    auto net = models::buildVideoNet(c);
    loadTestWeights(c, path, *net);
    net->to(device);
    if (channelsLast) toChannelsLast3d(*net);
    const bool max = c.getString("DATA.ENSEMBLE_METHOD") == "max";
    for (size_t i = 0; i < videos.size(); ++i) {
      const std::string& video = videos[i];
      Prediction p;
      p.video = video;
      const auto started = std::chrono::steady_clock::now();
      data::SampleList list;
      list.listPath = "video";  // messages then say "(video:N)", N its place among the arguments
      data::Sample one;
      one.path = video;
      one.line = static_cast<int>(i + 1);
      list.videos.push_back(std::move(one));
      TestOptions o;
      o.checkpoint = path;
      TestResult r;
      try {
        testList(c, *net, device, channelsLast, ddp, o, std::move(list), r);
        // the test's per-video score: summed probabilities (mean = sum / views) or their maximum
        const size_t classes = r.video_scores.size();
        std::vector<std::pair<double, int>> ranked;
        for (size_t k = 0; k < classes; ++k)
          ranked.emplace_back(max ? r.video_scores[k] : r.video_scores[k] / r.views_per_video,
                              static_cast<int>(k));
        const size_t top = std::min<size_t>(5, classes);
        std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(top),
                          ranked.end(),
                          [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t k = 0; k < top; ++k) p.top.emplace_back(ranked[k].second, ranked[k].first);
        p.views = r.views_per_video;
      } catch (const std::exception& e) {
        p.error = system::errorText(e);
      }
      p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      out.push_back(std::move(p));
    }
    return true;
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
}

bool writeTestScores(const TestResult& r, const std::string& path, std::string* error) {
  const size_t videos = r.video_paths.size();
  const size_t classes = videos ? r.video_scores.size() / videos : 0;
  std::ofstream out(path, std::ios::trunc);
  out << "video,label,views,top1";
  for (size_t k = 0; k < classes; ++k) out << ",score_" << k;
  if (r.multi_label)
    for (size_t k = 0; k < classes; ++k) out << ",target_" << k;
  out << "\n" << std::setprecision(9);
  for (size_t v = 0; v < videos; ++v) {
    const double* row = r.video_scores.data() + v * classes;
    const size_t best = static_cast<size_t>(std::max_element(row, row + classes) - row);
    // Paths with a comma or quote are quoted as RFC 4180 says.
    std::string name = r.video_paths[v];
    if (name.find_first_of(",\"\n") != std::string::npos) {
      std::string q = "\"";
      for (char ch : name) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      name = q + "\"";
    }
    out << name << "," << r.video_labels[v] << "," << r.views_per_video << "," << best;
    for (size_t k = 0; k < classes; ++k) out << "," << row[k];
    if (r.multi_label)
      for (size_t k = 0; k < classes; ++k) out << "," << int(r.video_targets[v * classes + k]);
    out << "\n";
  }
  out.flush();
  if (!out) {
    if (error) *error = path + ": cannot write the test scores (" + std::strerror(errno) + ")";
    return false;
  }
  return true;
}

std::vector<int> temporalClipCounts(const config::Config& c) {
  const auto list = c.getIntList("TEST.NUM_TEMPORAL_CLIPS");
  if (list.empty()) return {static_cast<int>(c.getInt("TEST.NUM_ENSEMBLE_VIEWS"))};
  std::vector<int> out;
  for (const auto n : list) {
    if (n < 1)
      throw std::invalid_argument("TEST.NUM_TEMPORAL_CLIPS: " + std::to_string(n) +
                                  " temporal clips; each entry must be 1 or more");
    out.push_back(static_cast<int>(n));
  }
  return out;
}

config::Config withTemporalClips(const config::Config& c, int clips) {
  config::Config out = c;
  out.setOrThrow("TEST.NUM_ENSEMBLE_VIEWS", static_cast<std::int64_t>(clips));
  return out;
}

bool runMultiViewTests(const config::Config& cfg, const TestOptions& o,
                       std::vector<TestResult>& results, std::string* error) {
  results.clear();
  try {
    const config::Config& c = cfg;
    if (const auto why = unsupportedTask(c, false)) throw std::runtime_error(*why);
    const std::string path = o.checkpoint.empty() ? testCheckpoint(c) : o.checkpoint;
    if (path.empty())
      throw std::runtime_error(
          "TEST.CHECKPOINT_FILE_PATH: no checkpoint to test; OUTPUT_DIR " +
          c.getString("OUTPUT_DIR") +
          " has none and neither TEST.CHECKPOINT_FILE_PATH nor TRAIN.CHECKPOINT_FILE_PATH is set");
    const dist::DistEnv env = o.dist ? *o.dist : dist::DistEnv{};
    const torch::Device device = trainingDevice(c, env.local_rank);
    DataParallel ddp(env, c, device);  // joins the other ranks (nothing to join with one process)
    ddp.checkSameConfig(c);
    const bool channelsLast = useChannelsLast3d(c, device);
    auto net = models::buildVideoNet(c);
    loadTestWeights(c, path, *net);
    net->to(device);
    if (channelsLast) toChannelsLast3d(*net);
    for (const int clips : temporalClipCounts(c)) {
      const auto started = std::chrono::steady_clock::now();
      TestResult r;
      r.checkpoint = path;
      testLoadedModel(withTemporalClips(c, clips), *net, device, channelsLast, ddp, o, r);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      results.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    if (error) *error = system::errorText(e);
    return false;
  }
  return true;
}

metrics::ConfusionRecord testConfusionRecord(const TestResult& r, int classes, bool maxEnsembled,
                                             const std::string& checkpoint) {
  auto record = metrics::recordFromScores(r.video_scores.data(), r.video_labels, r.video_paths,
                                          classes, maxEnsembled ? 1.0 : r.views_per_video);
  record.split = "test";
  record.unit = "video";
  record.views_per_video = r.views_per_video;
  record.checkpoint = checkpoint;
  return record;
}

}  // namespace amp::train
