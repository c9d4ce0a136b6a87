#pragma once
// The class names and class groups PySlowFast's TensorBoard figures use (slowfast/utils/misc.py
// get_class_names): the names of TENSORBOARD.CLASS_NAMES_PATH ({"name": index, ...}; this studio
// also takes one name per line, as data::readClassNames), a subset of classes
// (TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH, HISTOGRAM.SUBSET_PATH: a text file of class names,
// one per line) and parent categories (TENSORBOARD.CATEGORIES_PATH:
// {"parent": ["child name", ...], ...}). As PySlowFast, a name the class list does not hold is
// left out of a subset or a parent; unlike it, the names left out are kept in `unknown` so the
// caller can say so, and a file that cannot be read is an error naming it, not a crash later.
//
//   std::string error;
//   auto g = metrics::readClassGroups(cfg, &error);   // the config's TENSORBOARD paths
//   if (!g) return fail(error);                        // "cats.json: not valid JSON: ..."
//   for (const auto& [parent, children] : g->parents) draw(parent, children);
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace amp::config {
class Config;
}

namespace amp::metrics {

struct ClassGroups {
  std::map<int, std::string> names;  ///< class index -> name (empty: no names file)
  /// TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH's classes, in the file's order (none: not set).
  std::optional<std::vector<int>> subset;
  /// TENSORBOARD.HISTOGRAM.SUBSET_PATH's classes.
  std::optional<std::vector<int>> histogram_subset;
  /// TENSORBOARD.CATEGORIES_PATH: each parent with its children's indices, in the file's order.
  std::vector<std::pair<std::string, std::vector<int>>> parents;
  /// "file: name" of every name a subset or parent file gave that the class list lacks.
  std::vector<std::string> unknown;
  /// The file the names came from ("" when none).
  std::string names_file;
};

/// The names in `path` (readClassNames' formats). False with `error` naming the file.
[[nodiscard]] bool readNamesFile(const std::string& path, std::map<int, std::string>& names,
                                 std::string* error);
/// A subset file: class names, one per line (blank lines skipped), mapped through `names`.
[[nodiscard]] std::optional<std::vector<int>> readSubsetFile(
    const std::string& path, const std::map<int, std::string>& names,
    std::vector<std::string>& unknown, std::string* error);
/// A categories file ({"parent": ["child", ...], ...}) mapped through `names`, in file order.
[[nodiscard]] bool readParentsFile(const std::string& path, const std::map<int, std::string>& names,
                                   std::vector<std::pair<std::string, std::vector<int>>>& parents,
                                   std::vector<std::string>& unknown, std::string* error);

/// The groups `cfg` names: the names of TENSORBOARD.CLASS_NAMES_PATH, or of DEMO.LABEL_FILE_PATH
/// when that is empty (the demo's classes.txt), then the subsets and the categories, which need
/// the names (PySlowFast reads them only with CLASS_NAMES_PATH). nullopt with `error` naming the
/// key and the file when one is set but cannot be used.
std::optional<ClassGroups> readClassGroups(const config::Config& cfg, std::string* error);

struct ConfusionRecord;
/// Gives `r` the groups' class names (one per class of its matrix, "" where the file has none),
/// subset and parents, as the analysis file keeps them.
void applyClassGroups(ConfusionRecord& r, const ClassGroups& groups);

}  // namespace amp::metrics
