#include "metrics/ClassGroups.h"

#include "metrics/ConfusionRecord.h"

#include <nlohmann/json.hpp>

#include "config/Config.h"
#include "data/ClassNames.h"
#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

namespace amp::metrics {
namespace {
// Subset and category files name classes: kilobytes even for Kinetics-700.
constexpr std::size_t kMaxGroupFileBytes = std::size_t(4) << 20;

std::map<std::string, int> byName(const std::map<int, std::string>& names) {
  std::map<std::string, int> out;
  for (const auto& [id, name] : names) out.emplace(name, id);
  return out;
}

std::string trimmed(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}
}  // namespace

bool readNamesFile(const std::string& path, std::map<int, std::string>& names, std::string* error) {
  std::string why;
  if (data::readClassNames(path, names, why)) return true;
  if (error) *error = why;
  return false;
}

std::optional<std::vector<int>> readSubsetFile(const std::string& path,
                                               const std::map<int, std::string>& names,
                                               std::vector<std::string>& unknown,
                                               std::string* error) {
  std::string text, why;
  if (!util::readFile(path, text, &why, kMaxGroupFileBytes)) {
    if (error) *error = path + ": cannot read the subset of classes (" + why + ")";
    return std::nullopt;
  }
  const auto index = byName(names);
  std::vector<int> ids;
  std::size_t at = 0;
  while (at <= text.size()) {
    auto nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    const std::string name = trimmed(text.substr(at, nl - at));
    at = nl + 1;
    if (name.empty()) continue;
    const auto it = index.find(name);
    if (it == index.end())
      unknown.push_back(path + ": " + util::excerpt(name));
    else
      ids.push_back(it->second);
  }
  return ids;
}

bool readParentsFile(const std::string& path, const std::map<int, std::string>& names,
                     std::vector<std::pair<std::string, std::vector<int>>>& parents,
                     std::vector<std::string>& unknown, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error)
      *error = path + ": " + why +
               "; TENSORBOARD.CATEGORIES_PATH is a JSON object of parent names, each with a list "
               "of its children's class names ({\"parent\": [\"child\", ...], ...})";
    return false;
  };
  std::string text, why;
  if (!util::readFile(path, text, &why, kMaxGroupFileBytes)) {
    if (error) *error = path + ": cannot read the class categories (" + why + ")";
    return false;
  }
  // Depth-checked by parseJson first; then parsed again keeping the file's order of parents.
  if (!util::parseJson(text, &why)) return fail(why);
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (!j.is_object()) return fail("not a JSON object");
  const auto index = byName(names);
  for (const auto& [parent, children] : j.items()) {
    if (!children.is_array())
      return fail("\"" + util::excerpt(parent) + "\" maps to " + util::excerpt(children.dump()) +
                  ", not a list of class names");
    std::vector<int> ids;
    for (const auto& child : children) {
      if (!child.is_string())
        return fail("\"" + util::excerpt(parent) + "\" lists " + util::excerpt(child.dump()) +
                    ", not a class name");
      const auto it = index.find(child.get<std::string>());
      if (it == index.end())
        unknown.push_back(path + ": " + util::excerpt(child.get<std::string>()));
      else
        ids.push_back(it->second);
    }
    parents.emplace_back(parent, std::move(ids));
  }
  return true;
}

std::optional<ClassGroups> readClassGroups(const config::Config& cfg, std::string* error) {
  ClassGroups g;
  auto fail = [&](const std::string& key, const std::string& why) {
    if (error) *error = key + ": " + why;
    return std::nullopt;
  };
  std::string namesKey = "TENSORBOARD.CLASS_NAMES_PATH";
  g.names_file = cfg.getString(namesKey);
  if (g.names_file.empty()) {
    namesKey = "DEMO.LABEL_FILE_PATH";
    g.names_file = cfg.getString(namesKey);
  }
  std::string why;
  if (!g.names_file.empty() && !readNamesFile(g.names_file, g.names, &why))
    return fail(namesKey, why + " (set it to a readable file of class names, or empty it)");
  const struct {
    const char* key;
    std::optional<std::vector<int>>* out;
  } subsets[] = {{"TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH", &g.subset},
                 {"TENSORBOARD.HISTOGRAM.SUBSET_PATH", &g.histogram_subset}};
  for (const auto& s : subsets) {
    const std::string path = cfg.getString(s.key);
    if (path.empty()) continue;
    if (g.names.empty())
      return fail(s.key,
                  "names classes, but no class names are known: set "
                  "TENSORBOARD.CLASS_NAMES_PATH to the {\"name\": index} file");
    *s.out = readSubsetFile(path, g.names, g.unknown, &why);
    if (!*s.out) return fail(s.key, why + " (a text file of class names, one per line)");
  }
  if (const std::string path = cfg.getString("TENSORBOARD.CATEGORIES_PATH"); !path.empty()) {
    if (g.names.empty())
      return fail("TENSORBOARD.CATEGORIES_PATH",
                  "names classes, but no class names are known: set "
                  "TENSORBOARD.CLASS_NAMES_PATH to the {\"name\": index} file");
    if (!readParentsFile(path, g.names, g.parents, g.unknown, &why))
      return fail("TENSORBOARD.CATEGORIES_PATH", why);
  }
  return g;
}

void applyClassGroups(ConfusionRecord& r, const ClassGroups& groups) {
  const int k = r.matrix.classes();
  if (!groups.names.empty()) {
    r.names.assign(static_cast<std::size_t>(k), std::string());
    for (const auto& [id, name] : groups.names)
      if (id >= 0 && id < k) r.names[static_cast<std::size_t>(id)] = name;
  }
  r.subset = groups.subset;
  r.parents = groups.parents;
}

}  // namespace amp::metrics
