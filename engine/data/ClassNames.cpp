#include "data/ClassNames.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace amp::data {

bool readClassNames(const std::string& path, std::map<int, std::string>& names, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot read the class names";
    return false;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    try {
      const auto j = nlohmann::json::parse(text);
      for (const auto& [name, index] : j.items()) {
        if (!index.is_number_integer()) {
          error = path + ": \"" + name + "\" maps to " + index.dump() + ", not a class index";
          return false;
        }
        names[index.get<int>()] = name;
      }
    } catch (const nlohmann::json::exception& e) {
      error = path + ": not the JSON of class names PySlowFast's demo reads (" + e.what() + ")";
      return false;
    }
    return true;
  }
  std::istringstream lines(text);
  std::string line;
  for (int i = 0; std::getline(lines, line); ++i) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    names[i] = line;
  }
  return true;
}

}  // namespace amp::data
