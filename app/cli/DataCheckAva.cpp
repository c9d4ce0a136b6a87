// ampstudio-cli data check for AVA: per split, the frame lists and box lists as PySlowFast's
// Ava._load_data logs them (videos, frames, annotations, unique boxes, keyframes, boxes used) with
// what it drops silently (rows under the score threshold, rows outside the valid seconds), then
// every frame the keyframes' clips read, once per video, with the list line of each bad one.
#include "DataCheckAva.h"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <set>
#include <thread>

#include "data/AvaCheck.h"
#include "data/AvaDataset.h"

namespace amp::cli {
namespace {

std::string joinedList(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

struct SplitTotals {
  int ok = 0, failed = 0;
  std::int64_t decoded = 0;
  int wMin = 1 << 30, wMax = 0, hMin = 1 << 30, hMax = 0;
};

// One split: false when its lists cannot be read (the error is printed).
bool checkSplit(const config::Config& cfg, data::Split split, const AvaCheckArgs& a,
                SplitTotals& totals) {
  const data::AvaSettings settings = data::AvaSettings::fromConfig(cfg);
  const std::string name = data::splitName(split);
  data::AvaDataset ava;
  std::string error;
  if (!data::readAvaDataset(settings, split, ava, &error)) {
    std::cout << name << ": " << error << "\n";
    ++totals.failed;
    return false;
  }
  const std::vector<std::string> lists = settings.frameListFiles(split);
  std::vector<std::string> boxPaths;
  for (const auto& f : settings.boxFiles(split)) boxPaths.push_back(f.path);
  std::int64_t frames = 0;
  for (const auto& v : ava.videos) frames += static_cast<std::int64_t>(v.frames.size());
  std::cout << name << ": frame lists " << joinedList(lists) << ": " << ava.videos.size()
            << " videos, " << frames << " frames\n";
  std::cout << name << ": box lists " << joinedList(boxPaths) << ": " << ava.annotations
            << " annotations, " << ava.unique_boxes << " unique boxes; " << ava.below_score_thresh
            << " rows under AVA.DETECTION_SCORE_THRESH " << settings.detection_score_thresh
            << " dropped, " << ava.outside_valid_seconds << " rows outside seconds "
            << data::kAvaFirstSecond << "-" << data::kAvaLastSecond << " dropped\n";
  std::cout << name << ": " << ava.keyframes.size() << " keyframes, " << ava.boxes_used
            << " boxes used"
            << (split == data::Split::Val && !settings.full_test_on_val
                    ? " (every 4th second: AVA.FULL_TEST_ON_VAL is False)"
                    : "")
            << "\n";

  const data::ClipParams params = data::ClipParams::fromConfig(cfg);
  data::AvaVideoCheckOptions options;
  options.max_decoded = static_cast<std::size_t>(std::max(0, a.max_frames));
  std::vector<data::AvaVideoCheck> results(ava.videos.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < results.size();) {
      try {  // an exception leaving this thread would end the command without a word
        results[i] = data::checkAvaVideo(params, ava, static_cast<int>(i), options);
      } catch (const std::exception& e) {
        results[i] = data::AvaVideoCheck{};
        results[i].problems.push_back({0, "", e.what(), false});
      }
    }
  };
  const int threads = a.threads > 0
                          ? a.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 0; t < std::min<int>(threads, static_cast<int>(results.size())); ++t)
    pool.emplace_back(worker);
  for (auto& t : pool) t.join();

  // The list lines of the bad frames, found by reading the lists once more.
  std::set<std::string> bad;
  for (const auto& r : results)
    for (const auto& p : r.problems)
      if (!p.path.empty()) bad.insert(p.path);
  const auto lines = data::avaFrameListLines(lists, settings.frame_dir, bad);
  int ok = 0, failed = 0;
  std::int64_t used = 0, decoded = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const std::string& video = ava.videos[i].name;
    for (const auto& p : r.problems) {
      const auto line = lines.find(p.path);
      std::cout << (line != lines.end() ? line->second + ": " : std::string()) << video << ": "
                << p.message << "\n";
    }
    if (r.more_problems) std::cout << video << ": and " << r.more_problems << " more bad frames\n";
    if (r.sampled)
      std::cout << video << ": " << r.used << " frames read by its clips, "
                << std::min<std::size_t>(options.max_decoded, static_cast<std::size_t>(r.used))
                << " of them decoded (an even spread; --max-frames 0 decodes all), every one "
                   "looked up\n";
    used += r.used;
    decoded += r.decoded;
    if (!r.ok) {
      ++failed;
      continue;
    }
    ++ok;
    totals.wMin = std::min(totals.wMin, r.width), totals.wMax = std::max(totals.wMax, r.width);
    totals.hMin = std::min(totals.hMin, r.height), totals.hMax = std::max(totals.hMax, r.height);
  }
  std::cout << name << ": " << ok << " videos ok, " << failed << " failed; " << used
            << " frames read by the keyframes' clips, " << decoded << " decoded ("
            << joinedList(lists) << ")\n";
  totals.ok += ok;
  totals.failed += failed;
  totals.decoded += decoded;
  return true;
}

}  // namespace

int runAvaCheck(const config::Config& cfg, const AvaCheckArgs& a) {
  // Test reads the val lists at every keyframe second, validation at every 4th of them: test's
  // frames hold validation's.
  std::vector<data::Split> splits = {data::Split::Train, data::Split::Test};
  if (!a.split.empty()) {
    data::Split s = data::Split::Train;
    (void)data::splitFromName(a.split, s);  // CLI11 allows train, val, test only
    splits = {s};
  }
  std::cout << "ava: keyframes of the frame lists and box lists (AVA.*); every frame their clips "
               "read, decoded once"
            << (a.max_frames > 0 ? " (at most " + std::to_string(a.max_frames) + " a video)" : "")
            << (a.split.empty() ? "; test covers val's keyframes" : "") << "\n";
  SplitTotals totals;
  for (const data::Split s : splits) (void)checkSplit(cfg, s, a, totals);  // failures counted
  std::cout << "total: " << totals.ok << " videos ok, " << totals.failed << " failed";
  if (totals.ok)
    std::cout << "; " << totals.decoded << " frames decoded; size " << totals.wMin << "x"
              << totals.hMin << " to " << totals.wMax << "x" << totals.hMax;
  std::cout << "\n";
  return totals.failed ? 1 : 0;
}

}  // namespace amp::cli
