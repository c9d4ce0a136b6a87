// Pre-flight of the dataset: the folder, the list of each enabled phase, a sample of the listed
// videos and one decode, in bounded time (a list of 240,000 Kinetics videos is read, but only
// `sample_paths` of them are looked up and one is decoded).
#include <chrono>
#include <filesystem>
#include <system_error>

#include "data/Dataset.h"
#include "data/JpegFrames.h"
#include "data/VideoCheck.h"
#include "preflight/Preflight.h"
#include "preflight/PreflightReporter.h"

namespace amp::preflight {
namespace fs = std::filesystem;

namespace {

// The key a missing video most likely comes from: the prefix when one is set, else the folder.
const char* pathKey(const config::Config& cfg) {
  return cfg.getString("DATA.PATH_PREFIX").empty() ? "DATA.PATH_TO_DATA_DIR" : "DATA.PATH_PREFIX";
}

// A video is opened and its first frames decoded; a frame folder's first, middle and last frames
// are decoded (a folder whose frames were cut short shows at its end).
data::VideoCheck checkSample(const data::Sample& s) {
  if (s.frames.empty()) return data::checkVideo(s.path, /*wholeStream=*/false);
  data::VideoCheck v;
  data::DecodedClip frames;
  std::string why;
  v.ok = data::decodeJpegFrames({s.frames.front(), s.frames[s.frames.size() / 2], s.frames.back()},
                                frames, &why);
  v.message = why;
  return v;
}

}  // namespace

void checkData(const config::Config& cfg, const std::string& file, const DataCheckOptions& options,
               config::Diagnostics& out) {
  PreflightReporter r{cfg, file, out};
  std::vector<std::string> splits;
  if (cfg.getBool("TRAIN.ENABLE")) splits = {"train", "val"};  // the trainer reads both lists
  if (cfg.getBool("TEST.ENABLE")) splits.push_back("test");
  if (splits.empty()) return;
  data::DatasetKind kind = data::DatasetKind::Kinetics;
  (void)data::datasetKindFromName(cfg.getString("TRAIN.DATASET"), kind);  // validated before
  // AVA's lists are not under DATA.PATH_TO_DATA_DIR but AVA.FRAME_LIST_DIR and ANNOTATION_DIR.
  if (kind == data::DatasetKind::Ava) return checkAvaData(cfg, file, out);
  const std::string dir = cfg.getString("DATA.PATH_TO_DATA_DIR");
  std::error_code ec;
  if (dir.empty()) {
    r.error("DATA.PATH_TO_DATA_DIR",
            "is empty; set the folder that holds " +
                std::string(splits.size() == 1 ? "test.csv" : "train.csv, val.csv") +
                (splits.size() == 3 ? " and test.csv" : "") +
                " (ampstudio-cli make-demo-data writes a demo one)");
    return;
  }
  if (!fs::exists(dir, ec)) {
    r.error("DATA.PATH_TO_DATA_DIR",
            "'" + dir + "' does not exist; set the folder that holds the dataset's CSV lists");
    return;
  }
  if (!fs::is_directory(dir, ec)) {
    r.error("DATA.PATH_TO_DATA_DIR", "'" + dir + "' is a file, not a folder");
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  bool decoded = false;
  const std::int64_t numClasses = cfg.getInt("MODEL.NUM_CLASSES");
  for (const auto& split : splits) {
    data::SampleList list;
    std::string why;
    data::Split s = data::Split::Train;
    (void)data::splitFromName(split, s);  // the loop runs over "train", "val", "test"
    const std::string listName = data::listFileName(kind, s);
    if (!fs::exists(fs::path(dir) / listName, ec)) {
      r.error("DATA.PATH_TO_DATA_DIR",
              "'" + dir + "' has no " + listName + ", which " +
                  (split == "test" ? "TEST.ENABLE" : "TRAIN.ENABLE") + " needs" +
                  (split == "val" ? " (validation after each TRAIN.EVAL_PERIOD epochs)" : ""));
      continue;
    }
    if (!data::readSampleList(cfg, s, list, &why)) {
      r.error("DATA.PATH_TO_DATA_DIR", why);
      continue;
    }
    if (list.videos.empty()) {
      r.error("DATA.PATH_TO_DATA_DIR", list.listPath + " lists no videos");
      continue;
    }
    if (list.maxLabel >= numClasses)
      r.error("MODEL.NUM_CLASSES", "is " + std::to_string(numClasses) + " but " + list.listPath +
                                       " has labels up to " + std::to_string(list.maxLabel) +
                                       "; set it to at least " + std::to_string(list.maxLabel + 1));
    // Spread over the list: a prefix that is right for the first rows only shows up too.
    const size_t n = list.videos.size();
    const size_t sample = std::min(n, static_cast<size_t>(std::max(1, options.sample_paths)));
    int missing = 0;
    const data::Sample* firstMissing = nullptr;
    const data::Sample* firstPresent = nullptr;
    for (size_t k = 0; k < sample; ++k) {
      const data::Sample& v = list.videos[k * n / sample];
      if (fs::is_regular_file(v.path, ec)) {
        if (!firstPresent) firstPresent = &v;
      } else if (++missing == 1) {
        firstMissing = &v;
      }
    }
    if (missing > 0) {
      const std::string msg = std::to_string(missing) + " of " + std::to_string(sample) +
                              " sampled videos of " + list.listPath + " are missing, e.g. line " +
                              std::to_string(firstMissing->line) + ": '" + firstMissing->path +
                              "'; check DATA.PATH_PREFIX ('" + cfg.getString("DATA.PATH_PREFIX") +
                              "') and the folder";
      // None found: every clip of this phase would fail. Some: the loader retries other clips.
      if (missing == static_cast<int>(sample))
        r.error(pathKey(cfg), msg);
      else
        r.warning(pathKey(cfg), msg);
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (firstPresent && !decoded && elapsed < options.decode_budget_s) {
      decoded = true;
      const data::VideoCheck v = checkSample(*firstPresent);
      if (!v.ok)  // a warning: one bad file does not stop training (the loader skips it), a bad
                  // codec shows here
        r.warning(pathKey(cfg), list.listPath + ":" + std::to_string(firstPresent->line) +
                                    ": the first video that exists does not decode: " + v.message +
                                    " (ampstudio-cli data check decodes every video)");
    }
  }
}

}  // namespace amp::preflight
