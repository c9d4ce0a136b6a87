#include "data/ClassNames.h"

#include <string_view>

#include <nlohmann/json.hpp>

#include "util/AtomicFile.h"
#include "util/BoundedInput.h"

namespace amp::data {
namespace {
// Label files name at most thousands of classes (Kinetics-700, AVA's 80, ImageNet-21k's 21,841)
// in tens of KB. A stranger's file beyond these is refused by name rather than held in memory:
// each name costs a map node, so a file of newlines must not become millions of them.
constexpr std::size_t kMaxFileBytes = std::size_t(4) << 20;
constexpr int kMaxClasses = 100000;
constexpr std::size_t kMaxLineBytes = std::size_t(64) << 10;  // a class name is a few words
}  // namespace

bool readClassNames(const std::string& path, std::map<int, std::string>& names,
                    std::string& error) {
  std::string text, why;
  if (!util::readFile(path, text, &why, kMaxFileBytes)) {
    error = path + ": cannot read the class names (" + why + ")";
    return false;
  }
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    const auto j = util::parseJson(text, &why);
    if (!j || !j->is_object()) {
      error = path +
              ": not the JSON of class names PySlowFast's demo reads ({\"name\": index, ...}" +
              (j ? std::string(")") : "; " + why + ")");
      return false;
    }
    for (const auto& [name, index] : j->items()) {
      if (!index.is_number_integer() || index.get<std::int64_t>() < 0 ||
          index.get<std::int64_t>() >= kMaxClasses) {
        error = path + ": \"" + util::excerpt(name) + "\" maps to " + util::excerpt(index.dump()) +
                ", not a class index (an integer from 0 to " + std::to_string(kMaxClasses - 1) +
                ")";
        return false;
      }
      names[index.get<int>()] = name;
    }
    return true;
  }
  // One name per line; the last line may lack its newline.
  int index = 0;
  for (std::size_t at = 0; at < text.size(); ++index) {
    auto nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + at, nl - at);
    at = nl + 1;
    if (index >= kMaxClasses) {
      error = path + ": more than " + std::to_string(kMaxClasses) +
              " lines; a label file names one class per line";
      return false;
    }
    if (line.size() > kMaxLineBytes) {
      error = path + ":" + std::to_string(index + 1) + ": too long (more than " +
              std::to_string(kMaxLineBytes) + " bytes); a line is one class name";
      return false;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    names[index] = std::string(line);
  }
  return true;
}

}  // namespace amp::data
