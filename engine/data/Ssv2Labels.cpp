#include "data/Ssv2Labels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

namespace fs = std::filesystem;

namespace amp::data {
namespace {

// SSv2's labels file is 174 templates in a few KB; its train list is 168,913 videos in tens of
// MB. A stranger's file far beyond these is refused by name rather than parsed (the parsed JSON
// costs several times the text).
constexpr std::size_t kMaxLabelsBytes = std::size_t(4) << 20;
constexpr std::size_t kMaxSplitBytes = std::size_t(256) << 20;
// The same bound ClassNames.cpp puts on a class index: ImageNet-21k has 21,841 classes.
constexpr std::int64_t kMaxClasses = 100000;

std::optional<nlohmann::json> readJson(const std::string& path, std::size_t cap,
                                       std::string* error) {
  std::string text, why;
  if (!util::readFile(path, text, &why, cap)) {
    if (error) *error = why;
    return std::nullopt;
  }
  auto j = util::parseJson(text, &why);
  if (!j && error) *error = path + ": " + why;
  return j;
}

// int(value) as PySlowFast applies it to a labels-file value: a string of digits (surrounding
// whitespace allowed, as int() strips it) or an integral number. nullopt when it is neither,
// or negative, or past kMaxClasses.
std::optional<std::int64_t> classIndex(const nlohmann::json& v) {
  std::int64_t n = -1;
  if (v.is_number_integer()) {
    n = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 1e9) return std::nullopt;
    n = static_cast<std::int64_t>(d);
  } else if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    const auto first = s.find_first_not_of(" \t\r\n");
    const auto last = s.find_last_not_of(" \t\r\n");
    if (first == std::string::npos || last - first + 1 > 9) return std::nullopt;
    n = 0;
    for (std::size_t i = first; i <= last; ++i) {
      if (s[i] < '0' || s[i] > '9') return std::nullopt;
      n = n * 10 + (s[i] - '0');
    }
  }
  if (n < 0 || n >= kMaxClasses) return std::nullopt;
  return n;
}

}  // namespace

std::string ssv2SplitFile(bool train) {
  return std::string("something-something-v2-") + (train ? "train" : "validation") + ".json";
}

bool readSsv2Labels(const std::string& dataDir, bool train, std::vector<Ssv2Video>& out,
                    int* numClasses, std::string* error) {
  out.clear();
  if (numClasses) *numClasses = 0;
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  const std::string labelsPath = (fs::path(dataDir) / kSsv2LabelsFile).string();
  const std::string splitPath = (fs::path(dataDir) / ssv2SplitFile(train)).string();

  std::string why;
  const auto labels = readJson(labelsPath, kMaxLabelsBytes, &why);
  if (!labels) return fail(why);
  if (!labels->is_object())
    return fail(labelsPath + ": expected an object of templates and class indices ({\"Putting " +
                "something on something\": \"12\", ...}), got " +
                util::excerpt(labels->dump(), 60));
  std::unordered_map<std::string, int> classOf;
  std::int64_t maxClass = -1;
  for (const auto& [templ, value] : labels->items()) {
    const auto index = classIndex(value);
    if (!index)
      return fail(labelsPath + ": \"" + util::excerpt(templ) + "\" maps to " +
                  util::excerpt(value.dump(), 40) + ", not a class index (an integer from 0 to " +
                  std::to_string(kMaxClasses - 1) + ", written \"12\" or 12)");
    classOf.emplace(templ, static_cast<int>(*index));
    maxClass = std::max(maxClass, *index);
  }

  const auto split = readJson(splitPath, kMaxSplitBytes, &why);
  if (!split) return fail(why);
  if (!split->is_array())
    return fail(splitPath + ": expected an array of videos ([{\"id\": \"78687\", \"template\": " +
                "\"Putting [something] on [something]\", ...}, ...]), got " +
                util::excerpt(split->dump(), 60));
  out.reserve(split->size());
  for (std::size_t i = 0; i < split->size(); ++i) {
    const nlohmann::json& video = (*split)[i];
    const std::string where = splitPath + ": video " + std::to_string(i);
    if (!video.is_object())
      return fail(where + " is " + util::excerpt(video.dump(), 60) +
                  ", not an object with \"id\" and \"template\"");
    const auto id = video.find("id");
    const auto templ = video.find("template");
    if (id == video.end() || templ == video.end())
      return fail(where + " has no \"" + (id == video.end() ? "id" : "template") +
                  "\": " + util::excerpt(video.dump(), 80));
    Ssv2Video v;
    if (id->is_string())
      v.id = id->get<std::string>();
    else if (id->is_number_integer())
      v.id = std::to_string(id->get<std::int64_t>());  // as the frame list writes the id
    else
      return fail(where + ": \"id\" is " + util::excerpt(id->dump(), 40) +
                  ", not a string or an integer");
    if (!templ->is_string())
      return fail(where + " (id " + v.id + "): \"template\" is " +
                  util::excerpt(templ->dump(), 40) + ", not a string");
    // PySlowFast drops every bracket: "Putting [something] on [something]" is the labels
    // file's "Putting something on something".
    std::string key = templ->get<std::string>();
    key.erase(std::remove_if(key.begin(), key.end(), [](char c) { return c == '[' || c == ']'; }),
              key.end());
    const auto found = classOf.find(key);
    if (found == classOf.end())
      return fail(where + " (id " + v.id + "): its template \"" + util::excerpt(key) +
                  "\" is not in " + labelsPath +
                  " (PySlowFast's KeyError): are the labels file and the " +
                  (train ? "train" : "validation") + " list of the same release?");
    v.label = found->second;
    out.push_back(std::move(v));
  }
  if (numClasses) *numClasses = static_cast<int>(maxClass + 1);
  return true;
}

}  // namespace amp::data
