// AVA's evaluation inputs as `eval ava` reads them from strangers: the bytes as a label map, and
// as a groundtruth, detections and exclusions CSV, then evaluated against themselves (every
// box matched, NaN and infinite coordinates included) and written back in the AVA format.
#include <fstream>

#include "FuzzTarget.h"
#include "metrics/AvaCsv.h"
#include "metrics/AvaEvaluation.h"
#include "metrics/AvaLabelMap.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace amp::metrics;
  const std::string text = amp::fuzz::bytes(data, size);
  std::string error;
  const auto labelMap = parseAvaLabelMap(text, "fuzz.pbtxt", &error);

  const std::string path = amp::fuzz::scratchDir() + "/ava.csv";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  (void)readAvaExclusions(path, &error);
  std::set<int> classes;
  if (labelMap)
    for (const AvaClass& c : *labelMap) classes.insert(c.id);
  const auto gt = readAvaGroundTruth(path, classes, &error);
  const auto det = readAvaDetections(path, classes, &error);
  std::vector<AvaClass> evaluated =
      labelMap ? *labelMap : std::vector<AvaClass>{{1, "a"}, {80, "b"}};
  AvaEvaluation eval(evaluated);
  if (gt)
    for (const AvaImage& image : *gt) eval.addGroundTruthImage(image.key, image.boxes);
  if (det) {
    for (const AvaImage& image : *det) eval.addDetectedImage(image.key, image.boxes);
    (void)formatAvaCsv(*det);
  }
  (void)eval.evaluate();
  return 0;
}
