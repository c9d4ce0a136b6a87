#include "vis/LayerSpec.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <numeric>
#include <sstream>

namespace amp::vis {
namespace {

std::vector<std::string> splitIndexing(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

std::size_t layerNameDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::vector<LayerSpec>> parseLayerSpecs(const std::vector<std::string>& entries,
                                                      std::string* error) {
  std::vector<LayerSpec> out;
  for (const auto& entry : entries) {
    auto fail = [&](const std::string& why) {
      if (error) *error = std::string(kModelVisLayersKey) + ": '" + entry + "': " + why;
      return std::nullopt;
    };
    std::istringstream words(entry);
    std::vector<std::string> parts;
    for (std::string w; words >> w;) parts.push_back(w);
    if (parts.empty()) return fail("an empty entry; give a layer name such as s2/pathway0_res0");
    if (parts.size() > 2)
      return fail(
          "a layer name and at most one indexing (\"1,2;0\": indices of a dimension "
          "separated by ',', dimensions by ';'), separated by a space");
    LayerSpec spec;
    spec.name = parts[0];
    spec.text = entry;
    if (parts.size() == 2) {
      for (const auto& dim : splitIndexing(parts[1], ';')) {
        std::vector<std::int64_t> indices;
        for (const auto& index : splitIndexing(dim, ',')) {
          char* end = nullptr;
          errno = 0;
          const long long v = std::strtoll(index.c_str(), &end, 10);
          if (index.empty() || *end != '\0' || errno == ERANGE)
            return fail("'" + index + "' in the indexing '" + parts[1] +
                        "' is not an integer index");
          indices.push_back(v);
        }
        spec.indexing.push_back(std::move(indices));
      }
    }
    out.push_back(std::move(spec));
  }
  return out;
}

std::vector<std::string> nearestNames(const std::string& name,
                                      const std::vector<std::string>& names, std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // distance, position
  for (std::size_t i = 0; i < names.size(); ++i)
    ranked.emplace_back(layerNameDistance(name, names[i]), i);
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i)
    out.push_back(names[ranked[i].second]);
  return out;
}

}  // namespace amp::vis
