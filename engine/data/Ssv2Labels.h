#pragma once
// Something-Something V2's labels (datasets/ssv2.py _construct_loader): each video of
// something-something-v2-{train,validation}.json names its action by a template such as
// "Putting [something] on [something]"; without its brackets the template is a key of
// something-something-v2-labels.json, whose value is the class index ("12").
//
//   std::vector<Ssv2Video> videos;
//   int classes = 0;
//   if (!readSsv2Labels(cfg.dataDir, /*train=*/true, videos, &classes, &error)) return fail(error);
#include <string>
#include <vector>

namespace amp::data {

struct Ssv2Video {
  std::string id;  ///< the video's "id" ("78687"): the original_vido_id of the frame list
  int label = 0;   ///< class index
};

/// The labels file's name, and the split's: something-something-v2-{train,validation}.json.
inline constexpr const char* kSsv2LabelsFile = "something-something-v2-labels.json";
std::string ssv2SplitFile(bool train);

/// Reads `{dataDir}/something-something-v2-labels.json` (an object: template -> class index, as
/// a string of digits or a number) and the split's file (an array of objects with "id", a string
/// or a number, and "template"), and gives each video of the split its class, in the split
/// file's order. `numClasses` (optional): one more than the largest index of the labels file.
/// False with `error` naming the file and the problem: a template the labels file lacks names
/// the template and the video (PySlowFast's KeyError), invalid JSON gives the parser's position.
[[nodiscard]] bool readSsv2Labels(const std::string& dataDir, bool train,
                                  std::vector<Ssv2Video>& out, int* numClasses, std::string* error);

}  // namespace amp::data
