// ampstudio-cli data check: decode every clip of a dataset once and report what is wrong.
#include <algorithm>
#include <atomic>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "CliConfig.h"
#include "Commands.h"
#include "DataCheckAva.h"
#include "data/Dataset.h"
#include "data/VideoCheck.h"

namespace amp::cli {
namespace {

struct CheckArgs {
  std::string cfg;
  std::vector<std::string> overrides;
  std::string split;
  int threads = 0;
  int max_frames = 2000;
};

int runCheck(const CheckArgs& a) {
  auto cfg = loadConfigForCommand(a.cfg, a.overrides);
  if (!cfg) return 2;
  const std::string dir = cfg->getString("DATA.PATH_TO_DATA_DIR");
  data::DatasetKind kind = data::DatasetKind::Kinetics;
  (void)data::datasetKindFromName(cfg->getString("TRAIN.DATASET"), kind);  // validated on load
  // AVA's samples are keyframes sharing frames: its check goes by video (DataCheckAva.cpp).
  if (kind == data::DatasetKind::Ava) return runAvaCheck(*cfg, {a.split, a.threads, a.max_frames});
  // The frame datasets' test reads the val list: checked once.
  std::vector<std::string> splits = !a.split.empty() ? std::vector<std::string>{a.split}
                                    : data::usesFrames(kind)
                                        ? std::vector<std::string>{"train", "val"}
                                        : std::vector<std::string>{"train", "val", "test"};
  std::cout << data::datasetName(kind)
            << (data::usesFrames(kind) ? ": frame folders (JPEG, every frame decoded)"
                                       : ": videos (every frame decoded)")
            << "\n";
  const int numClasses = static_cast<int>(cfg->getInt("MODEL.NUM_CLASSES"));
  int failed = 0, ok = 0, listsRead = 0;
  std::int64_t totalFrames = 0;
  double fpsMin = 1e9, fpsMax = 0;
  int wMin = 1 << 30, wMax = 0, hMin = 1 << 30, hMax = 0;
  for (const auto& split : splits) {
    data::SampleList list;
    std::string error;
    data::Split s = data::Split::Train;
    (void)data::splitFromName(split, s);  // the splits are "train", "val", "test"
    if (!data::readSampleList(*cfg, s, list, &error)) {
      std::cerr << error << "\n";
      // A missing list is fine when no split was asked for (not every dataset has test.csv).
      if (!a.split.empty() || error.find("cannot read") == std::string::npos) ++failed;
      continue;
    }
    ++listsRead;
    if (list.maxLabel >= numClasses)
      std::cerr << list.listPath << ": labels go up to " << list.maxLabel
                << " but MODEL.NUM_CLASSES is " << numClasses << "\n",
          ++failed;
    std::vector<data::VideoCheck> results(list.videos.size());
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i; (i = next++) < list.videos.size();) {
        try {  // an exception leaving this thread would end the command without a word
          const data::Sample& s = list.videos[i];
          results[i] = s.frames.empty() ? data::checkVideo(s.path, /*wholeStream=*/true)
                                        : data::checkFrames(s.frames, /*wholeStream=*/true);
          if (!s.frames.empty() && !results[i].ok)  // name the video as well as the frame
            results[i].message = s.name + ": " + results[i].message;
        } catch (const std::exception& e) {
          results[i] = data::VideoCheck{};
          results[i].message = list.videos[i].path + ": " + e.what();
        }
      }
    };
    const int threads = a.threads > 0
                            ? a.threads
                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    int splitOk = 0, splitFailed = 0;
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      if (!r.message.empty())
        std::cout << (r.ok ? "" : list.listPath + ":" + std::to_string(list.videos[i].line) + ": ")
                  << r.message << "\n";
      if (!r.ok) {
        ++splitFailed;
        continue;
      }
      ++splitOk;
      totalFrames += r.frames;
      fpsMin = std::min(fpsMin, r.info.fps), fpsMax = std::max(fpsMax, r.info.fps);
      wMin = std::min(wMin, r.info.width), wMax = std::max(wMax, r.info.width);
      hMin = std::min(hMin, r.info.height), hMax = std::max(hMax, r.info.height);
    }
    std::cout << split << ": " << splitOk << (data::usesFrames(kind) ? " videos" : " clips")
              << " ok, " << splitFailed << " failed (" << list.listPath << ")\n";
    ok += splitOk;
    failed += splitFailed;
  }
  if (listsRead == 0) {
    std::cerr << "no dataset list could be read under DATA.PATH_TO_DATA_DIR '" << dir << "'\n";
    return 1;
  }
  std::cout << "total: " << ok << " clips ok, " << failed << " failed";
  if (ok && data::usesFrames(kind))  // frame folders have no rate
    std::cout << "; " << totalFrames << " frames; size " << wMin << "x" << hMin << " to " << wMax
              << "x" << hMax;
  else if (ok)
    std::cout << "; " << totalFrames << " frames; fps " << std::setprecision(4) << fpsMin << " to "
              << fpsMax << "; size " << wMin << "x" << hMin << " to " << wMax << "x" << hMax;
  std::cout << "\n";
  return failed ? 1 : 0;
}

}  // namespace

void addDataCheckCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* dataCmd = app.add_subcommand("data", "Check a dataset, or preview what the model sees");
  dataCmd->require_subcommand(1);
  CLI::App* check = dataCmd->add_subcommand(
      "check", "Decode every clip once; list problems and a summary; exit 1 if any fail");
  check->add_option("--cfg", args->cfg, "Config naming the dataset (DATA.PATH_TO_DATA_DIR ...)")
      ->required()
      ->check(CLI::ExistingFile);
  check->add_option("--split", args->split, "Only this list")
      ->check(CLI::IsMember({"train", "val", "test"}));
  check->add_option("--threads", args->threads, "Decoding threads (default: all cores)");
  check
      ->add_option("--max-frames", args->max_frames,
                   "AVA: decode at most this many of a video's clip frames, spread evenly; the "
                   "rest are looked up (default 2000; 0: all)")
      ->check(CLI::NonNegativeNumber);
  acceptOverrides(check);
  check->callback([args, check, &exitCode] {
    args->overrides = overridesOf(check);
    exitCode = runCheck(*args);
  });
  addDataPreviewCommand(*dataCmd, exitCode);
}

}  // namespace amp::cli
