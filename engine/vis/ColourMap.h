#pragma once
// matplotlib's colour maps as Grad-CAM uses them (TENSORBOARD.MODEL_VIS.GRAD_CAM.COLORMAP,
// PySlowFast's plt.get_cmap(name)): a table of 256 RGB entries, a value v in [0, 1] taking entry
// min(floor(v * 256), 255) as matplotlib's Colormap.__call__ does. viridis, plasma, inferno and
// magma are their published tables (ColourMapTables.cpp); jet is sampled from matplotlib's
// segment definition as its LinearSegmentedColormap does; Pastel2 (the class-label colours of
// TENSORBOARD.MODEL_VIS.COLORMAP) is its listed map of 8. Torch-free.
//
//   std::string error;
//   const vis::ColourMap* map = vis::findColourMap("viridis", &error);
//   if (!map) return fail(error);
//   const std::array<float, 3> rgb = map->at(0.7f);   // in [0, 1]
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace amp::vis {

class ColourMap {
 public:
  static constexpr int kEntries = 256;
  const std::string& name() const { return name_; }
  /// The colour of `v` (clamped to [0, 1]; NaN as 0), each channel in [0, 1].
  std::array<float, 3> at(float v) const;
  /// The same, as bytes (x 255, rounded).
  std::array<std::uint8_t, 3> bytesAt(float v) const;
  /// Entry i of the table (0 .. 255).
  const std::array<float, 3>& entry(int i) const { return table_.at(static_cast<std::size_t>(i)); }

 private:
  friend const ColourMap* findColourMap(const std::string&, std::string*);
  std::string name_;
  std::array<std::array<float, 3>, kEntries> table_{};
};

/// The heat maps built, in the order a menu lists them: viridis (PySlowFast's default) first.
/// findColourMap also knows Pastel2, a map of class colours rather than of values.
const std::vector<std::string>& colourMapNames();

/// The map called `name` (as matplotlib spells it; "viridis"). nullptr with `error` listing the
/// maps built when it is not one of them.
const ColourMap* findColourMap(const std::string& name, std::string* error);

}  // namespace amp::vis
