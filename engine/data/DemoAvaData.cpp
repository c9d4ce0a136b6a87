#include "data/DemoAvaData.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "data/Draws.h"
#include "data/JpegFrames.h"

namespace fs = std::filesystem;

namespace amp::data {
namespace {

// A video: its persons (one action each, live for a second around its keyframe) and, once
// rendered, each person's box at its keyframe in [0, 1] coordinates.
struct AvaJob {
  std::string split, id;
  std::vector<DemoAction> actions;
  std::vector<int> keySecond;   // per action
  std::vector<DemoBox> keyBox;  // per action, normalised
};

constexpr int kFrames = (kDemoAvaFirstKeySecond - 900 + kDemoAvaKeySeconds) * kDemoAvaFps;

std::string framePath(const std::string& id, int f) {
  char name[64];
  std::snprintf(name, sizeof name, "_%06d.jpg", f + 1);
  return id + "/" + id + name;
}

// 1 or 2 persons at each keyframe, of different actions, each acting from half a second before
// its keyframe to half a second after: the clip around the keyframe sees the whole motion.
void drawPersons(Draws& d, int classes, AvaJob& job) {
  for (int k = 0; k < kDemoAvaKeySeconds; ++k) {
    const int second = kDemoAvaFirstKeySecond + k, key = (second - 900) * kDemoAvaFps;
    const int persons = d.uniform() < 0.5 || classes < 2 ? 1 : 2;
    std::set<int> used;
    while (static_cast<int>(used.size()) < persons) {
      const int label = static_cast<int>(d.integer(static_cast<std::uint64_t>(classes)));
      if (!used.insert(label).second) continue;
      job.actions.push_back({label, key - kDemoAvaFps / 2, key + kDemoAvaFps / 2});
      job.keySecond.push_back(second);
    }
  }
}

std::string coords(const DemoBox& b) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f,%.3f,%.3f,%.3f", b.x1, b.y1, b.x2, b.y2);
  return text;
}

std::string secondText(int second) {
  char text[16];
  std::snprintf(text, sizeof text, "%04d", second);
  return text;
}

bool writeText(const fs::path& path, const std::string& text, std::string* error) {
  std::ofstream out(path);
  out << text;
  if (out.flush()) return true;
  if (error) *error = path.string() + ": cannot write";
  return false;
}

}  // namespace

bool generateDemoAvaData(const DemoDataOptions& o, DemoDataSummary& summary, std::string* error,
                         const std::function<void(int, int)>& progress) {
  const auto& names = demoClassNames();
  const int all = static_cast<int>(names.size());
  const int classes = o.classes > 0 && o.classes < all ? o.classes : all;
  const fs::path root(o.out_dir);
  std::error_code ec;
  for (const char* sub : {"frames", "frame_lists", "annotations"})
    fs::create_directories(root / sub, ec);
  if (ec) {
    if (error) *error = o.out_dir + ": cannot create folders: " + ec.message();
    return false;
  }
  const int train = std::max(2, 2 * o.clips_per_class), val = std::max(2, train / 4);
  std::vector<AvaJob> jobs(static_cast<size_t>(train + val));
  Draws d(o.seed, 0x415641ULL, 0, 0);
  for (int i = 0; i < train + val; ++i) {
    AvaJob& job = jobs[static_cast<size_t>(i)];
    job.split = i < train ? "train" : "val";
    char id[16];
    std::snprintf(id, sizeof id, "A%05d", i);
    job.id = id;
    drawPersons(d, classes, job);
  }

  const bool ok = runDemoJobs(
      jobs.size(), o.threads,
      [&](std::size_t j) {
        AvaJob& job = jobs[j];
        std::vector<std::vector<DemoBox>> boxes;
        const auto video = renderDemoActions(job.actions, demoClipSeed(o.seed, job.id), o.width,
                                             o.height, kFrames, &boxes);
        for (size_t a = 0; a < job.actions.size(); ++a) {
          DemoBox b = boxes[a][static_cast<size_t>((job.keySecond[a] - 900) * kDemoAvaFps)];
          b.x1 /= o.width, b.x2 /= o.width, b.y1 /= o.height, b.y2 /= o.height;
          job.keyBox.push_back(b);
        }
        std::error_code dirError;
        fs::create_directories(root / "frames" / job.id, dirError);
        if (dirError) return o.out_dir + ": cannot create folders: " + dirError.message();
        std::string err;
        for (int f = 0; f < kFrames; ++f)
          if (!writeJpeg((root / "frames" / framePath(job.id, f)).string(),
                         video.data() + static_cast<size_t>(f) * o.width * o.height * 3, o.width,
                         o.height, JpegPixels::Rgb, 90, &err))
            return err.empty() ? framePath(job.id, f) + ": cannot write" : err;
        return std::string();
      },
      progress, error);
  if (!ok) return false;

  summary = DemoDataSummary{};
  summary.codec = "jpeg";
  Draws noise(o.seed, 0x505245ULL, 0, 0);  // the "detector"'s errors
  for (const std::string split : {"train", "val"}) {
    std::ostringstream list, truth, predicted;
    list << "original_vido_id video_id frame_id path labels\n";
    int videoIndex = 0;
    for (const auto& job : jobs) {
      if (job.split != split) continue;
      for (int f = 0; f < kFrames; ++f)
        list << job.id << ' ' << videoIndex << ' ' << f << ' ' << framePath(job.id, f) << " \"\"\n";
      ++videoIndex;
      std::vector<int> personAt(kDemoAvaKeySeconds, 0);
      for (size_t a = 0; a < job.actions.size(); ++a) {
        const int second = job.keySecond[a];
        const std::string key = job.id + "," + secondText(second) + ",";
        truth << key << coords(job.keyBox[a]) << ',' << job.actions[a].label + 1 << ','
              << personAt[static_cast<size_t>(second - kDemoAvaFirstKeySecond)]++ << '\n';
        DemoBox off = job.keyBox[a];
        for (double* c : {&off.x1, &off.y1, &off.x2, &off.y2})
          *c = std::clamp(*c + 0.04 * (noise.uniform() - 0.5), 0.0, 1.0);
        predicted << key << coords(off) << ",," << 0.93 + 0.07 * noise.uniform() << '\n';
      }
      for (int k = 0; k < kDemoAvaKeySeconds; ++k) {
        // A false person, under AVA.DETECTION_SCORE_THRESH (0.9): PySlowFast drops it.
        DemoBox fake;
        fake.x1 = 0.6 * noise.uniform(), fake.y1 = 0.6 * noise.uniform();
        fake.x2 = fake.x1 + 0.2 + 0.2 * noise.uniform(),
        fake.y2 = fake.y1 + 0.2 + 0.2 * noise.uniform();
        predicted << job.id << ',' << secondText(kDemoAvaFirstKeySecond + k) << ',' << coords(fake)
                  << ",," << 0.2 + 0.6 * noise.uniform() << '\n';
      }
      (split == "train" ? summary.train : summary.val)++;
    }
    if (!writeText(root / "frame_lists" / (split + ".csv"), list.str(), error) ||
        !writeText(root / "annotations" / ("ava_" + split + "_v2.2.csv"), truth.str(), error) ||
        !writeText(root / "annotations" / ("ava_" + split + "_predicted_boxes.csv"),
                   predicted.str(), error))
      return false;
  }
  summary.test = summary.val;
  std::ostringstream labelMap;
  for (int k = 0; k < classes; ++k)
    labelMap << "item {\n  name: \"" << names[static_cast<size_t>(k)] << "\"\n  id: " << k + 1
             << "\n}\n";
  const std::string firstVal = jobs[static_cast<size_t>(train)].id;
  if (!writeText(root / "annotations" / "ava_action_list_v2.2_for_activitynet_2019.pbtxt",
                 labelMap.str(), error) ||
      !writeText(root / "annotations" / "ava_val_excluded_timestamps_v2.2.csv",
                 firstVal + "," + secondText(kDemoAvaFirstKeySecond + 1) + "\n", error))
    return false;
  const std::vector<std::string> used(names.begin(), names.begin() + classes);
  std::ostringstream classList;
  for (const auto& n : used) classList << n << '\n';
  const nlohmann::json manifest = {
      {"generator", "ampstudio make-demo-data"},
      {"version", kDemoDataVersion},
      {"format", "ava"},
      {"seed", o.seed},
      {"clips_per_class", o.clips_per_class},
      {"size", {o.width, o.height}},
      {"frames", kFrames},
      {"fps", kDemoAvaFps},
      {"keyframe_seconds",
       {kDemoAvaFirstKeySecond, kDemoAvaFirstKeySecond + kDemoAvaKeySeconds - 1}},
      {"classes", used}};
  return writeText(root / "classes.txt", classList.str(), error) &&
         writeText(root / "demo-data.json", manifest.dump(1) + "\n", error);
}

}  // namespace amp::data
