#pragma once
// How the studio writes a metric's number (trackers, tables, status bar).
#include <QString>

namespace amp::widgets {

/// A number for a tracker or a table: 4 significant digits, thousands plain.
///   formatMetric(2.0 / 3) == "0.6667", formatMetric(12345.6) == "12346"
QString formatMetric(double v);
/// Bytes as whole mebibytes ("380 MiB").
QString formatMiB(double bytes);

}  // namespace amp::widgets
