#pragma once
// AVA's annotation files as a config names them (AVA.ANNOTATION_DIR joined with
// AVA.LABEL_MAP_FILE, GROUNDTRUTH_FILE, EXCLUSION_FILE, as PySlowFast's AvaMeter joins them) and
// the label map's names by action id, for the tools that show boxes with their actions (the
// clip preview in the studio and the CLI). Here, not in data/, because the label map reader is a
// metric's (AvaLabelMap.h).
//
//   std::string error;
//   const auto names = amp::metrics::avaLabelNames(cfg, &error);
//   if (!names) warn(error);  // "AVA.LABEL_MAP_FILE: dir/file.pbtxt: ..."
//   else use(names->at(12));
#include <map>
#include <optional>
#include <string>

namespace amp::config {
class Config;
}

namespace amp::metrics {

/// AVA.ANNOTATION_DIR joined with the file named by `key` (os.path.join: an absolute name wins).
std::string avaAnnotationFile(const config::Config& cfg, const std::string& key);

/// The names of the label map AVA.LABEL_MAP_FILE by id (the last name of a repeated id).
/// nullopt with `error` as "AVA.LABEL_MAP_FILE: <readAvaLabelMap's error>".
[[nodiscard]] std::optional<std::map<int, std::string>> avaLabelNames(const config::Config& cfg,
                                                                      std::string* error);

}  // namespace amp::metrics
