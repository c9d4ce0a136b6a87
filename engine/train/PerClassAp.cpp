#include "train/PerClassAp.h"

#include <filesystem>
#include <system_error>

#include "config/Config.h"
#include "data/ClassNames.h"

namespace amp::train {

runlog::PerClassValues perClassAp(const metrics::MapResult& m, const std::string& split,
                                  const std::map<int, std::string>& names) {
  runlog::PerClassValues p;
  p.split = split;
  p.metric = "ap";
  for (std::size_t c = 0; c < m.ap.size(); ++c) {
    p.classes.push_back(static_cast<std::int64_t>(c));
    p.values.push_back(m.ap[c]);
    p.positives.push_back(c < m.positives.size() ? m.positives[c] : 0);
  }
  if (!names.empty())
    for (const std::int64_t c : p.classes) {
      const auto it = names.find(static_cast<int>(c));
      p.names.push_back(it == names.end() ? std::string() : it->second);
    }
  return p;
}

runlog::PerClassValues perClassAp(const metrics::AvaResult& r, const std::string& split) {
  runlog::PerClassValues p;
  p.split = split;
  p.metric = "ap";
  for (const auto& c : r.classes) {
    p.classes.push_back(c.id);
    p.names.push_back(c.name);
    p.values.push_back(c.ap);
    p.positives.push_back(c.groundtruth_boxes);
  }
  return p;
}

std::map<int, std::string> classNames(const config::Config& cfg) {
  std::map<int, std::string> names;
  const std::string path = cfg.getString("DEMO.LABEL_FILE_PATH");
  std::error_code ec;
  std::string ignored;  // names are a help for reading the figures; the figures stand without
  if (path.empty() || !std::filesystem::exists(path, ec) ||
      !data::readClassNames(path, names, ignored))
    names.clear();
  return names;
}

}  // namespace amp::train
