#include "vis/ColourMap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "vis/ColourMapTables.h"

namespace amp::vis {
namespace {

// One channel of a LinearSegmentedColormap: (x, y0, y1) rows, x rising from 0 to 1.
struct Segment {
  double x, y0, y1;
};
using Channel = std::vector<Segment>;

// matplotlib's _jet_data (matplotlib/_cm.py).
const std::array<Channel, 3>& jetData() {
  static const std::array<Channel, 3> jet = {
      Channel{{0.0, 0, 0}, {0.35, 0, 0}, {0.66, 1, 1}, {0.89, 1, 1}, {1.0, 0.5, 0.5}},
      Channel{{0.0, 0, 0}, {0.125, 0, 0}, {0.375, 1, 1}, {0.64, 1, 1}, {0.91, 0, 0}, {1.0, 0, 0}},
      Channel{{0.0, 0.5, 0.5}, {0.11, 1, 1}, {0.34, 1, 1}, {0.65, 0, 0}, {1.0, 0, 0}}};
  return jet;
}

// matplotlib's _create_lookup_table for N entries (gamma 1): entry i samples x = i / (N - 1);
// inside, the segment whose right end is the first x_k >= x, from y1 of its left end to y0 of
// its right end; the two ends take y1 of the first row and y0 of the last.
double sampled(const Channel& c, int i, int n) {
  if (i == 0) return c.front().y1;
  if (i == n - 1) return c.back().y0;
  const double x = static_cast<double>(i) / (n - 1);
  std::size_t k = 1;
  while (k + 1 < c.size() && c[k].x < x) ++k;
  const double t = (x - c[k - 1].x) / (c[k].x - c[k - 1].x);
  return std::clamp(c[k - 1].y1 + t * (c[k].y0 - c[k - 1].y1), 0.0, 1.0);
}

// matplotlib's Pastel2 (ColorBrewer's, a ListedColormap of 8): the default of
// TENSORBOARD.MODEL_VIS.COLORMAP, which colours the class labels of PySlowFast's visualiser.
constexpr std::uint8_t kPastel2Listed[8][3] = {{179, 226, 205}, {253, 205, 172}, {203, 213, 232},
                                               {244, 202, 228}, {230, 245, 201}, {255, 242, 174},
                                               {241, 226, 204}, {204, 204, 204}};

}  // namespace

std::array<float, 3> ColourMap::at(float v) const {
  if (!(v > 0.0f)) return table_.front();  // also NaN, which matplotlib draws as "bad"
  const int i = std::min(static_cast<int>(v * kEntries), kEntries - 1);
  return table_[static_cast<std::size_t>(i)];
}

std::array<std::uint8_t, 3> ColourMap::bytesAt(float v) const {
  const auto c = at(v);
  return {static_cast<std::uint8_t>(std::lround(c[0] * 255.0f)),
          static_cast<std::uint8_t>(std::lround(c[1] * 255.0f)),
          static_cast<std::uint8_t>(std::lround(c[2] * 255.0f))};
}

const std::vector<std::string>& colourMapNames() {
  static const std::vector<std::string> names = {"viridis", "plasma", "inferno", "magma", "jet"};
  return names;
}

const ColourMap* findColourMap(const std::string& name, std::string* error) {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<ColourMap>> built;
  const std::lock_guard<std::mutex> hold(lock);
  if (const auto it = built.find(name); it != built.end()) return it->second.get();
  const std::map<std::string, const float(*)[3]> listed = {{"viridis", kColourMap_viridis},
                                                           {"plasma", kColourMap_plasma},
                                                           {"inferno", kColourMap_inferno},
                                                           {"magma", kColourMap_magma}};
  auto map = std::make_unique<ColourMap>();
  map->name_ = name;
  if (const auto table = listed.find(name); table != listed.end()) {
    for (int i = 0; i < ColourMap::kEntries; ++i)
      for (int c = 0; c < 3; ++c)
        map->table_[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)] = table->second[i][c];
  } else if (name == "jet") {
    for (int i = 0; i < ColourMap::kEntries; ++i)
      for (int c = 0; c < 3; ++c)
        map->table_[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)] = static_cast<float>(
            sampled(jetData()[static_cast<std::size_t>(c)], i, ColourMap::kEntries));
  } else if (name == "Pastel2") {
    // A listed map of 8 takes entry floor(v * 8); 256 entries of 32 copies each look up the same.
    for (int i = 0; i < ColourMap::kEntries; ++i)
      for (int c = 0; c < 3; ++c)
        map->table_[static_cast<std::size_t>(i)][static_cast<std::size_t>(c)] =
            kPastel2Listed[i / 32][c] / 255.0f;
  } else {
    if (error) {
      std::string list;
      for (const auto& n : colourMapNames()) list += (list.empty() ? "" : ", ") + n;
      *error = "'" + name + "' is not a colour map built here; use one of " + list +
               " (or Pastel2, for class labels)";
    }
    return nullptr;
  }
  return built.emplace(name, std::move(map)).first->second.get();
}

}  // namespace amp::vis
