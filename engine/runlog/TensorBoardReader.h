#pragma once
// Reads TensorBoard event files back (ours, PySlowFast's, any SummaryWriter's): each record's two
// CRCs are checked and a torn or corrupt record ends the reading with the reason, as TensorBoard
// itself stops there. Torch-free (ampstudio_core).
//
//   runlog::TensorBoardFile f = runlog::readTensorBoardFile(path);
//   for (const auto& e : f.events)
//     for (const auto& s : e.scalars) use(s.tag, e.step, s.value);
//   if (!f.error.empty()) warn(f.error);
#include <cstdint>
#include <string>
#include <vector>

#include "runlog/TensorBoardWriter.h"

namespace amp::runlog {

/// One record of an events file as read back.
struct TensorBoardEvent {
  double wall_time = 0;
  std::int64_t step = 0;
  std::string file_version;                ///< set on the file-version record only
  std::vector<TensorBoardScalar> scalars;  ///< simple values and scalar tensors of a summary
  std::vector<TensorBoardImage> images;    ///< the images of a summary
  /// The histograms of a summary.
  std::vector<TensorBoardHistogram> histograms;
};

struct TensorBoardFile {
  std::vector<TensorBoardEvent> events;  ///< the whole records, in order
  /// "" when every byte was read; else what stopped the reading: a torn last record (a writer
  /// killed mid-write: TensorBoard stops there too) or a checksum that does not match.
  std::string error;
};

/// Reads every record of an events file, checking both CRCs of each.
TensorBoardFile readTensorBoardFile(const std::string& path);

}  // namespace amp::runlog
