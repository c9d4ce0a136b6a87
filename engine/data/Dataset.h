#pragma once
// The dataset seam: which of PySlowFast's datasets a config trains on, and the samples of one
// split as the loader, tester, pre-flight, `data check` and the benchmarks see them. A sample is a
// video file (Kinetics) or the frames of a video folder (Something-Something v2, Charades) with its
// target: one class, or a set of classes for multi-label datasets. ClipSampler turns a sample into
// clips; the target of a clip comes from targetClasses().
//
//   data::SampleList list;
//   std::string error;
//   if (!data::readSampleList(config, data::Split::Train, list, &error)) report(error);
//   for (const data::Sample& s : list.videos) ...
#include <cstdint>
#include <string>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::data {

enum class Split { Train, Val, Test };
const char* splitName(Split s);

/// TRAIN.DATASET's datasets the engine reads (PySlowFast's names, lower case).
enum class DatasetKind { Kinetics, Ssv2, Charades };
/// "kinetics", "ssv2", "charades" (PySlowFast's registry is case-insensitive); false otherwise.
bool datasetKindFromName(const std::string& name, DatasetKind& out);
const char* datasetName(DatasetKind kind);
/// Datasets whose samples are frame folders (PySlowFast's load_image_lists).
inline bool usesFrames(DatasetKind k) {
  return k != DatasetKind::Kinetics;
}

/// One sample: a video file or a frame folder's frames, and its labels.
struct Sample {
  std::string path;  ///< the video file; for frame datasets the first frame (for messages)
  std::string name;  ///< frame datasets: the video id of the frame list
  std::vector<std::string> frames;             ///< frame files in order (frame datasets)
  std::vector<std::vector<int>> frame_labels;  ///< per frame (Charades training), else empty
  int label = 0;                               ///< the class of a single-label sample
  std::vector<int> labels;  ///< multi-label: the video-level classes (sorted, unique)
  int line = 0;             ///< 1-based line in the list, for messages
};

struct SampleList {
  DatasetKind kind = DatasetKind::Kinetics;
  std::string listPath;      ///< the list file read (messages name it)
  bool multi_label = false;  ///< targets are class sets (Charades)
  std::vector<Sample> videos;
  int maxLabel = -1;
};

/// The samples of `split` as PySlowFast's dataset for TRAIN.DATASET (TEST.DATASET for the test
/// split) builds them: Kinetics'
/// {split}.csv; SSv2's labels JSON joined with {train,val}.csv frame lists; Charades' frame
/// lists (test reads the val files for both). False with `error` naming the file and line.
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
