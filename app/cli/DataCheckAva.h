#pragma once
// `ampstudio-cli data check` for TRAIN.DATASET ava (DataCheckCommand.cpp hands it over): the
// frame lists, box lists and keyframes of each split, and the frames their clips read.
#include <string>

#include "config/Config.h"

namespace amp::cli {

struct AvaCheckArgs {
  std::string split;   ///< "" : train and test (whose keyframes hold val's)
  int threads = 0;     ///< decoding threads; 0: every core
  int max_frames = 0;  ///< decode at most this many frames a video (0: all), the rest looked up
};

/// Prints the report; 0 when every split reads and every frame decodes, else 1.
int runAvaCheck(const config::Config& cfg, const AvaCheckArgs& args);

}  // namespace amp::cli
