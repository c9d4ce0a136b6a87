#pragma once
// The configs the suites build on: loading one that must load (a suite's own input; a problem
// there is a broken test, reported with its diagnostics), the repository's configs by name, and
// the override sets several suites share: a tiny MViTv2 and the demo run's two-phase multigrid
// long cycle.
//
//   auto cfg = amp::testsupport::loadConfigOrDie(
//       amp::testsupport::repoConfig("Kinetics/MVITv2_S_16x4.yaml"), amp::testsupport::tinyMViT());
#include <QtGlobal>

#include <string>
#include <vector>

#include "configfile/ConfigLoader.h"

namespace amp::testsupport {

/// `path` with `overrides` (KEY VALUE ...); qFatal with the diagnostics when it does not load.
inline config::Config loadConfigOrDie(const std::string& path,
                                      const std::vector<std::string>& overrides = {}) {
  auto r = config::ConfigLoader().loadFile(path, overrides);
  if (!r.ok()) qFatal("%s", config::formatDiagnostics(r.diagnostics).c_str());
  return r.config;
}

/// A config of the repository's configs/ folder, e.g. "demo/DEMO_X3D_TINY.yaml".
inline std::string repoConfig(const std::string& relative) {
  return std::string(AMPSTUDIO_SOURCE_DIR) + "/configs/" + relative;
}

/// MViTv2-S shrunk to two blocks of width 8 on 4 x 32 x 32 clips, on the CPU (append a suite's
/// own depth, classes or drop rates after it: later overrides win).
inline std::vector<std::string> tinyMViT() {
  return {"MVIT.EMBED_DIM",
          "8",
          "MVIT.DEPTH",
          "2",
          "DATA.NUM_FRAMES",
          "4",
          "DATA.TRAIN_CROP_SIZE",
          "32",
          "DATA.TEST_CROP_SIZE",
          "32",
          "MVIT.DIM_MUL",
          "[[1, 2.0]]",
          "MVIT.HEAD_MUL",
          "[[1, 2.0]]",
          "MVIT.POOL_Q_STRIDE",
          "[[1, 1, 2, 2]]",
          "MVIT.POOL_KV_STRIDE_ADAPTIVE",
          "[1, 2, 2]",
          "NUM_GPUS",
          "0"};
}

/// The demo run's multigrid long cycle: two phases (half the frames at twice the batch with
/// sub batch norm, then the full shape), BN_BASE_SIZE 4, one epoch per factor.
inline std::vector<std::string> tinyLongCycle() {
  return {"MULTIGRID.LONG_CYCLE",   "True", "MULTIGRID.LONG_CYCLE_FACTORS", "[[0.5, 1], [1, 1]]",
          "MULTIGRID.BN_BASE_SIZE", "4",    "MULTIGRID.EPOCH_FACTOR",       "1.0"};
}

/// The demo config shrunk for a quick training run: batch 4, a small head, a log line per step,
/// one loader worker.
inline std::vector<std::string> demoTraining() {
  return {"TRAIN.BATCH_SIZE",        "4", "X3D.DIM_C5", "32", "LOG_PERIOD", "1",
          "DATA_LOADER.NUM_WORKERS", "1"};
}

/// `a` then `b`: override lists joined (b's values win).
inline std::vector<std::string> joined(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace amp::testsupport
