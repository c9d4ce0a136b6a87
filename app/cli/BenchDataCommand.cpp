// ampstudio-cli bench data: loader throughput and where the time goes, 1 worker against N,
// measured side by side in one run (ratios matter; absolute times depend on the machine).
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <thread>

#include "CliConfig.h"
#include "Commands.h"
#include "data/VideoLoader.h"

namespace amp::cli {
namespace {

struct BenchArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  std::string split = "train";
  int batches = 8;
  int workers = 0;
  int decoderThreads = 1;
  bool noFrameSkip = false;
};

struct Measured {
  int workers = 0;
  int clips = 0;
  double wall_s = 0, decode_s = 0, resize_s = 0, transform_s = 0;
  std::int64_t failures = 0;
};

bool measure(const data::KineticsList& list, const data::ClipParams& params, data::Split split, int batchSize,
             const BenchArgs& a, int workers, Measured& m, std::string* error) {
  data::LoaderOptions o;
  o.batch_size = batchSize;
  o.workers = workers;
  o.prefetch = 2;
  o.seed = 1;
  o.drop_last = false;
  o.decoder.threads = a.decoderThreads;
  o.decoder.skip_unneeded_frames = !a.noFrameSkip;
  data::VideoLoader loader(list, params, split, o);
  m = Measured{};
  m.workers = workers;
  const auto start = std::chrono::steady_clock::now();
  loader.startEpoch(0);
  for (int b = 0; b < a.batches; ++b) {
    auto batch = loader.next();
    if (!batch) {
      if (!loader.error().empty()) {
        *error = loader.error();
        return false;
      }
      loader.startEpoch(b);  // a small dataset: go round again
      --b;
      continue;
    }
    m.clips += batch->size;
    m.decode_s += batch->decode_s;
    m.resize_s += batch->resize_s;
    m.transform_s += batch->transform_s;
    loader.recycle(std::move(*batch));
  }
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.failures = loader.totalFailures();
  loader.stop();
  return true;
}

int runBench(const BenchArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  data::KineticsList list;
  std::string error;
  if (!data::readKineticsList(cfg->getString("DATA.PATH_TO_DATA_DIR"), a.split, cfg->getString("DATA.PATH_LABEL_SEPARATOR"),
                              cfg->getString("DATA.PATH_PREFIX"), /*skipRows=*/0, list, &error)) {
    std::cerr << error << "\n";
    return 1;
  }
  const data::Split split = a.split == "test" ? data::Split::Test : a.split == "val" ? data::Split::Val : data::Split::Train;
  const auto params = data::ClipParams::fromConfig(*cfg);
  const int batchSize = static_cast<int>(cfg->getInt(split == data::Split::Test ? "TEST.BATCH_SIZE" : "TRAIN.BATCH_SIZE"));
  int n = a.workers > 0 ? a.workers : static_cast<int>(cfg->getInt("DATA_LOADER.NUM_WORKERS"));
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  std::cout << "dataset " << list.csvPath << " (" << list.videos.size() << " videos), batch " << batchSize << ", clip "
            << params.num_frames << " x " << params.cropSize(split) << " px, " << a.batches << " batches per run, "
            << a.decoderThreads << " codec thread(s) per decoder, " << std::thread::hardware_concurrency() << " cores\n";
  Measured warm;
  BenchArgs warmArgs = a;
  warmArgs.batches = 1;
  if (!measure(list, params, split, batchSize, warmArgs, 1, warm, &error)) {  // fills the file cache
    std::cerr << "bench data: " << error << "\n";
    return 1;
  }
  std::vector<Measured> runs;
  for (int workers : n == 1 ? std::vector<int>{1} : std::vector<int>{1, n}) {
    Measured m;
    if (!measure(list, params, split, batchSize, a, workers, m, &error)) {
      std::cerr << "bench data: " << error << "\n";
      return 1;
    }
    runs.push_back(m);
  }
  std::cout << std::fixed << std::setprecision(1);
  std::cout << "workers  clips/s  clips/s/worker  decode%  resize%  crop+norm+collate%  failures\n";
  for (const auto& m : runs) {
    const double busy = m.decode_s + m.resize_s + m.transform_s;
    auto pct = [&](double x) { return busy > 0 ? 100.0 * x / busy : 0.0; };
    std::cout << std::setw(7) << m.workers << std::setw(9) << m.clips / m.wall_s << std::setw(16)
              << m.clips / m.wall_s / m.workers << std::setw(9) << pct(m.decode_s) << std::setw(9) << pct(m.resize_s)
              << std::setw(20) << pct(m.transform_s) << std::setw(10) << m.failures
              << "\n";
  }
  if (runs.size() == 2)
    std::cout << std::setprecision(2) << "speed-up with " << runs[1].workers << " workers: "
              << (runs[1].clips / runs[1].wall_s) / (runs[0].clips / runs[0].wall_s) << "x\n";
  return 0;
}

}  // namespace

void addBenchDataCommand(CLI::App& bench, int& exitCode) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* data = bench.add_subcommand("data", "Clips per second of the data loader and its time split, 1 worker vs N");
  data->add_option("--cfg", args->cfg, "Config naming the dataset")->required()->check(CLI::ExistingFile);
  data->add_option("--split", args->split, "List to read")->check(CLI::IsMember({"train", "val", "test"}));
  data->add_option("--batches", args->batches, "Batches per measurement")->check(CLI::PositiveNumber);
  data->add_option("--workers", args->workers, "N (default: DATA_LOADER.NUM_WORKERS)");
  data->add_option("--decoder-threads", args->decoderThreads, "Codec threads per decoder")->check(CLI::Range(0, 64));
  data->add_flag("--no-frame-skip", args->noFrameSkip, "Decode every frame, also unwanted non-reference ones");
  acceptOverrides(data);
  data->callback([args, data, &exitCode] {
    args->overrides = overridesOf(data);
    exitCode = runBench(*args);
  });
}

void addBenchCommands(CLI::App& app, int& exitCode) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks that compare side by side in one run");
  bench->require_subcommand(1);
  addBenchDataCommand(*bench, exitCode);
  addBenchStepCommand(*bench, exitCode);
  addBenchDdpCommand(*bench, exitCode);
}

}  // namespace amp::cli
