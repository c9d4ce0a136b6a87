#pragma once
// The multi-view test on a model already in memory, for the trainer's test after training
// (TEST.ENABLE) and for runMultiViewTest. Internal to the engine (LibTorch types).
#include <torch/torch.h>

#include "models/Net.h"
#include "train/Checkpoint.h"
#include "train/Tester.h"

namespace amp::train {

class DataParallel;

/// Tests `net` (in eval mode on `device`) on the test split; `ddp` shares the views among its
/// ranks and sums their per-video scores (a no-op with one process). Fills `r` except
/// `checkpoint` and `seconds`; throws std::runtime_error naming the key or file.
void testLoadedModel(const config::Config& c, models::VideoNetImpl& net,
                     const torch::Device& device, bool channelsLast, DataParallel& ddp,
                     const TestOptions& options, TestResult& r);

/// Loads the weights to test from `path` as PySlowFast's test_net does: a Caffe2 .pkl when `path`
/// is TEST.CHECKPOINT_FILE_PATH with TEST.CHECKPOINT_TYPE caffe2 (or TRAIN.CHECKPOINT_FILE_PATH
/// with TRAIN.CHECKPOINT_TYPE caffe2), a torch.save checkpoint otherwise; every weight must fit.
CheckpointInfo loadTestWeights(const config::Config& c, const std::string& path,
                               torch::nn::Module& net);

}  // namespace amp::train
