#include "data/DemoDataGenerator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "data/DemoAvaData.h"
#include "data/DemoFrameData.h"
#include "data/VideoWriter.h"

namespace fs = std::filesystem;

namespace amp::data {
namespace {

constexpr double kPi = 3.14159265358979323846;

// A small, portable generator: the same seed gives the same dataset with any standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
  int pick(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t state_;
};

struct Color {
  double r, g, b;
};

struct Shape {
  std::vector<std::pair<double, double>> unit;  // outline around (0, 0), radius about 1
  Color color;
};

std::vector<std::pair<double, double>> outline(int kind) {
  std::vector<std::pair<double, double>> pts;
  switch (kind) {
    case 0:  // triangle
      for (int i = 0; i < 3; ++i)
        pts.emplace_back(std::cos(2 * kPi * i / 3), std::sin(2 * kPi * i / 3));
      break;
    case 1:  // 2:1 rectangle
      pts = {{-1, -0.5}, {1, -0.5}, {1, 0.5}, {-1, 0.5}};
      break;
    case 2:  // five-pointed star
      for (int i = 0; i < 10; ++i) {
        const double r = i % 2 ? 0.45 : 1.0;
        pts.emplace_back(r * std::cos(kPi * i / 5 - kPi / 2), r * std::sin(kPi * i / 5 - kPi / 2));
      }
      break;
    default:  // arrow-like kite
      pts = {{1, 0}, {-0.6, 0.7}, {-0.2, 0}, {-0.6, -0.7}};
      break;
  }
  return pts;
}

Color randomColor(Rng& rng, double lo, double hi) {
  return {rng.uniform(lo, hi), rng.uniform(lo, hi), rng.uniform(lo, hi)};
}

// Fills the polygon (centre cx, cy; scale; angle) into the image with 2 x 2 supersampling.
void fillPolygon(std::uint8_t* img, int w, int h, const Shape& s, double cx, double cy,
                 double scale, double angle, double opacity = 1.0) {
  std::vector<std::pair<double, double>> p;
  double minX = 1e9, maxX = -1e9, minY = 1e9, maxY = -1e9;
  const double c = std::cos(angle), sn = std::sin(angle);
  for (auto [ux, uy] : s.unit) {
    const double x = cx + scale * (c * ux - sn * uy), y = cy + scale * (sn * ux + c * uy);
    p.emplace_back(x, y);
    minX = std::min(minX, x), maxX = std::max(maxX, x), minY = std::min(minY, y),
    maxY = std::max(maxY, y);
  }
  auto inside = [&](double x, double y) {
    bool in = false;
    for (size_t i = 0, j = p.size() - 1; i < p.size(); j = i++)
      if ((p[i].second > y) != (p[j].second > y) &&
          x < (p[j].first - p[i].first) * (y - p[i].second) / (p[j].second - p[i].second) +
                  p[i].first)
        in = !in;
    return in;
  };
  const int x0 = std::max(0, static_cast<int>(std::floor(minX))),
            x1 = std::min(w - 1, static_cast<int>(std::ceil(maxX)));
  const int y0 = std::max(0, static_cast<int>(std::floor(minY))),
            y1 = std::min(h - 1, static_cast<int>(std::ceil(maxY)));
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      int hits = 0;
      for (double oy : {0.25, 0.75})
        for (double ox : {0.25, 0.75}) hits += inside(x + ox, y + oy) ? 1 : 0;
      if (!hits) continue;
      const double a = opacity * hits / 4.0;
      std::uint8_t* px = img + (static_cast<size_t>(y) * w + x) * 3;
      px[0] = static_cast<std::uint8_t>(std::lround(px[0] * (1 - a) + 255 * s.color.r * a));
      px[1] = static_cast<std::uint8_t>(std::lround(px[1] * (1 - a) + 255 * s.color.g * a));
      px[2] = static_cast<std::uint8_t>(std::lround(px[2] * (1 - a) + 255 * s.color.b * a));
    }
}

struct Job {
  std::string split;
  int label;
  int index;
  std::string relPath;
};

}  // namespace

bool runDemoJobs(std::size_t count, int threads, const std::function<std::string(std::size_t)>& job,
                 const std::function<void(int, int)>& progress, std::string* error) {
  std::atomic<std::size_t> next{0};
  std::atomic<int> done{0};
  std::mutex mutex;
  std::string firstError;
  auto worker = [&] {
    for (std::size_t j; (j = next++) < count;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (!firstError.empty()) return;
      }
      const std::string err = job(j);
      std::lock_guard<std::mutex> lock(mutex);
      if (!err.empty() && firstError.empty()) firstError = err;
      const int n = ++done;
      if (progress) progress(n, static_cast<int>(count));
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (firstError.empty()) return true;
  if (error) *error = firstError;
  return false;
}

std::uint64_t demoClipSeed(std::uint64_t seed, const std::string& name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a of "seed/name"
  for (unsigned char c : std::to_string(seed) + "/" + name) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

const std::vector<std::string>& demoClassNames() {
  static const std::vector<std::string> names = {"moving_right", "moving_left", "moving_down",
                                                 "moving_up",    "blinking",    "standing_still",
                                                 "growing",      "shrinking"};
  return names;
}

namespace {

// One moving shape doing action `label` over frames [first, last] (drawn only there).
struct Mover {
  Shape shape;
  int first = 0, last = 0;
  double scale = 0, angle = 0, vx = 0, vy = 0, growth = 1.0;
  double blinkPeriod = 0, blinkPhase = 0;  // blinking: frames per cycle of the opacity
  double midX = 0, midY = 0;
};

Mover makeMover(Rng& rng, int label, int first, int last, int w, int h) {
  Mover m;
  m.shape = Shape{outline(rng.pick(4)), randomColor(rng, 0.5, 1.0)};
  m.first = first;
  m.last = last;
  const double duration = last - first;
  m.scale = rng.uniform(9, 14), m.angle = rng.uniform(0, 2 * kPi);
  const double speed = rng.uniform(1.6, 2.2);  // pixels per frame
  switch (label) {
    case 0:
      m.vx = speed;
      break;
    case 1:
      m.vx = -speed;
      break;
    case 2:
      m.vy = speed;
      break;
    case 3:
      m.vy = -speed;
      break;
    case 4:
      m.blinkPeriod = rng.uniform(6, 9), m.blinkPhase = rng.uniform(0, 2 * kPi),
      m.scale = rng.uniform(12, 16);
      break;
    case 5:
      break;  // standing still: only the absence of change tells it apart
    case 6:
      m.growth = rng.uniform(1.045, 1.060), m.scale = rng.uniform(5, 7);
      break;  // x2.8-3.8 over 24 frames
    default:
      m.growth = 1.0 / rng.uniform(1.045, 1.060), m.scale = rng.uniform(18, 24);
      break;
  }
  // Place the path's midpoint so the whole path stays in the frame.
  const double margin = m.scale * std::max(1.0, std::pow(m.growth, duration)) + 2;
  const double spanX = std::abs(m.vx) * duration, spanY = std::abs(m.vy) * duration;
  m.midX =
      rng.uniform(std::min(margin + spanX / 2, w / 2.0), std::max(w - margin - spanX / 2, w / 2.0));
  m.midY =
      rng.uniform(std::min(margin + spanY / 2, h / 2.0), std::max(h - margin - spanY / 2, h / 2.0));
  return m;
}

// Where the mover is in frame f: centre and scale.
struct Pose {
  double x, y, scale;
};
Pose moverPose(const Mover& m, int f) {
  const double t = f - m.first - (m.last - m.first) / 2.0;
  return {m.midX + m.vx * t, m.midY + m.vy * t, m.scale * std::pow(m.growth, f - m.first)};
}

void drawMover(std::uint8_t* img, int w, int h, const Mover& m, int f) {
  if (f < m.first || f > m.last) return;
  // Blinking: fully on to fully off and back, one to two cycles over the sampled frames.
  const double opacity =
      m.blinkPeriod > 0 ? 0.5 + 0.5 * std::cos(2 * kPi * f / m.blinkPeriod + m.blinkPhase) : 1.0;
  const Pose p = moverPose(m, f);
  fillPolygon(img, w, h, m.shape, p.x, p.y, p.scale, m.angle, opacity);
}

// The outline's extent in frame f (the polygon fillPolygon fills), clipped to the image.
DemoBox moverBox(const Mover& m, int f, int w, int h) {
  DemoBox b;
  if (f < m.first || f > m.last) return b;
  const Pose p = moverPose(m, f);
  const double c = std::cos(m.angle), sn = std::sin(m.angle);
  double minX = 1e9, maxX = -1e9, minY = 1e9, maxY = -1e9;
  for (auto [ux, uy] : m.shape.unit) {
    const double x = p.x + p.scale * (c * ux - sn * uy), y = p.y + p.scale * (sn * ux + c * uy);
    minX = std::min(minX, x), maxX = std::max(maxX, x), minY = std::min(minY, y),
    maxY = std::max(maxY, y);
  }
  b.x1 = std::clamp(minX, 0.0, double(w)), b.x2 = std::clamp(maxX, 0.0, double(w));
  b.y1 = std::clamp(minY, 0.0, double(h)), b.y2 = std::clamp(maxY, 0.0, double(h));
  b.visible = b.x2 > b.x1 && b.y2 > b.y1;
  return b;
}

// The background (a gradient between two dark colours) and 1-2 still distractors of a clip.
std::vector<std::uint8_t> renderBackground(Rng& rng, int w, int h) {
  const Color a = randomColor(rng, 0.0, 0.35), b = randomColor(rng, 0.0, 0.35);
  std::vector<std::uint8_t> background(static_cast<size_t>(w) * h * 3);
  const double gradAngle = rng.uniform(0, 2 * kPi);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double t = 0.5 + 0.5 * (std::cos(gradAngle) * (x - w / 2.0) / w +
                                    std::sin(gradAngle) * (y - h / 2.0) / h);
      std::uint8_t* px = background.data() + (static_cast<size_t>(y) * w + x) * 3;
      px[0] = static_cast<std::uint8_t>(255 * (a.r + (b.r - a.r) * t));
      px[1] = static_cast<std::uint8_t>(255 * (a.g + (b.g - a.g) * t));
      px[2] = static_cast<std::uint8_t>(255 * (a.b + (b.b - a.b) * t));
    }
  const int distractors = 1 + rng.pick(2);
  for (int i = 0; i < distractors; ++i) {
    const Shape still{outline(rng.pick(4)), randomColor(rng, 0.3, 0.9)};
    const double x = rng.uniform(0, w), y = rng.uniform(0, h), scale = rng.uniform(4, 7),
                 angle = rng.uniform(0, 2 * kPi);
    fillPolygon(background.data(), w, h, still, x, y, scale, angle);
  }
  return background;
}

}  // namespace

std::vector<std::uint8_t> renderDemoActions(const std::vector<DemoAction>& actions,
                                            std::uint64_t seed, int w, int h, int frames,
                                            std::vector<std::vector<DemoBox>>* boxes) {
  Rng rng(seed);
  std::vector<std::uint8_t> video(static_cast<size_t>(frames) * w * h * 3);
  const std::vector<std::uint8_t> background = renderBackground(rng, w, h);
  std::vector<Mover> movers;
  for (const DemoAction& a : actions)
    movers.push_back(
        makeMover(rng, a.label, std::max(0, a.first), std::min(frames - 1, a.last), w, h));
  for (int f = 0; f < frames; ++f) {
    std::uint8_t* img = video.data() + static_cast<size_t>(f) * w * h * 3;
    std::copy(background.begin(), background.end(), img);
    for (const Mover& m : movers) drawMover(img, w, h, m, f);
  }
  if (boxes) {
    boxes->assign(movers.size(), std::vector<DemoBox>(static_cast<size_t>(frames)));
    for (size_t a = 0; a < movers.size(); ++a)
      for (int f = 0; f < frames; ++f)
        (*boxes)[a][static_cast<size_t>(f)] = moverBox(movers[a], f, w, h);
  }
  return video;
}

std::vector<std::uint8_t> renderDemoClip(int label, std::uint64_t seed, int w, int h, int frames) {
  return renderDemoActions({{label, 0, frames - 1}}, seed, w, h, frames);
}

bool demoFormatFromName(const std::string& name, DemoFormat& out) {
  if (name == "kinetics")
    out = DemoFormat::Kinetics;
  else if (name == "ssv2")
    out = DemoFormat::Ssv2;
  else if (name == "charades")
    out = DemoFormat::Charades;
  else if (name == "ava")
    out = DemoFormat::Ava;
  else
    return false;
  return true;
}

bool generateDemoData(const DemoDataOptions& o, DemoDataSummary& summary, std::string* error,
                      const std::function<void(int, int)>& progress) {
  if (o.format == DemoFormat::Ava) return generateDemoAvaData(o, summary, error, progress);
  if (o.format != DemoFormat::Kinetics) return generateDemoFrameData(o, summary, error, progress);
  const auto& names = demoClassNames();
  const int classes = static_cast<int>(names.size());
  const int perEval = std::max(2, o.clips_per_class / 4);
  std::error_code ec;
  std::vector<Job> jobs;
  for (const auto& [split, count] : {std::pair<std::string, int>{"train", o.clips_per_class},
                                     {"val", perEval},
                                     {"test", perEval}}) {
    fs::create_directories(fs::path(o.out_dir) / "videos" / split, ec);
    if (ec) {
      if (error) *error = o.out_dir + ": cannot create folders: " + ec.message();
      return false;
    }
    for (int k = 0; k < count; ++k)
      for (int label = 0; label < classes; ++label) {
        char name[128];
        std::snprintf(name, sizeof name, "videos/%s/%s_%04d.mp4", split.c_str(),
                      names[static_cast<size_t>(label)].c_str(), k);
        jobs.push_back({split, label, k, name});
      }
  }
  std::mutex codecMutex;
  std::string codec;
  const bool ok = runDemoJobs(
      jobs.size(), o.threads,
      [&](std::size_t j) {
        const Job& job = jobs[j];
        // Each clip has its own seed, so the result does not depend on the thread that made it.
        const std::uint64_t clipSeed = demoClipSeed(o.seed, job.relPath);
        const auto video = renderDemoClip(job.label, clipSeed, o.width, o.height, o.frames);
        VideoWriter writer;
        std::string err;
        bool written = writer.open((fs::path(o.out_dir) / job.relPath).string(),
                                   {o.width, o.height, o.fps, "auto", 20}, &err);
        for (int f = 0; written && f < o.frames; ++f)
          written =
              writer.write(video.data() + static_cast<size_t>(f) * o.width * o.height * 3, &err);
        const std::string used = writer.codecName();
        if (written) written = writer.close(&err);
        {
          std::lock_guard<std::mutex> lock(codecMutex);
          if (codec.empty()) codec = used;
        }
        return written ? std::string() : err;
      },
      progress, error);
  if (!ok) return false;
  summary = DemoDataSummary{};
  summary.codec = codec;
  for (const std::string split : {"train", "val", "test"}) {
    std::ofstream csv(fs::path(o.out_dir) / (split + ".csv"));
    for (const auto& job : jobs)
      if (job.split == split) csv << job.relPath << ' ' << job.label << '\n';
    if (!csv) {
      if (error) *error = (fs::path(o.out_dir) / (split + ".csv")).string() + ": cannot write";
      return false;
    }
  }
  for (const auto& job : jobs)
    (job.split == "train" ? summary.train : job.split == "val" ? summary.val : summary.test)++;
  std::ofstream classesFile(fs::path(o.out_dir) / "classes.txt");
  for (const auto& n : names) classesFile << n << '\n';
  nlohmann::json manifest = {{"generator", "ampstudio make-demo-data"},
                             {"version", kDemoDataVersion},
                             {"seed", o.seed},
                             {"clips_per_class", o.clips_per_class},
                             {"size", {o.width, o.height}},
                             {"fps", o.fps},
                             {"frames", o.frames},
                             {"codec", codec},
                             {"classes", names}};
  std::ofstream(fs::path(o.out_dir) / "demo-data.json") << manifest.dump(2) << '\n';
  return true;
}

}  // namespace amp::data
