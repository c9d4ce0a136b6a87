#include "runlog/PerClassValues.h"

#include <cmath>

namespace amp::runlog {

std::optional<std::string> PerClassValues::check() const {
  if (split.empty()) return "no split";
  if (values.size() != classes.size())
    return std::to_string(values.size()) + " values for " + std::to_string(classes.size()) +
           " classes";
  if (!names.empty() && names.size() != classes.size())
    return std::to_string(names.size()) + " names for " + std::to_string(classes.size()) +
           " classes";
  if (!positives.empty() && positives.size() != classes.size())
    return std::to_string(positives.size()) + " positive counts for " +
           std::to_string(classes.size()) + " classes";
  return std::nullopt;
}

bool PerClassValues::operator==(const PerClassValues& o) const {
  if (split != o.split || metric != o.metric || classes != o.classes || names != o.names ||
      positives != o.positives || values.size() != o.values.size())
    return false;
  for (std::size_t i = 0; i < values.size(); ++i)  // NaN (no figure) equals NaN here
    if (!(values[i] == o.values[i] || (std::isnan(values[i]) && std::isnan(o.values[i]))))
      return false;
  return true;
}

}  // namespace amp::runlog
