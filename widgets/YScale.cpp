#include "YScale.h"

#include <algorithm>
#include <cmath>

#include "DecadeTicker.h"

namespace amp::widgets {

void applyYScale(QCPAxis& axis, YScale scale) {
  if (scale == YScale::Linear) {
    axis.setScaleType(QCPAxis::stLinear);
    axis.setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    axis.setNumberFormat("gb");
    return;
  }
  axis.setScaleType(QCPAxis::stLogarithmic);
  if (scale == YScale::Log2) {
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    ticker->setLogBase(2);
    ticker->setSubTickCount(0);
    axis.setTicker(ticker);
  } else {
    axis.setTicker(QSharedPointer<QCPAxisTicker>(new DecadeTicker));
  }
  axis.setNumberFormat("gb");
  axis.setNumberPrecision(6);
}

QCPRange paddedYRange(YScale scale, const QCPRange& values) {
  if (scale == YScale::Linear) {
    const double pad =
        values.size() > 0 ? values.size() * 0.06 : std::max(std::abs(values.upper) * 0.1, 1e-9);
    return QCPRange(values.lower - pad, values.upper + pad);
  }
  if (scale == YScale::Log10) {
    // The data with a 30% margin, and at least a factor 3 around its middle (a constant series
    // still gets three 1-2-5 ticks) rather than decades of empty axis.
    double lower = values.lower / 1.3, upper = values.upper * 1.3;
    if (upper / lower < 3) {
      const double mid = std::sqrt(lower * upper);
      lower = mid / std::sqrt(3.0);
      upper = mid * std::sqrt(3.0);
    }
    return QCPRange(lower, upper);
  }
  // At least a factor 4 either way, so a constant series (a loss scale of 1) shows real ticks.
  const bool narrow = values.upper / values.lower < 16;
  const double lower = narrow ? std::min(values.lower / 1.3, values.upper / 4) : values.lower / 1.3;
  const double upper = narrow ? std::max(values.upper * 1.3, values.lower * 4) : values.upper * 1.3;
  return QCPRange(lower, upper);
}

}  // namespace amp::widgets
