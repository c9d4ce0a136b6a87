#include "metrics/AvaLabelNames.h"

#include "config/Config.h"
#include "data/FrameList.h"
#include "metrics/AvaLabelMap.h"

namespace amp::metrics {

std::string avaAnnotationFile(const config::Config& cfg, const std::string& key) {
  return data::joinPathPrefix(cfg.getString("AVA.ANNOTATION_DIR"), cfg.getString(key));
}

std::optional<std::map<int, std::string>> avaLabelNames(const config::Config& cfg,
                                                        std::string* error) {
  std::string why;
  const auto classes = readAvaLabelMap(avaAnnotationFile(cfg, "AVA.LABEL_MAP_FILE"), &why);
  if (!classes) {
    if (error) *error = "AVA.LABEL_MAP_FILE: " + why;
    return std::nullopt;
  }
  std::map<int, std::string> names;
  for (const AvaClass& c : *classes) names[c.id] = c.name;
  return names;
}

}  // namespace amp::metrics
