#pragma once
// TENSORBOARD.PREDICTIONS_PATH: the predictions PySlowFast's test saved (TEST.SAVE_RESULTS_PATH:
// pickle.dump([preds, labels])), read back for plot_eval's figures by the safe unpickler
// (checkpoint/Pickle: nothing in the file is imported or called). It reads NumPy arrays
// (preds: videos x classes; labels: one class per video, or one-hot rows), lists of them and
// lists of numbers. PySlowFast itself pickles torch tensors, whose storages ride inside the pickle
// as a nested torch.save (torch.storage._load_from_bytes): those are refused by name with what
// to do instead (save preds.numpy() and labels.numpy()). Torch-free header.
//
//   checkpoint::SavedPredictions p;
//   std::string error;
//   if (!checkpoint::readSavedPredictions(path, p, &error)) return fail(error);
//   p.scores[v * p.classes + k]   // video v's score of class k
#include <string>
#include <vector>

namespace amp::checkpoint {

struct SavedPredictions {
  int videos = 0, classes = 0;
  std::vector<double> scores;  ///< videos x classes, row-major
  std::vector<int> labels;     ///< per video (one-hot rows: their largest entry)
  std::string described;       ///< what the file held, in words ("a list of 2: ...")
};

/// Reads `path`. False with `error` naming the file and saying what it held when it is not
/// [preds, labels] of arrays the reader can read.
[[nodiscard]] bool readSavedPredictions(const std::string& path, SavedPredictions& out,
                                        std::string* error);

}  // namespace amp::checkpoint
