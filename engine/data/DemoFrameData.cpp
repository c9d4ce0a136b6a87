#include "data/DemoFrameData.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "data/Draws.h"
#include "data/JpegFrames.h"

namespace fs = std::filesystem;

namespace amp::data {
namespace {

struct FrameJob {
  std::string split;  // "train" or "val"
  std::string id;     // the video id (original_vido_id)
  int label = 0;      // SSv2: the class
  std::vector<DemoAction> actions;
  int frames = 0;
};

std::string framePath(const FrameJob& job, int f) {
  char name[96];
  std::snprintf(name, sizeof name, "_%06d.jpg", f + 1);
  return "frames/" + job.id + "/" + job.id + name;
}

// Charades-style: 2 actions (3 in about a third of the videos) of different classes, each over
// half the video to all of it and all through its middle frame: they overlap there, and a clip
// from either end may miss the shorter ones.
std::vector<DemoAction> drawActions(Draws& d, int classes, int frames) {
  const int count = d.uniform() < 0.3 ? 3 : 2;
  const int mid = frames / 2;
  std::set<int> used;
  std::vector<DemoAction> actions;
  while (static_cast<int>(actions.size()) < count) {
    const int label = static_cast<int>(d.integer(static_cast<std::uint64_t>(classes)));
    if (!used.insert(label).second) continue;
    const int length =
        frames / 2 + static_cast<int>(d.integer(static_cast<std::uint64_t>(frames / 2 + 1)));
    const int lo = std::max(0, mid - length + 1), hi = std::min(mid, frames - length);
    const int first =
        lo + static_cast<int>(d.integer(static_cast<std::uint64_t>(std::max(1, hi - lo + 1))));
    actions.push_back({label, first, std::min(frames - 1, first + length - 1)});
  }
  return actions;
}

std::string frameLabels(const FrameJob& job, int f) {
  std::string text;
  std::set<int> labels;
  for (const DemoAction& a : job.actions)
    if (f >= a.first && f <= a.last) labels.insert(a.label);
  for (const int l : labels) text += (text.empty() ? "" : ",") + std::to_string(l);
  return "\"" + text + "\"";
}

bool writeJson(const fs::path& path, const nlohmann::json& j, std::string* error) {
  std::ofstream out(path);
  out << j.dump(1) << '\n';
  if (out) return true;
  if (error) *error = path.string() + ": cannot write";
  return false;
}

}  // namespace

const std::vector<std::string>& demoSsv2Templates() {
  static const std::vector<std::string> templates = {
      "Moving [something] right", "Moving [something] left", "Moving [something] down",
      "Moving [something] up",    "Blinking [something]",    "Holding [something] still",
      "Growing [something]",      "Shrinking [something]"};
  return templates;
}

bool generateDemoFrameData(const DemoDataOptions& o, DemoDataSummary& summary, std::string* error,
                           const std::function<void(int, int)>& progress) {
  const bool charades = o.format == DemoFormat::Charades;
  const auto& names = demoClassNames();
  const int classes = static_cast<int>(names.size());
  std::vector<FrameJob> jobs;
  Draws d(o.seed, 0x43484152ULL, 0, 0);
  if (charades) {
    // Longer videos than the clips, so a training clip sees only some of the actions.
    const int train = std::max(4, o.clips_per_class * classes * 3 / 4),
              val = std::max(8, train / 4);
    for (int i = 0; i < train + val; ++i) {
      FrameJob job;
      job.split = i < train ? "train" : "val";
      char id[16];
      std::snprintf(id, sizeof id, "C%05d", i);
      job.id = id;
      job.frames = 2 * o.frames;
      job.actions = drawActions(d, classes, job.frames);
      jobs.push_back(std::move(job));
    }
  } else {
    const int perEval = std::max(2, o.clips_per_class / 4);
    int next = 1;
    for (const auto& [split, count] :
         {std::pair<std::string, int>{"train", o.clips_per_class}, {"val", perEval}})
      for (int k = 0; k < count; ++k)
        for (int label = 0; label < classes; ++label) {
          FrameJob job;
          job.split = split;
          job.id = std::to_string(next++);
          job.label = label;
          job.frames = o.frames;
          job.actions = {{label, 0, o.frames - 1}};
          jobs.push_back(std::move(job));
        }
  }

  const bool ok = runDemoJobs(
      jobs.size(), o.threads,
      [&](std::size_t j) {
        const FrameJob& job = jobs[j];
        const auto video = renderDemoActions(job.actions, demoClipSeed(o.seed, job.id), o.width,
                                             o.height, job.frames);
        std::error_code ec;
        fs::create_directories(fs::path(o.out_dir) / "frames" / job.id, ec);
        if (ec) return o.out_dir + ": cannot create folders: " + ec.message();
        std::string err;
        for (int f = 0; f < job.frames; ++f)
          if (!writeJpeg((fs::path(o.out_dir) / framePath(job, f)).string(),
                         video.data() + static_cast<size_t>(f) * o.width * o.height * 3, o.width,
                         o.height, JpegPixels::Rgb, 90, &err))
            return err.empty() ? framePath(job, f) + ": cannot write" : err;
        return std::string();
      },
      progress, error);
  if (!ok) return false;

  // The frame lists PySlowFast reads (test reads val.csv), then the formats' own files.
  summary = DemoDataSummary{};
  summary.codec = "jpeg";
  for (const std::string split : {"train", "val"}) {
    const fs::path path = fs::path(o.out_dir) / (split + ".csv");
    std::ofstream csv(path);
    csv << "original_vido_id video_id frame_id path labels\n";
    int videoIndex = 0;
    for (const auto& job : jobs) {
      if (job.split != split) continue;
      for (int f = 0; f < job.frames; ++f)
        csv << job.id << ' ' << videoIndex << ' ' << f << ' ' << framePath(job, f) << ' '
            << (charades ? frameLabels(job, f) : "\"\"") << '\n';
      ++videoIndex;
      (split == "train" ? summary.train : summary.val)++;
    }
    if (!csv) {
      if (error) *error = path.string() + ": cannot write";
      return false;
    }
  }
  summary.test = summary.val;
  if (!charades) {
    nlohmann::json labels = nlohmann::json::object();
    for (int k = 0; k < classes; ++k) {
      std::string name = demoSsv2Templates()[static_cast<size_t>(k)];
      name.erase(
          std::remove_if(name.begin(), name.end(), [](char c) { return c == '[' || c == ']'; }),
          name.end());
      labels[name] = std::to_string(k);
    }
    if (!writeJson(fs::path(o.out_dir) / "something-something-v2-labels.json", labels, error))
      return false;
    for (const auto& [split, file] :
         {std::pair<std::string, std::string>{"train", "train"}, {"val", "validation"}}) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& job : jobs)
        if (job.split == split)
          list.push_back({{"id", job.id},
                          {"template", demoSsv2Templates()[static_cast<size_t>(job.label)]},
                          {"placeholders", {"something"}}});
      if (!writeJson(fs::path(o.out_dir) / ("something-something-v2-" + file + ".json"), list,
                     error))
        return false;
    }
  }
  std::ofstream classesFile(fs::path(o.out_dir) / "classes.txt");
  for (const auto& n : names) classesFile << n << '\n';
  nlohmann::json manifest = {
      {"generator", "ampstudio make-demo-data"},      {"version", kDemoDataVersion},
      {"format", charades ? "charades" : "ssv2"},     {"seed", o.seed},
      {"clips_per_class", o.clips_per_class},         {"size", {o.width, o.height}},
      {"frames", charades ? 2 * o.frames : o.frames}, {"classes", names}};
  return writeJson(fs::path(o.out_dir) / "demo-data.json", manifest, error);
}

}  // namespace amp::data
