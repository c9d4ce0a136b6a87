// ampstudio-cli bench data: loader throughput and where the time goes, 1 worker against N,
// measured side by side in one run (ratios matter; absolute times depend on the machine).
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
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
  bool augmentRecipe = false;
};

// The MViTv2-S Kinetics training augmentation (configs/Kinetics/base/KINETICS_MVIT.yaml).
data::AugmentParams mvitRecipe() {
  data::AugmentParams a;
  a.relative_scale = {0.08, 1.0};
  a.relative_aspect = {0.75, 1.3333};
  a.enabled = a.rand_augment = a.erase = true;
  if (!data::parseRandAugment("rand-m7-n4-mstd0.5-inc1", a.policy, nullptr))
    throw std::logic_error("the MViT recipe's RandAugment policy no longer parses");
  a.interpolation = data::AugInterpolation::Bicubic;
  a.erasing.probability = 0.25;
  a.erasing.mode = data::EraseMode::Pixel;
  a.num_sample = 2;
  return a;
}

struct Measured {
  int workers = 0;
  int clips = 0;
  double wall_s = 0, decode_s = 0, resize_s = 0, transform_s = 0;
  std::int64_t failures = 0;
};

bool measure(const data::SampleList& list, const data::ClipParams& params, data::Split split,
             int batchSize, const BenchArgs& a, int workers, Measured& m, std::string* error) {
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
  data::SampleList list;
  std::string error;
  data::Split split = data::Split::Train;
  (void)data::splitFromName(a.split, split);  // CLI11 allows only train, val and test
  if (!data::readSampleList(*cfg, split, list, &error)) {
    std::cerr << error << "\n";
    return 1;
  }
  data::ClipParams params;
  try {
    params = data::ClipParams::fromConfig(*cfg);
  } catch (const std::invalid_argument& e) {  // e.g. a bad AUG.AA_TYPE, named in the message
    std::cerr << "bench data: " << e.what() << "\n";
    return 2;
  }
  const int batchSize = static_cast<int>(
      cfg->getInt(split == data::Split::Test ? "TEST.BATCH_SIZE" : "TRAIN.BATCH_SIZE"));
  int n = a.workers > 0 ? a.workers : static_cast<int>(cfg->getInt("DATA_LOADER.NUM_WORKERS"));
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  std::cout << "dataset " << list.listPath << " (" << list.videos.size() << " videos), batch "
            << batchSize << ", clip " << params.num_frames << " x " << params.cropSize(split)
            << " px, " << a.batches << " batches per run, " << a.decoderThreads
            << " codec thread(s) per decoder, " << std::thread::hardware_concurrency()
            << " cores\n";
  Measured warm;
  BenchArgs warmArgs = a;
  warmArgs.batches = 1;
  if (!measure(list, params, split, batchSize, warmArgs, 1, warm,
               &error)) {  // fills the file cache
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
              << m.clips / m.wall_s / m.workers << std::setw(9) << pct(m.decode_s) << std::setw(9)
              << pct(m.resize_s) << std::setw(20) << pct(m.transform_s) << std::setw(10)
              << m.failures << "\n";
  }
  if (runs.size() == 2)
    std::cout << std::setprecision(2) << "speed-up with " << runs[1].workers
              << " workers: " << (runs[1].clips / runs[1].wall_s) / (runs[0].clips / runs[0].wall_s)
              << "x\n";
  if (a.augmentRecipe) {  // the same loader with no training augmentation and with MViTv2-S's
    if (split != data::Split::Train) {
      std::cerr
          << "bench data: --augment-recipe needs --split train (val and test never augment)\n";
      return 2;
    }
    std::cout << std::setprecision(1) << "training augmentation, " << n << " workers:\n"
              << std::left << std::setw(46) << "recipe" << std::right << std::setw(9) << "clips/s"
              << std::setw(10) << "videos/s" << std::setw(20) << "crop+norm+augment%"
              << "\n";
    for (bool recipe : {false, true}) {
      data::ClipParams p = params;
      p.aug = recipe ? mvitRecipe() : data::AugmentParams{};
      Measured m;
      if (!measure(list, p, split, batchSize, a, n, m, &error)) {
        std::cerr << "bench data: " << error << "\n";
        return 1;
      }
      const double busy = m.decode_s + m.resize_s + m.transform_s;
      std::cout << std::left << std::setw(46)
                << (recipe ? "MViTv2-S (relative crop, rand-m7-n4, RE, x2)"
                           : "none (short-side jitter + crop)")
                << std::right << std::setw(9) << m.clips / m.wall_s << std::setw(10)
                << m.clips / p.copiesPerVideo(split) / m.wall_s << std::setw(20)
                << (busy > 0 ? 100.0 * m.transform_s / busy : 0.0) << "\n";
    }
  }
  return 0;
}

}  // namespace

void addBenchDataCommand(CLI::App& bench, int& exitCode) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* data = bench.add_subcommand(
      "data", "Clips per second of the data loader and its time split, 1 worker vs N");
  data->add_option("--cfg", args->cfg, "Config naming the dataset")
      ->required()
      ->check(CLI::ExistingFile);
  data->add_option("--split", args->split, "List to read")
      ->check(CLI::IsMember({"train", "val", "test"}));
  data->add_option("--batches", args->batches, "Batches per measurement")
      ->check(CLI::PositiveNumber);
  data->add_option("--workers", args->workers, "N (default: DATA_LOADER.NUM_WORKERS)");
  data->add_option("--decoder-threads", args->decoderThreads, "Codec threads per decoder")
      ->check(CLI::Range(0, 64));
  data->add_flag("--no-frame-skip", args->noFrameSkip,
                 "Decode every frame, also unwanted non-reference ones");
  data->add_flag("--augment-recipe", args->augmentRecipe,
                 "Also compare N workers without training augmentation and with the MViTv2-S "
                 "recipe (relative crops, "
                 "RandAugment rand-m7-n4-mstd0.5-inc1, pixel erasing 0.25, AUG.NUM_SAMPLE 2)");
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
  addBenchMultigridCommand(*bench, exitCode);
  addBenchMultigridTimeCommand(*bench, exitCode);
}

}  // namespace amp::cli
