#pragma once
// The demo dataset in PySlowFast's frame-folder formats: every clip as one JPEG per frame under
// frames/<video id>/, with the lists PySlowFast's datasets read.
//  - ssv2: the moving-shape clips labelled by templates ("Moving [something] left"), frame lists
//    train.csv / val.csv and the labels JSON files of Something-Something v2;
//  - charades: longer clips in which 2-3 shapes act at once over overlapping spans, every frame
//    labelled with the actions visible in it ("1,5"), frame lists train.csv / val.csv.
//
//   data::DemoDataOptions o;
//   o.out_dir = "demo-charades";
//   o.format = data::DemoFormat::Charades;
//   data::generateDemoData(o, summary, &error);  // dispatches here
#include <functional>
#include <string>

#include "data/DemoDataGenerator.h"

namespace amp::data {

/// Class templates of the SSv2-format demo, in label order (brackets around the object).
const std::vector<std::string>& demoSsv2Templates();

/// Writes the SSv2- or Charades-format demo dataset into o.out_dir (see the file comment).
[[nodiscard]] bool generateDemoFrameData(const DemoDataOptions& o, DemoDataSummary& summary,
                                         std::string* error,
                                         const std::function<void(int, int)>& progress);

}  // namespace amp::data
