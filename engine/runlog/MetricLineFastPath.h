#pragma once
// The common metrics line read without building a JSON document: {"epoch":0.1,"kind":"train",
// "step":12,"time":3.4,"ts":1.79e9,"v":1,"values":{"loss":2.3,"lr":"nan"}}. Opening a sweep of a
// hundred runs of 10,000 steps parses a million such lines, and building each one's JSON tree
// was most of that time. Only a strict subset of JSON is taken (no escapes, no bytes >= 0x80,
// no arrays, no literals, no duplicate keys, no per_class lines, numbers an int64 or a finite
// double holds); anything else returns false and parseJsonLine reads the line in full, so both
// give the same event for every line (tests/engine/runlog/tst_metriclinefastpath.cpp).
//
//   MetricEvent e;
//   if (!parseCommonMetricLine(line, e)) { /* the full parser decides */ }
#include <optional>
#include <string>
#include <string_view>

#include "runlog/MetricEvent.h"

namespace amp::runlog {

/// True with `out` set when `line` is in the subset; false (out unspecified) otherwise.
bool parseCommonMetricLine(std::string_view line, MetricEvent& out);

/// parseJsonLine through a JSON tree always, without this fast path (what parseJsonLine does with
/// a line outside the subset; the tests check that both read every line alike). Declared here,
/// not in MetricEvent.h, which most of the engine includes.
std::optional<MetricEvent> parseJsonLineFully(const std::string& line);

}  // namespace amp::runlog
