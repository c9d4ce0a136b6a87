#pragma once
// A folder of TensorBoard event files opened as a read-only run, the way a PySlowFast stdout.log
// is (runlog/PySlowFastLog): runs trained elsewhere (PySlowFast's TENSORBOARD.ENABLE, Lightning,
// any SummaryWriter) then sit in the run list and the comparison beside ours. Several event files
// in one folder are one run (a resumed job starts a new file), ordered by wall time; sub-folders
// are several runs, as TensorBoard's --logdir reads them. Torch-free and Qt-free.
//
//   if (runlog::TensorBoardRun::isRunFolder(dir)) {
//     auto run = runlog::TensorBoardRun::read(dir);
//     record.addAll(run.events);
//     for (const auto& p : run.problems) warn(p);  // e.g. a torn last record
//   }
#include <cstdint>
#include <string>
#include <vector>

#include "runlog/MetricEvent.h"

namespace amp::runlog {

struct TensorBoardRunRead {
  /// The studio's events: train (one per step), val (one per validation pass: the mean of the
  /// values logged between two training steps), epoch, and a "resumed" event where a later file
  /// starts below the steps already read. Unknown tags ride in the train events under their own
  /// tag (e.g. "Perf/clips_per_s").
  std::vector<MetricEvent> events;
  /// What was not read, each naming the file: a torn or corrupt record ends that file's reading
  /// (what came before it is kept), an unreadable file is skipped.
  std::vector<std::string> problems;
  std::vector<std::string> files;  ///< the event files, in the order read
};

class TensorBoardRun {
 public:
  /// Where a tag goes: the event kind and our metric name (docs/run-format.md lists them).
  struct Mapping {
    std::string kind;    ///< "train", "val", "epoch"; "epoch-number" for Lightning's "epoch" tag
    std::string metric;  ///< e.g. "loss", "top1_err"; the tag itself when unknown
    /// The tag is an accuracy and our metric its error: 100 - accuracy (a fraction counts x 100).
    bool errorFromAccuracy = false;
  };
  static Mapping mapTag(const std::string& tag);

  /// "events.out.tfevents.*" (TensorBoard reads files whose name holds "tfevents").
  static bool isEventFileName(const std::string& fileName);
  /// The event files directly in `dir`, by name (the name starts with the writer's start time).
  static std::vector<std::string> eventFiles(const std::string& dir);
  /// True when `dir` holds event files and is no run of ours nor a PySlowFast OUTPUT_DIR.
  static bool isRunFolder(const std::string& dir);
  /// `logdir` and its sub-folders (up to 3 levels) that hold event files, sorted: each is a run.
  static std::vector<std::string> findRunFolders(const std::string& logdir);
  /// The start time and host the first file's name tells ("events.out.tfevents.<unix seconds>.
  /// <host>..."); 0 and "" when it does not.
  static double startTimeOf(const std::string& dir, std::string* host = nullptr);

  /// Reads every event file of the folder.
  static TensorBoardRunRead read(const std::string& dir);
};

}  // namespace amp::runlog
