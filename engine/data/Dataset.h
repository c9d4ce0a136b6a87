#pragma once
// The dataset seam: which of PySlowFast's datasets a config trains on, and the samples of one
// split as the loader, tester, pre-flight, `data check` and the benchmarks see them. A sample is a
// video file (Kinetics) or the frames of a video folder (Something-Something v2, Charades) with its
// target: one class, or a set of classes for multi-label datasets. ClipSampler turns a sample into
// clips; the target of a clip comes from targetClasses(). An AVA sample is one keyframe (a second
// with person boxes) of the list's shared AvaDataset; the loader builds its clip (AvaClips.h).
//
//   data::SampleList list;
//   std::string error;
//   if (!data::readSampleList(config, data::Split::Train, list, &error)) report(error);
//   for (const data::Sample& s : list.videos) ...
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::data {

struct AvaDataset;

enum class Split { Train, Val, Test };
const char* splitName(Split s);

/// TRAIN.DATASET's datasets the engine reads (PySlowFast's names, lower case).
enum class DatasetKind { Kinetics, Ssv2, Charades, Ava };
/// "kinetics", "ssv2", "charades", "ava" (PySlowFast's registry is case-insensitive); false
/// otherwise.
bool datasetKindFromName(const std::string& name, DatasetKind& out);
const char* datasetName(DatasetKind kind);
/// Datasets whose samples are frame folders (PySlowFast's load_image_lists).
inline bool usesFrames(DatasetKind k) {
  return k != DatasetKind::Kinetics;
}

/// One sample: a video file, a frame folder's frames, or an AVA keyframe, and its labels.
struct Sample {
  std::string path;  ///< the video file; frame datasets: the first frame; AVA: the keyframe's
                     ///< centre frame (all for messages)
  std::string name;  ///< frame datasets and AVA: the video id of the frame list
  /// Frame files in order (SSv2, Charades); empty for AVA, whose frames stay in the list's
  /// AvaDataset (a real AVA has ~200k keyframes over videos of 27k frames each).
  std::vector<std::string> frames;
  std::vector<std::vector<int>> frame_labels;  ///< per frame (Charades training), else empty
  int label = 0;                               ///< the class of a single-label sample
  /// Multi-label: the video-level classes (sorted, unique); AVA: the actions of the keyframe's
  /// boxes, 0-based (the per-box targets come from the AvaDataset).
  std::vector<int> labels;
  int line = 0;       ///< 1-based line in the list, for messages (0 for AVA)
  int keyframe = -1;  ///< AVA: index into SampleList::ava->keyframes; -1 otherwise
};

struct SampleList {
  DatasetKind kind = DatasetKind::Kinetics;
  std::string listPath;        ///< the list file read (messages name it)
  bool multi_label = false;    ///< targets are class sets (Charades, AVA)
  std::vector<Sample> videos;  ///< AVA: one per keyframe, in the dataset's keyframe order
  int maxLabel = -1;
  /// AVA: the frame lists, boxes and keyframes the samples index (shared: copies of the list are
  /// cheap); null for the other datasets.
  std::shared_ptr<const AvaDataset> ava;
};

/// The samples of `split` as PySlowFast's dataset for TRAIN.DATASET (TEST.DATASET for the test
/// split) builds them: Kinetics'
/// {split}.csv; SSv2's labels JSON joined with {train,val}.csv frame lists; Charades' frame
/// lists (test reads the val files for both); AVA's frame and box lists (AVA.*, readAvaDataset),
/// one sample per keyframe (PySlowFast's Ava dataset is as long as its keyframes). False with
/// `error` naming the file and line.
[[nodiscard]] bool readSampleList(const config::Config& c, Split split, SampleList& out,
                                  std::string* error);

/// The list file `split` reads in DATA.PATH_TO_DATA_DIR: {split}.csv; the frame datasets' test
/// reads val.csv (as PySlowFast's SSv2 and Charades do).
std::string listFileName(DatasetKind kind, Split split);

/// The split named "train", "val" or "test"; false otherwise.
bool splitFromName(const std::string& name, Split& out);

/// The classes of one clip of a multi-label sample whose frames run from `firstFrame` to
/// `lastFrame` (inclusive): Charades training takes the union of the per-frame labels over that
/// range (PySlowFast's aggregate_labels over seq[0] .. seq[-1]); otherwise the video's labels.
std::vector<int> targetClasses(const Sample& s, std::int64_t firstFrame, std::int64_t lastFrame);

}  // namespace amp::data
