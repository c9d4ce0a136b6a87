#pragma once
// One line of a run's metrics log (docs/run-format.md): a plain value, no I/O.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runlog/PerClassValues.h"

namespace amp::runlog {

/// Kinds of events; readers keep events of kinds they do not know.
namespace kind {
constexpr const char* kTrain = "train";  ///< one optimizer step
constexpr const char* kEpoch = "epoch";  ///< end-of-epoch training averages
constexpr const char* kVal = "val";      ///< one validation pass
constexpr const char* kTest = "test";    ///< the final multi-view test
constexpr const char* kEvent = "event";  ///< something happened: `name` says what
/// one evaluation's figure per class (`perClass`): a multi-label or detection run's AP per class
constexpr const char* kPerClass = "per_class";
}  // namespace kind

struct MetricEvent {
  std::string kind = kind::kTrain;
  std::int64_t step = 0;                 ///< global optimizer step (0 before the first)
  double epoch = 0.0;                    ///< fractional epoch
  double time_s = 0.0;                   ///< seconds since the run (or its first start) began
  double unix_time_s = 0.0;              ///< wall clock, seconds since 1970
  std::map<std::string, double> values;  ///< name -> value; NaN and inf allowed
  std::string name;     ///< events: e.g. "scaler_backoff", "resumed", "decode_failure"
  std::string message;  ///< events: human-readable detail
  /// events: the layer concerned (module path), e.g. scaler_backoff's first layer, in backward
  /// order, whose gradient held inf/NaN; "" when none or unknown
  std::string layer;
  /// per_class lines: the split, the metric and the lists; absent in every other kind (and in a
  /// per_class line whose lists do not fit together: PerClassValues::check)
  std::optional<PerClassValues> perClass;

  std::optional<double> value(const std::string& key) const {
    auto it = values.find(key);
    return it == values.end() ? std::nullopt : std::optional<double>(it->second);
  }
  bool operator==(const MetricEvent& o) const;
};

constexpr int kMetricsFormatVersion = 1;

/// The event as one JSON line (no trailing newline). Non-finite values become "nan"/"inf"/"-inf".
std::string toJsonLine(const MetricEvent& e);
/// Parses one line; nullopt for text that is not a JSON object (e.g. a torn last line).
/// Unknown fields are ignored.
std::optional<MetricEvent> parseJsonLine(const std::string& line);

}  // namespace amp::runlog
