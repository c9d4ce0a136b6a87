#include "data/Dataset.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "config/Config.h"
#include "data/AvaDataset.h"
#include "data/FrameList.h"
#include "data/KineticsCsv.h"
#include "data/Ssv2Labels.h"

namespace fs = std::filesystem;

namespace amp::data {

const char* splitName(Split s) {
  switch (s) {
    case Split::Train:
      return "train";
    case Split::Val:
      return "val";
    case Split::Test:
      return "test";
  }
  return "?";
}

bool splitFromName(const std::string& name, Split& out) {
  for (Split s : {Split::Train, Split::Val, Split::Test})
    if (name == splitName(s)) {
      out = s;
      return true;
    }
  return false;
}

bool datasetKindFromName(const std::string& name, DatasetKind& out) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  for (DatasetKind k :
       {DatasetKind::Kinetics, DatasetKind::Ssv2, DatasetKind::Charades, DatasetKind::Ava})
    if (lower == datasetName(k)) {
      out = k;
      return true;
    }
  return false;
}

const char* datasetName(DatasetKind kind) {
  switch (kind) {
    case DatasetKind::Kinetics:
      return "kinetics";
    case DatasetKind::Ssv2:
      return "ssv2";
    case DatasetKind::Charades:
      return "charades";
    case DatasetKind::Ava:
      return "ava";
  }
  return "?";
}

std::string listFileName(DatasetKind kind, Split split) {
  if (usesFrames(kind) && split == Split::Test) return "val.csv";
  return std::string(splitName(split)) + ".csv";
}

namespace {

std::string frameListFile(const std::string& dir, Split split) {
  return (fs::path(dir) / listFileName(DatasetKind::Charades, split)).string();
}

bool readFrameListFor(const config::Config& c, Split split, FrameList& frames, std::string* error) {
  const std::string dir = c.getString("DATA.PATH_TO_DATA_DIR");
  const std::string file = frameListFile(dir, split);
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (error)
      *error = file + ": cannot read the " + std::string(splitName(split)) + " frame list" +
               (fs::exists(dir, ec)
                    ? std::string(" (the folder has no ") + fs::path(file).filename().string() + ")"
                    : " (DATA.PATH_TO_DATA_DIR '" + dir + "' does not exist)");
    return false;
  }
  return readFrameList(file, c.getString("DATA.PATH_PREFIX"), frames, error);
}

Sample frameSample(FrameVideo&& v) {
  Sample s;
  s.name = std::move(v.name);
  s.path = v.frames.empty() ? std::string() : v.frames.front();
  s.frames = std::move(v.frames);
  s.line = v.line;
  s.frame_labels = std::move(v.frame_labels);
  return s;
}

std::vector<int> unionOf(const std::vector<std::vector<int>>& sets, std::size_t first,
                         std::size_t last) {
  std::set<int> all;
  for (std::size_t i = first; i <= last && i < sets.size(); ++i)
    all.insert(sets[i].begin(), sets[i].end());
  return {all.begin(), all.end()};
}

// Something-Something v2 (ssv2.py _construct_loader): the labels JSON gives each video id its
// class; the frame list gives its frames; videos missing from the frame list are dropped.
bool readSsv2(const config::Config& c, Split split, SampleList& out, std::string* error) {
  std::vector<Ssv2Video> labelled;
  int classes = 0;
  if (!readSsv2Labels(c.getString("DATA.PATH_TO_DATA_DIR"), split == Split::Train, labelled,
                      &classes, error))
    return false;
  FrameList frames;
  if (!readFrameListFor(c, split, frames, error)) return false;
  out.listPath = frames.path;
  // PySlowFast asserts that both list the same number of videos before joining them.
  if (frames.videos.size() != labelled.size()) {
    if (error)
      *error = frames.path + ": lists " + std::to_string(frames.videos.size()) +
               " videos but the labels file something-something-v2-" +
               (split == Split::Train ? "train" : "validation") + ".json has " +
               std::to_string(labelled.size()) +
               "; PySlowFast requires the same videos in both (regenerate the frame list)";
    return false;
  }
  std::map<std::string, std::size_t> byName;
  for (std::size_t i = 0; i < frames.videos.size(); ++i) byName.emplace(frames.videos[i].name, i);
  for (const Ssv2Video& v : labelled) {
    const auto it = byName.find(v.id);
    if (it == byName.end()) continue;
    Sample s = frameSample(std::move(frames.videos[it->second]));
    s.frame_labels.clear();  // SSv2's frame lists carry no labels; the JSON does
    s.label = v.label;
    out.maxLabel = std::max(out.maxLabel, v.label);
    out.videos.push_back(std::move(s));
  }
  if (out.videos.empty()) {
    if (error)
      *error = frames.path +
               ": none of its video ids is in the labels file (ids are the first "
               "column, original_vido_id)";
    return false;
  }
  return true;
}

// Charades (charades.py _construct_loader): per-frame label lists; outside training every frame
// takes the video's labels (convert_to_video_level_labels), so the clip's target is the video's.
bool readCharades(const config::Config& c, Split split, SampleList& out, std::string* error) {
  FrameList frames;
  if (!readFrameListFor(c, split, frames, error)) return false;
  out.listPath = frames.path;
  out.multi_label = true;
  out.maxLabel = frames.maxLabel;
  for (FrameVideo& v : frames.videos) {
    Sample s = frameSample(std::move(v));
    s.labels = unionOf(s.frame_labels, 0, s.frame_labels.size());
    if (split != Split::Train) s.frame_labels.clear();
    out.videos.push_back(std::move(s));
  }
  return true;
}

// AVA (Ava._load_data): one sample per keyframe, each naming its video and centre frame; the
// frames and boxes stay in one shared AvaDataset. get_keyframe_data keeps only seconds with boxes,
// so no sample is without one.
bool readAva(const config::Config& c, Split split, SampleList& out, std::string* error) {
  const AvaSettings settings = AvaSettings::fromConfig(c);
  auto ava = std::make_shared<AvaDataset>();
  if (!readAvaDataset(settings, split, *ava, error)) return false;
  const std::vector<std::string> lists = settings.frameListFiles(split);
  out.listPath = lists.empty() ? std::string() : lists.front();
  out.multi_label = true;
  out.videos.reserve(ava->keyframes.size());
  for (std::size_t k = 0; k < ava->keyframes.size(); ++k) {
    const AvaKeyframe& key = ava->keyframes[k];
    const AvaVideo& video = ava->videos[static_cast<std::size_t>(key.video)];
    Sample s;
    s.name = video.name;
    const auto centre = static_cast<std::size_t>(std::max<std::int64_t>(key.center_frame, 0));
    if (!video.frames.empty()) s.path = video.frames[std::min(centre, video.frames.size() - 1)];
    s.keyframe = static_cast<int>(k);
    std::set<int> classes;
    for (const AvaBox& box : key.boxes)
      for (const int id : box.labels)
        if (id >= 1) classes.insert(id - 1);
    s.labels.assign(classes.begin(), classes.end());
    if (!s.labels.empty()) out.maxLabel = std::max(out.maxLabel, s.labels.back());
    out.videos.push_back(std::move(s));
  }
  out.ava = std::move(ava);
  return true;
}

}  // namespace

bool readSampleList(const config::Config& c, Split split, SampleList& out, std::string* error) {
  out = SampleList{};
  // PySlowFast's construct_loader: the test split is TEST.DATASET's, the others TRAIN.DATASET's.
  const char* key = split == Split::Test ? "TEST.DATASET" : "TRAIN.DATASET";
  DatasetKind kind = DatasetKind::Kinetics;
  if (!datasetKindFromName(c.getString(key), kind)) {
    if (error)
      *error = std::string(key) + ": '" + c.getString(key) +
               "' is not a dataset the engine reads (kinetics, ssv2, charades, ava)";
    return false;
  }
  out.kind = kind;
  bool ok = false;
  switch (kind) {
    case DatasetKind::Kinetics:
      ok = readKineticsList(c.getString("DATA.PATH_TO_DATA_DIR"), splitName(split),
                            c.getString("DATA.PATH_LABEL_SEPARATOR"),
                            c.getString("DATA.PATH_PREFIX"), /*skipRows=*/0, out, error);
      break;
    case DatasetKind::Ssv2:
      ok = readSsv2(c, split, out, error);
      break;
    case DatasetKind::Charades:
      ok = readCharades(c, split, out, error);
      break;
    case DatasetKind::Ava:
      ok = readAva(c, split, out, error);
      break;
  }
  out.kind = kind;  // the readers start from an empty list
  return ok;
}

std::vector<int> targetClasses(const Sample& s, std::int64_t firstFrame, std::int64_t lastFrame) {
  if (!s.frame_labels.empty()) {
    const auto n = static_cast<std::int64_t>(s.frame_labels.size());
    const auto first = std::clamp<std::int64_t>(firstFrame, 0, n - 1);
    const auto last = std::clamp<std::int64_t>(lastFrame, first, n - 1);
    return unionOf(s.frame_labels, static_cast<std::size_t>(first), static_cast<std::size_t>(last));
  }
  return s.labels;
}

}  // namespace amp::data
