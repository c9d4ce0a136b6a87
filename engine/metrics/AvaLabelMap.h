#pragma once
// AVA's action classes: the protobuf text label maps that AVA and ActivityNet ship, in both
// spellings,
//
//   item { name: "bend/bow (at the waist)" id: 1 }                   (ActivityNet 2018)
//   label { name: "bend/bow (at the waist)" label_id: 1 label_type: PERSON_MOVEMENT }   (AVA v2.2)
//
// one field a line or several, with `display_name` and `#` comments allowed. PySlowFast's
// ava_eval_helper.read_labelmap takes every "  id:" / "  label_id:" line (two spaces in) with the
// last "  name:" before it; for such files this reader finds the same ids and names, and it also
// reads the layouts read_labelmap misses (one line per item, other indentation), which would leave
// PySlowFast with no class at all.
//
//   std::string error;
//   const auto classes = amp::metrics::readAvaLabelMap(path, &error);
//   if (!classes) return fail(error);  // "labels.pbtxt:7: ..."
//   for (const AvaClass& c : *classes) use(c.id, c.name);
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amp::metrics {

struct AvaClass {
  int id = 0;        ///< `id` or `label_id`, at least 1
  std::string name;  ///< `name`, else `display_name` (read_labelmap never reads display_name)
};

/// The largest class id a label map may hold. AVA's is 80; the evaluator keeps an entry per id up
/// to the largest (ActivityNet's arrays are as long as the largest id), so a stranger's id of 10^9
/// must be refused rather than allocated.
inline constexpr int kAvaMaxClassId = 100000;

/// The classes of the label map file `path` in file order (an id may repeat; the evaluator takes
/// the last name, as label_map_util.create_category_index does). nullopt with `error` as
/// "path:line: what is wrong" for a file that cannot be read (more than 16 MiB, not a regular
/// file), a syntax error, an item without an id, an id below 1 (ActivityNet's "Classes should be
/// 1-indexed") or above kAvaMaxClassId, or a file with no item at all.
[[nodiscard]] std::optional<std::vector<AvaClass>> readAvaLabelMap(const std::string& path,
                                                                   std::string* error);

/// The same for text already in memory; `source` names it in errors.
[[nodiscard]] std::optional<std::vector<AvaClass>> parseAvaLabelMap(std::string_view text,
                                                                    const std::string& source,
                                                                    std::string* error);

}  // namespace amp::metrics
