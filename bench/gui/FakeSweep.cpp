#include "FakeSweep.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>

#include "runlog/MetricsWriter.h"
#include "runlog/RunDirectory.h"
#include "runlog/RunMetadata.h"

namespace amp::bench {

namespace {
std::string shapeText(const SweepShape& s) {
  std::ostringstream o;
  o << "fake sweep v2: lr";
  for (double lr : s.learningRates) o << ' ' << lr;
  o << "; precision";
  for (const auto& p : s.precisions) o << ' ' << p;
  o << "; seeds " << s.seeds << "; steps " << s.steps << "; validations " << s.validations << '\n';
  return o.str();
}

bool writeRun(const std::string& dir, double lr, const std::string& precision, int seed,
              const SweepShape& shape, std::string* error) {
  runlog::RunDirectory run(dir);
  if (!run.ensureExists(error)) return false;
  std::ostringstream name;
  name << "lr" << lr << "-" << precision << "-seed" << seed;
  runlog::RunMetadata m;
  m.name = name.str();
  m.status = runlog::RunStatus::Finished;
  m.precision = precision;
  m.model = "X3D-XS";
  m.device = "cuda:0 (fake)";
  m.startedAt = 1.79e9;
  std::ofstream(run.configPath()) << "TRAIN:\n  MIXED_PRECISION: "
                                  << (precision == "fp32" ? "False" : "True")
                                  << "\nSOLVER:\n  BASE_LR: " << lr << "\nRNG_SEED: " << seed
                                  << "\n";
  runlog::MetricsWriter w;
  if (!w.open(run.metricsPath(), error)) return false;
  std::mt19937_64 rng(static_cast<unsigned>(seed * 7919 + static_cast<int>(lr * 1e4)) +
                      (precision == "fp32" ? 0u : 1u));
  std::normal_distribution<double> noise(0, 1);
  // Each learning rate ends at its own loss and accuracy (0.05 best here); each seed a little off.
  const double distance = std::abs(std::log2(lr / 0.05));
  const double finalLoss = 0.9 + 0.35 * distance + 0.04 * noise(rng);
  const double finalAcc = 74.0 - 4.0 * distance * distance + 1.2 * noise(rng);
  const bool fp32 = precision == "fp32";
  const double clips = (fp32 ? 40.0 : 66.0) * (1 + 0.03 * noise(rng));
  const double memory = (fp32 ? 5.2 : 3.1) * 1024 * 1024 * 1024 * (1 + 0.01 * noise(rng));
  const int steps = shape.steps, every = std::max(1, steps / std::max(1, shape.validations));
  double time = 0;
  for (int s = 1; s <= steps; ++s) {
    const double t = static_cast<double>(s) / steps;
    runlog::MetricEvent e;
    e.step = s;
    e.epoch = 10.0 * t;
    const double perStep = 8.0 / (clips * (1 + 0.05 * noise(rng)));
    time += perStep;
    e.time_s = time;
    e.values = {
        {"loss", finalLoss + 3.2 * std::exp(-6.0 * t * std::sqrt(lr / 0.05)) + 0.25 * noise(rng)},
        {"lr", lr * 0.5 * (1 + std::cos(3.141592653589793 * t))},
        {"clips_per_s", 8.0 / perStep},
        {"iter_time_s", perStep},
        {"loss_scale", 1.0},
        {"skipped", 0.0},
        {"mem_peak_bytes", memory}};
    if (!w.write(e, error)) return false;
    if (s % every == 0 || s == steps) {
      runlog::MetricEvent v;
      v.kind = runlog::kind::kVal;
      v.step = s;
      v.epoch = e.epoch;
      v.time_s = time;
      v.values = {{"top1_err", 100.0 - finalAcc * (1 - std::exp(-4.0 * t)) + 0.5 * noise(rng)}};
      if (!w.write(v, error)) return false;
    }
  }
  runlog::MetricEvent end;
  end.kind = runlog::kind::kEpoch;
  end.step = steps;
  end.epoch = 10;
  end.time_s = time;
  end.values = {{"loss", finalLoss}};
  if (!w.write(end, error)) return false;
  w.close();
  m.endedAt = m.startedAt + time;
  return run.writeMetadata(m, error);
}
}  // namespace

std::vector<std::string> writeFakeSweep(const std::string& root, const SweepShape& shape,
                                        std::string* error) {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  for (double lr : shape.learningRates)
    for (const std::string& p : shape.precisions)
      for (int seed = 1; seed <= shape.seeds; ++seed) {
        std::ostringstream d;
        d << root << "/lr" << lr << "-" << p << "-seed" << seed;
        dirs.push_back(d.str());
      }
  const std::string marker = root + "/SWEEP", text = shapeText(shape);
  std::ifstream in(marker);
  const std::string had((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (had == text) return dirs;  // written before, with this shape
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root, ec);
  std::size_t i = 0;
  for (double lr : shape.learningRates)
    for (const std::string& p : shape.precisions)
      for (int seed = 1; seed <= shape.seeds; ++seed)
        if (!writeRun(dirs[i++], lr, p, seed, shape, error)) return {};
  std::ofstream(marker) << text;
  return dirs;
}

}  // namespace amp::bench
