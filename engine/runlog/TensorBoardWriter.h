#pragma once
// TensorBoard event files (TENSORBOARD.ENABLE): the scalars PySlowFast's TensorboardWriter logs,
// written as torch.utils.tensorboard's SummaryWriter writes them, so `tensorboard --logdir` shows
// a run of this studio next to PySlowFast's runs. An events file is a sequence of records: the
// payload's length (8 bytes, little-endian), its masked CRC-32C, the payload (a serialised Event)
// and the payload's masked CRC-32C. Each file starts with a "brain.Event:2" file-version record;
// each scalar is one Event with the step, the wall time and one tagged simple value.
// Torch-free (ampstudio_core). Builds without protobuf (AMPSTUDIO_WITH_TENSORBOARD OFF) say so
// instead (tensorBoardSupport()).
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runlog/TensorBoardHistogram.h"
#include "util/AppendOnlyFile.h"

namespace amp::runlog {

/// Why this build writes no event files (it has no protobuf / ISA-L); nullopt when it does.
std::optional<std::string> tensorBoardSupport();

struct TensorBoardScalar {
  std::string tag;   ///< e.g. "Train/loss"
  double value = 0;  ///< stored as a float, as SummaryWriter.add_scalar does
};

/// An image summary, as SummaryWriter.add_figure writes a matplotlib figure: a PNG of an RGB
/// picture (PySlowFast's confusion matrices and histograms).
struct TensorBoardImage {
  std::string tag;  ///< e.g. "Confusion Matrix"
  int width = 0, height = 0;
  std::string png;  ///< the encoded PNG bytes
};

class TensorBoardWriter {
 public:
  TensorBoardWriter();
  ~TensorBoardWriter();
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  /// Creates `logDir` if needed and a new events file in it, named as TensorBoard's writers name
  /// theirs (events.out.tfevents.<unix seconds>.<host>.<pid>.<n>; every start of a run adds a file
  /// and TensorBoard reads them as one run), and writes its file-version record. False with
  /// `error` naming the path and the reason.
  [[nodiscard]] bool open(const std::string& logDir, double wallTime, std::string* error);
  bool isOpen() const;
  /// One Event per scalar at `step`, appended with one write(2). False with `error`.
  [[nodiscard]] bool add(const std::vector<TensorBoardScalar>& scalars, std::int64_t step,
                         double wallTime, std::string* error);
  /// One Event per image at `step`, appended with one write(2). False with `error`.
  [[nodiscard]] bool addImages(const std::vector<TensorBoardImage>& images, std::int64_t step,
                               double wallTime, std::string* error);
  /// One Event per histogram (runlog/TensorBoardHistogram.h) at `step`, appended with one
  /// write(2). False with `error`.
  [[nodiscard]] bool addHistograms(const std::vector<TensorBoardHistogram>& histograms,
                                   std::int64_t step, double wallTime, std::string* error);
  void close();
  /// The file's path (set by open). The writer's calls may come from several threads; open and
  /// close are not to race with them.
  const std::string& path() const { return path_; }

 private:
  [[nodiscard]] bool append(const std::string& bytes, std::string* error);
  mutable std::mutex mutex_;
  util::AppendOnlyFile file_;
  std::string path_;
};

/// Where PySlowFast's TensorboardWriter puts a run's event files: OUTPUT_DIR joined with
/// TENSORBOARD.LOG_DIR (an absolute LOG_DIR stands alone, as os.path.join does), or
/// OUTPUT_DIR/runs-<TRAIN.DATASET> when LOG_DIR is empty.
std::string tensorBoardLogDir(const std::string& outputDir, const std::string& logDir,
                              const std::string& dataset);

/// CRC-32C (Castagnoli) of `size` bytes, and its masked form as event files store it.
std::uint32_t crc32c(const void* data, std::size_t size);
std::uint32_t maskedCrc32c(const void* data, std::size_t size);

}  // namespace amp::runlog
