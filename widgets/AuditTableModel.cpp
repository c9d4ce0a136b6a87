#include "AuditTableModel.h"

#include <cmath>

#include "AuditFormat.h"

namespace amp::widgets {

using namespace auditfmt;

void AuditTableModel::setLayers(std::vector<audit::LayerAudit> layers, double reportScale) {
  beginResetModel();
  layers_ = std::move(layers);
  reportScale_ = reportScale;
  endResetModel();
}

int AuditTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(layers_.size());
}

int AuditTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  static const char* names[] = {
      "#",          "layer",     "dtype",      "headroom",  "zero in fp16", "overflow at",
      "bf16 error", "act |max|", "grad |max|", "subnormal", "op",           "why"};
  static const char* tips[] = {
      "Execution order in the forward pass",
      "Module path, or the operation after the last module before it",
      "The dtype of its output in the audited precision",
      "log2(65504 / act |max|): doublings left before float16 overflows (negative: it already "
      "does)",
      "Share of its nonzero gradient that float16 stores as 0 at the report loss scale (|g s| < "
      "2^-24), %",
      "The loss scale at which its gradient overflows float16 (65504 / grad |max|)",
      "||y_bf16 - y_fp32|| / ||y_fp32|| on the same batch and weights (earlier layers' errors "
      "included)",
      "Largest |activation| over the audited batches",
      "Largest |gradient| of its output and parameters, unscaled",
      "Share stored as a subnormal or 0 (|g s| < 2^-14), %",
      "The ATen operation",
      "Which autocast list decided that dtype"};
  if (role == Qt::DisplayRole) return QString::fromLatin1(names[section]);
  if (role == Qt::ToolTipRole) return QString::fromLatin1(tips[section]);
  return {};
}

QVariant AuditTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const auto& l = layer(index.row());
  switch (role) {
    case Qt::DisplayRole:
      return display(l, index.column());
    case Qt::UserRole:  // the sort key
      return sortKey(l, index.column());
    case Qt::TextAlignmentRole:
      if (index.column() >= Headroom && index.column() <= Subnormal16)
        return int(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::ForegroundRole:
      return foreground(l, index.column());
    case Qt::ToolTipRole:
      return toolTip(l);
  }
  return {};
}

QVariant AuditTableModel::display(const audit::LayerAudit& l, int column) const {
  switch (column) {
    case Index:
      return l.index;
    case Layer:
      return QString::fromStdString(l.name);
    case Op:
      return QString::fromStdString(l.op);
    case Dtype:
      return QString::fromStdString(l.dtype);
    case Why:
      return QString::fromStdString(l.why);
    case ActMax:
      return number(l.act_absmax);
    case Headroom:
      return number(l.headroom_log2);
    case Bf16Error:
      return std::isnan(l.bf16_rel_error) ? QStringLiteral("–") : percent(l.bf16_rel_error) + " %";
    case GradMax:
      return l.has_grad ? number(l.grad_absmax) : QStringLiteral("–");
    case Zero16:
      return l.has_grad ? percent(l.fp16_underflow_fraction) + " %" : QStringLiteral("–");
    case Subnormal16:
      return l.has_grad ? percent(l.fp16_subnormal_fraction) + " %" : QStringLiteral("–");
    case OverflowScale:
      return l.has_grad ? scale(l.overflow_scale) : QStringLiteral("–");
  }
  return {};
}

// Infinite headroom and overflow scales sort last ascending, a missing bf16 comparison or
// gradient first.
QVariant AuditTableModel::sortKey(const audit::LayerAudit& l, int column) const {
  switch (column) {
    case ActMax:
      return l.act_absmax;
    case Headroom:
      return std::isinf(l.headroom_log2) ? 1e300 : l.headroom_log2;
    case Bf16Error:
      return std::isnan(l.bf16_rel_error) ? -1.0 : l.bf16_rel_error;
    case GradMax:
      return l.has_grad ? l.grad_absmax : -1.0;
    case Zero16:
      return l.has_grad ? l.fp16_underflow_fraction : -1.0;
    case Subnormal16:
      return l.has_grad ? l.fp16_subnormal_fraction : -1.0;
    case OverflowScale:
      return l.has_grad && std::isfinite(l.overflow_scale) ? l.overflow_scale : 1e300;
    default:  // the index and the names sort as they read
      return display(l, column);
  }
}

QVariant AuditTableModel::foreground(const audit::LayerAudit& l, int column) const {
  if (column == Headroom && l.headroom_log2 < 0) return kOver;
  if (column == Headroom && l.headroom_log2 < kTightLog2) return kTight.darker(120);
  if (column == OverflowScale && l.has_grad && l.overflow_scale < reportScale_) return kOver;
  if (column == Zero16 && l.has_grad && l.fp16_underflow_fraction > kUnderflowWarn)
    return kTight.darker(120);
  if (l.nonfinite_grad) return kOver;
  return {};
}

QString AuditTableModel::toolTip(const audit::LayerAudit& l) {
  QString tip =
      QStringLiteral("<b>%1</b><br>%2 → %3 (%4)")
          .arg(QString::fromStdString(l.name).toHtmlEscaped(), QString::fromStdString(l.op),
               QString::fromStdString(l.dtype), QString::fromStdString(l.why).toHtmlEscaped());
  if (!l.module.empty() && l.module != l.name)
    tip += QStringLiteral("<br>module %1").arg(QString::fromStdString(l.module));
  if (l.nonfinite_grad) tip += tr("<br><b>inf/NaN in its gradient</b>");
  if (l.has_grad)
    tip += tr("<br>%1 of %2 gradient elements nonzero").arg(l.grad_nonzero).arg(l.grad_elements);
  return tip;
}

}  // namespace amp::widgets
