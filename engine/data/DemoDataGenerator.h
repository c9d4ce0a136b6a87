#pragma once
// The studio's built-in dataset: short encoded videos of moving shapes whose class is the motion
// (direction, blinking, standing still, growing or shrinking), never visible in a single frame,
// written in PySlowFast's Kinetics layout (train.csv, val.csv, test.csv).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace amp::data {

/// Written to demo-data.json as "version"; raised whenever the clips change, so scripts know
/// to write the dataset again (2: 24 frames, faster motion; 3: blinking and standing still
/// instead of the turning senses, which a tiny net with global pooling hardly tells apart;
/// 4: square frames, so the crop of the short side that training and testing take sees the
/// whole path of the shape, and faster growing / shrinking).
constexpr int kDemoDataVersion = 4;

/// The layout written: Kinetics' videos and CSVs, or SSv2's / Charades' frame folders and lists.
enum class DemoFormat { Kinetics, Ssv2, Charades, Ava };
/// "kinetics", "ssv2", "charades" or "ava"; false otherwise.
bool demoFormatFromName(const std::string& name, DemoFormat& out);

struct DemoDataOptions {
  std::string out_dir;
  DemoFormat format = DemoFormat::Kinetics;
  int clips_per_class =
      100;  ///< training clips per class; val and test get a quarter each (at least 2)
  std::uint64_t seed = 0;
  int threads = 2;
  int width = 84;   ///< square: a 4:3 frame lost a quarter of its width to the square crops,
  int height = 84;  ///< and with it the shape of some clips (their label then was noise)
  int fps = 15;
  int frames = 24;
  /// AVA format: the persons' actions come from the first `classes` classes only (0, or more
  /// than there are: all of them); a smaller task, e.g. the suite's learning check.
  int classes = 0;
};

struct DemoDataSummary {
  int train = 0, val = 0, test = 0;
  std::string codec;
};

/// Each clip's own seed, from the dataset's seed and the clip's file name: the result does not
/// depend on the thread that renders it.
std::uint64_t demoClipSeed(std::uint64_t seed, const std::string& name);

/// Runs job(0) .. job(count - 1) on `threads` threads; each returns "" or why it failed. After
/// the first failure no new job starts; `progress(done, count)` is called after each job, from
/// the worker threads. False with `error` set to the first failure.
[[nodiscard]] bool runDemoJobs(std::size_t count, int threads,
                               const std::function<std::string(std::size_t)>& job,
                               const std::function<void(int, int)>& progress, std::string* error);

/// The class names, in label order.
const std::vector<std::string>& demoClassNames();

/// One action of a clip: class `label` from frame `first` to frame `last` (inclusive).
struct DemoAction {
  int label = 0;
  int first = 0, last = 0;
};

/// Where an action's shape is in a frame: the extent of its outline in pixels, clipped to the
/// image; not visible outside the action's frames.
struct DemoBox {
  double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
  bool visible = false;
};

/// Renders a clip (frames x height x width x 3 RGB) in which each action's shape moves as its
/// class over its frames and is absent elsewhere (several may overlap); deterministic in `seed`.
/// With `boxes`, also each action's box in every frame: (*boxes)[action][frame].
std::vector<std::uint8_t> renderDemoActions(const std::vector<DemoAction>& actions,
                                            std::uint64_t seed, int width, int height, int frames,
                                            std::vector<std::vector<DemoBox>>* boxes = nullptr);

/// Renders one clip (frames x height x width x 3 RGB) of class `label`; deterministic in `seed`.
std::vector<std::uint8_t> renderDemoClip(int label, std::uint64_t seed, int width, int height,
                                         int frames);

/// Writes the dataset (the frame formats through generateDemoFrameData). `progress(done, total)` is
/// called from worker threads. False with `error`.
bool generateDemoData(const DemoDataOptions& options, DemoDataSummary& summary, std::string* error,
                      const std::function<void(int, int)>& progress = {});

}  // namespace amp::data
