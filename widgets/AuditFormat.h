#pragma once
// How the precision audit's numbers read in the studio: the table, the charts and the summary
// line must say the same value the same way (a headroom of -inf, a loss scale of 2^16, a share
// under 0.001 %), so the three share these few functions and colours instead of each its own.
//
//   table cell:  auditfmt::percent(layer.fp16_underflow_fraction) + " %"   // "0.3 %"
//   summary:     auditfmt::scale(summary.safe_scale_max)                    // "2^16"
#include <QColor>
#include <QString>

namespace amp::widgets::auditfmt {

inline const QColor kSafe{"#4c78a8"};       ///< headroom to spare
inline const QColor kTight{"#f58518"};      ///< under kTightLog2 doublings to spare
inline const QColor kOver{"#d62728"};       ///< overflows, lost gradient, an error
inline const QColor kSubnormal{"#bab0ac"};  ///< gradient kept only as a subnormal
constexpr double kTightLog2 = 3;            ///< under 8x headroom to 65504: shown as tight
constexpr double kUnderflowWarn = 0.01;     ///< the audit's "underflowing" threshold

/// A measured value: "–" for none (NaN), "∞" / "−∞", else as the metric charts print it.
QString number(double v);
/// A loss scale as the audit's report writes it (a power of two as 2^k), "–" or "∞".
QString scale(double v);
/// A fraction as a percentage without the sign: "0", "< 0.001", "0.004", "12.5".
QString percent(double fraction);

}  // namespace amp::widgets::auditfmt
