#include "AuditFormat.h"

#include <cmath>

#include "MetricChart.h"
#include "audit/PrecisionAudit.h"

namespace amp::widgets::auditfmt {

QString number(double v) {
  if (std::isnan(v)) return QStringLiteral("–");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  return formatMetric(v);
}

QString scale(double v) {
  if (std::isnan(v)) return QStringLiteral("–");
  if (std::isinf(v)) return QStringLiteral("∞");
  return QString::fromStdString(audit::scaleText(v));
}

QString percent(double fraction) {
  if (fraction == 0) return QStringLiteral("0");
  if (fraction < 1e-5) return QStringLiteral("< 0.001");
  return QString::number(100.0 * fraction, 'f', fraction < 0.001 ? 3 : 1);
}

}  // namespace amp::widgets::auditfmt
