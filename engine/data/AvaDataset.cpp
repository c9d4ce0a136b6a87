#include "data/AvaDataset.h"

#include <unordered_map>
#include <unordered_set>

#include "config/Config.h"
#include "data/FrameList.h"

namespace amp::data {
namespace {

std::vector<std::string> joined(const std::string& dir, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(joinPathPrefix(dir, n));
  return out;
}

std::string listOf(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

}  // namespace

AvaSettings AvaSettings::fromConfig(const config::Config& c) {
  AvaSettings s;
  s.frame_dir = c.getString("AVA.FRAME_DIR");
  s.frame_list_dir = c.getString("AVA.FRAME_LIST_DIR");
  s.annotation_dir = c.getString("AVA.ANNOTATION_DIR");
  s.train_lists = c.getStringList("AVA.TRAIN_LISTS");
  s.test_lists = c.getStringList("AVA.TEST_LISTS");
  s.train_gt_box_lists = c.getStringList("AVA.TRAIN_GT_BOX_LISTS");
  s.train_predict_box_lists = c.getStringList("AVA.TRAIN_PREDICT_BOX_LISTS");
  s.test_predict_box_lists = c.getStringList("AVA.TEST_PREDICT_BOX_LISTS");
  s.detection_score_thresh = c.getFloat("AVA.DETECTION_SCORE_THRESH");
  s.full_test_on_val = c.getBool("AVA.FULL_TEST_ON_VAL");
  s.num_classes = static_cast<int>(c.getInt("MODEL.NUM_CLASSES"));
  return s;
}

std::vector<std::string> AvaSettings::frameListFiles(Split split) const {
  return joined(frame_list_dir, split == Split::Train ? train_lists : test_lists);
}

std::vector<AvaBoxFile> AvaSettings::boxFiles(Split split) const {
  std::vector<AvaBoxFile> files;
  if (split == Split::Train)
    for (const std::string& f : joined(annotation_dir, train_gt_box_lists))
      files.push_back({f, true});
  for (const std::string& f :
       joined(annotation_dir,
              split == Split::Train ? train_predict_box_lists : test_predict_box_lists))
    files.push_back({f, false});
  return files;
}

AvaBoxOptions AvaSettings::boxOptions(Split split) const {
  AvaBoxOptions o;
  o.detection_score_thresh = detection_score_thresh;
  // PySlowFast validates on every 4th second unless asked for the full set (test always is).
  o.seconds_sample_rate = split == Split::Val && !full_test_on_val ? 4 : 1;
  o.num_classes = num_classes;
  return o;
}

bool readAvaFrameLists(const std::vector<std::string>& files, const std::string& frameDir,
                       std::vector<AvaVideo>& out, std::string* error) {
  out.clear();
  std::unordered_map<std::string, std::size_t> index;
  for (const std::string& file : files) {
    FrameList list;
    if (!readFrameList(file, frameDir, list, error)) return false;
    for (FrameVideo& v : list.videos) {
      // A video listed in several files continues where the earlier file left it.
      const auto [it, added] = index.emplace(v.name, out.size());
      if (added) out.push_back(AvaVideo{v.name, {}});
      std::vector<std::string>& frames = out[it->second].frames;
      if (frames.empty()) {
        frames = std::move(v.frames);
      } else {
        frames.insert(frames.end(), std::make_move_iterator(v.frames.begin()),
                      std::make_move_iterator(v.frames.end()));
      }
    }
  }
  return true;
}

std::vector<AvaKeyframe> avaKeyframes(const std::vector<const AvaVideoBoxes*>& boxes) {
  std::vector<AvaKeyframe> keyframes;
  for (std::size_t v = 0; v < boxes.size(); ++v) {
    if (!boxes[v]) continue;
    int secIndex = 0;
    for (const auto& [second, list] : boxes[v]->seconds) {
      if (second < kAvaFirstSecond || second > kAvaLastSecond || list.empty()) continue;
      keyframes.push_back(
          AvaKeyframe{static_cast<int>(v), secIndex++, second, avaSecondToFrame(second), list});
    }
  }
  return keyframes;
}

std::int64_t avaBoxesUsed(const std::vector<AvaKeyframe>& keyframes) {
  std::int64_t n = 0;
  for (const AvaKeyframe& k : keyframes) n += static_cast<std::int64_t>(k.boxes.size());
  return n;
}

bool readAvaDataset(const AvaSettings& settings, Split split, AvaDataset& out, std::string* error) {
  out = AvaDataset{};
  const std::vector<std::string> lists = settings.frameListFiles(split);
  if (!readAvaFrameLists(lists, settings.frame_dir, out.videos, error)) return false;
  const std::vector<AvaBoxFile> boxFiles = settings.boxFiles(split);
  AvaBoxTable table;
  if (!readAvaBoxes(boxFiles, settings.boxOptions(split), table, error)) return false;

  std::vector<std::string> boxPaths;
  for (const AvaBoxFile& f : boxFiles) boxPaths.push_back(f.path);
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  // PySlowFast asserts that both sides name the same number of videos, then looks each video of
  // the frame lists up in the boxes (a KeyError when one is missing): the same condition.
  std::vector<const AvaVideoBoxes*> perVideo;
  std::unordered_set<std::string> listed;
  for (const AvaVideo& v : out.videos) {
    const AvaVideoBoxes* b = table.find(v.name);
    if (!b)
      return fail("AVA video '" + v.name + "' of the frame lists (" + listOf(lists) +
                  ") has no box kept from the box lists (" + listOf(boxPaths) +
                  "): every video needs at least one row there (predicted boxes must reach "
                  "AVA.DETECTION_SCORE_THRESH), as PySlowFast requires");
    perVideo.push_back(b);
    listed.insert(v.name);
  }
  for (const AvaVideoBoxes& b : table.videos)
    if (!listed.count(b.name))
      return fail("AVA video '" + b.name + "' of the box lists (" + listOf(boxPaths) +
                  ") is not in the frame lists (" + listOf(lists) +
                  "): PySlowFast requires the same videos in both");

  out.keyframes = avaKeyframes(perVideo);
  out.boxes_used = avaBoxesUsed(out.keyframes);
  out.annotations = table.annotations;
  out.unique_boxes = table.unique_boxes;
  out.outside_valid_seconds = table.outside_valid_seconds;
  out.below_score_thresh = table.below_score_thresh;
  return true;
}

std::vector<float> avaTargets(const AvaKeyframe& keyframe, int numClasses) {
  std::vector<float> rows(keyframe.boxes.size() * static_cast<std::size_t>(numClasses), 0.0f);
  for (std::size_t b = 0; b < keyframe.boxes.size(); ++b)
    for (int id : keyframe.boxes[b].labels)
      if (id >= 1 && id <= numClasses)
        rows[b * static_cast<std::size_t>(numClasses) + static_cast<std::size_t>(id - 1)] = 1.0f;
  return rows;
}

}  // namespace amp::data
