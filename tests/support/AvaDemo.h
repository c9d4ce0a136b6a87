#pragma once
// The AVA-format demo dataset and the overrides that point the demo config at it, for the
// suites of the AVA tools (data check, pre-flight, clip preview, the loader): written in-process,
// small; and its CSV files read back as cells.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "data/DemoDataGenerator.h"

namespace amp::testsupport {

/// Writes the AVA demo data into `dir` (2 x clipsPerClass training videos, a quarter as many
/// validation ones); false with `error`.
inline bool makeAvaDemo(const std::string& dir, int clipsPerClass, std::string* error) {
  data::DemoDataOptions o;
  o.out_dir = dir;
  o.format = data::DemoFormat::Ava;
  o.clips_per_class = clipsPerClass;
  o.threads = 2;
  data::DemoDataSummary summary;
  return data::generateDemoData(o, summary, error);
}

/// KEY VALUE pairs making demo/DEMO_X3D_TINY.yaml read the AVA demo data in `dir`.
inline std::vector<std::string> avaDemoOverrides(const std::string& dir) {
  return {"TRAIN.DATASET",
          "ava",
          "TEST.DATASET",
          "ava",
          "DETECTION.ENABLE",
          "True",
          "AVA.FRAME_DIR",
          dir + "/frames",
          "AVA.FRAME_LIST_DIR",
          dir + "/frame_lists",
          "AVA.ANNOTATION_DIR",
          dir + "/annotations",
          "DATA_LOADER.NUM_WORKERS",
          "0"};
}

/// The rows of an AVA CSV (box lists, exclusions) as their comma-separated cells; a trailing
/// comma gives a last empty cell (the predicted boxes' empty action).
inline std::vector<std::vector<std::string>> csvCells(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace amp::testsupport
