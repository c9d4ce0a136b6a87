// Pre-flight of an AVA dataset (checkData hands it over): AVA reads no DATA.PATH_TO_DATA_DIR but
// frame lists (AVA.FRAME_LIST_DIR), box lists and the evaluation's files (AVA.ANNOTATION_DIR),
// and frames (AVA.FRAME_DIR). Each problem is keyed at the setting that names the file, so the
// studio marks the line to change.
#include <filesystem>
#include <system_error>

#include "data/AvaClips.h"
#include "data/AvaDataset.h"
#include "data/FrameList.h"
#include "data/JpegFrames.h"
#include "metrics/AvaCsv.h"
#include "metrics/AvaLabelMap.h"
#include "metrics/AvaLabelNames.h"
#include "preflight/Preflight.h"
#include "preflight/PreflightReporter.h"

namespace amp::preflight {
namespace fs = std::filesystem;

namespace {

// A file named by `key` (joined to the folder `dirKey`): false, reported, when it is not there.
bool fileThere(PreflightReporter& r, const std::string& key, const std::string& dirKey,
               const std::string& path, const std::string& why) {
  std::error_code ec;
  const std::string dir = r.cfg.getString(dirKey);
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    r.error(dirKey, "'" + dir + "' is not a folder; it should hold " + path + " (" + why + ")");
    return false;
  }
  if (fs::is_regular_file(path, ec)) return true;
  r.error(key, "'" + path + "' " + (fs::exists(path, ec) ? "is not a file" : "does not exist") +
                   " (" + why + "; joined to " + dirKey + " '" + dir + "')");
  return false;
}

// The key of the setting that names `path` among the split's lists ("" when none does).
std::string keyOfFile(const config::Config& cfg, data::Split split, const std::string& path) {
  const data::AvaSettings s = data::AvaSettings::fromConfig(cfg);
  for (const std::string& f : s.frameListFiles(split))
    if (f == path) return split == data::Split::Train ? "AVA.TRAIN_LISTS" : "AVA.TEST_LISTS";
  const char* keys[] = {"AVA.TRAIN_GT_BOX_LISTS", "AVA.TRAIN_PREDICT_BOX_LISTS",
                        "AVA.TEST_PREDICT_BOX_LISTS"};
  for (const char* key : keys)
    for (const std::string& name : cfg.getStringList(key))
      if (data::joinPathPrefix(s.annotation_dir, name) == path) return key;
  return "";
}

// The lists of `split`: each there, then read whole (readAvaDataset); its keyframes' first,
// middle and last clips decoded.
void checkSplit(PreflightReporter& r, data::Split split) {
  const data::AvaSettings s = data::AvaSettings::fromConfig(r.cfg);
  const std::string need = std::string("the ") + data::splitName(split) + " split reads it";
  bool there = true;
  for (const std::string& f : s.frameListFiles(split))
    there &= fileThere(r, split == data::Split::Train ? "AVA.TRAIN_LISTS" : "AVA.TEST_LISTS",
                       "AVA.FRAME_LIST_DIR", f, need);
  for (const data::AvaBoxFile& f : s.boxFiles(split))
    there &= fileThere(r, keyOfFile(r.cfg, split, f.path), "AVA.ANNOTATION_DIR", f.path, need);
  if (!there) return;
  data::AvaDataset ava;
  std::string why;
  if (!data::readAvaDataset(s, split, ava, &why)) {
    // "file:line: ..." names its file; a mismatch of the lists is the frame lists' to fix.
    const std::string path = why.substr(0, why.find(':'));
    const std::string key = keyOfFile(r.cfg, split, path);
    r.error(key.empty() ? "AVA.FRAME_LIST_DIR" : key, why);
    return;
  }
  if (ava.keyframes.empty()) {
    r.error("AVA.ANNOTATION_DIR", std::string("the ") + data::splitName(split) +
                                      " box lists give no keyframe (no box at seconds 902-1798 "
                                      "of a listed video); nothing would train");
    return;
  }
  const data::ClipParams params = data::ClipParams::fromConfig(r.cfg);
  const std::size_t n = ava.keyframes.size();
  int failed = 0;
  std::string firstProblem;
  for (const std::size_t k : {std::size_t(0), n / 2, n - 1}) {
    const data::AvaKeyframe& key = ava.keyframes[k];
    const data::AvaVideo& video = ava.videos[static_cast<std::size_t>(key.video)];
    std::vector<std::string> paths;
    for (const std::int64_t f : data::avaClipFrames(params, ava, key))
      if (f >= 0 && static_cast<std::size_t>(f) < video.frames.size())
        paths.push_back(video.frames[static_cast<std::size_t>(f)]);
    data::DecodedClip frames;
    std::string problem;
    if (paths.empty())
      problem = "the frame lists give it no frames";
    else if (!data::decodeJpegFrames(paths, frames, &problem))
      ;  // `problem` names the frame
    else
      continue;
    if (failed++ == 0)
      firstProblem =
          "AVA video '" + video.name + "' second " + std::to_string(key.second) + ": " + problem;
  }
  if (failed == 0) return;
  const std::string msg =
      std::to_string(failed) + " of the 3 " + data::splitName(split) +
      " keyframe clips tried (first, middle, last) do not decode: " + firstProblem +
      "; check AVA.FRAME_DIR and the frames (ampstudio-cli data check "
      "decodes every frame the clips read)";
  // All of them: every clip of the split would likely fail. Some: the loader retries others.
  if (failed == (n == 1 ? 1 : n == 2 ? 2 : 3))
    r.error("AVA.FRAME_DIR", msg);
  else
    r.warning("AVA.FRAME_DIR", msg);
}

// The evaluation's files: the label map, the ground truth and the excluded keyframes, each
// there and parsed (the label map's ids filter the ground truth as AvaMeter does).
void checkEvaluationFiles(PreflightReporter& r) {
  const std::string why = "AVA's evaluation reads it after validation and test";
  const std::string labelMap = metrics::avaAnnotationFile(r.cfg, "AVA.LABEL_MAP_FILE");
  std::set<int> classes;
  if (fileThere(r, "AVA.LABEL_MAP_FILE", "AVA.ANNOTATION_DIR", labelMap, why)) {
    std::string error;
    if (const auto map = metrics::readAvaLabelMap(labelMap, &error)) {
      for (const metrics::AvaClass& c : *map) classes.insert(c.id);
    } else {
      r.error("AVA.LABEL_MAP_FILE", error);
    }
  }
  const std::string gt = metrics::avaAnnotationFile(r.cfg, "AVA.GROUNDTRUTH_FILE");
  if (fileThere(r, "AVA.GROUNDTRUTH_FILE", "AVA.ANNOTATION_DIR", gt, why)) {
    std::string error;
    if (!metrics::readAvaGroundTruth(gt, classes, &error)) r.error("AVA.GROUNDTRUTH_FILE", error);
  }
  const std::string excluded = metrics::avaAnnotationFile(r.cfg, "AVA.EXCLUSION_FILE");
  if (fileThere(r, "AVA.EXCLUSION_FILE", "AVA.ANNOTATION_DIR", excluded, why)) {
    std::string error;
    if (!metrics::readAvaExclusions(excluded, &error)) r.error("AVA.EXCLUSION_FILE", error);
  }
}

}  // namespace

void checkAvaData(const config::Config& cfg, const std::string& file, config::Diagnostics& out) {
  PreflightReporter r{cfg, file, out};
  const bool train = cfg.getBool("TRAIN.ENABLE"), test = cfg.getBool("TEST.ENABLE");
  if (!train && !test) return;
  // Validation and test read the same lists (test at every second, validation at every 4th):
  // one of them covers both.
  if (train) checkSplit(r, data::Split::Train);
  checkSplit(r, train ? data::Split::Val : data::Split::Test);
  checkEvaluationFiles(r);
}

}  // namespace amp::preflight
