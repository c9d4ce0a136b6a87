#include "config/ConfigDiff.h"

#include "config/ValueFormat.h"

namespace amp::config {

std::vector<KeyDifference> diffConfigs(const std::vector<const Config*>& configs) {
  std::vector<KeyDifference> out;
  if (configs.size() < 2) return out;
  for (const KeyDef& def : configs.front()->schema().keys()) {
    const Value& first = configs.front()->get(def.key);
    bool same = true;
    for (std::size_t i = 1; i < configs.size() && same; ++i)
      same = configs[i]->get(def.key) == first;
    if (same) continue;
    KeyDifference d{def.key, {}};
    for (const Config* c : configs) d.values.push_back(formatValue(c->get(def.key)));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace amp::config
