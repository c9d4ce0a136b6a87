#include "MetricFormat.h"

#include <cmath>

namespace amp::widgets {

QString formatMetric(double v) {
  if (std::isnan(v)) return QStringLiteral("nan");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  const double a = std::abs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e7)) return QString::number(v, 'e', 3);
  if (a >= 1000) return QString::number(v, 'f', 0);
  return QString::number(v, 'g', 4);
}

QString formatMiB(double bytes) {
  return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 0);
}

}  // namespace amp::widgets
