#pragma once
// The precision audit's per-layer table: one row per audited layer in execution order, the
// deciding columns first. Display text and sort key are separate roles so that a sort by headroom
// or by lost gradient is numeric (Qt::UserRole), while the cells read as the summary does.
//
//   auto* model = new AuditTableModel(this);
//   proxy->setSourceModel(model);
//   proxy->setSortRole(Qt::UserRole);                 // numbers, not their text
//   model->setLayers(report.layers, report.summary.report_scale);
#include <QAbstractTableModel>

#include <vector>

#include "audit/PrecisionAudit.h"

namespace amp::widgets {

class AuditTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  /// Table columns, the deciding ones first.
  enum Column {
    Index,
    Layer,
    Dtype,
    Headroom,
    Zero16,
    OverflowScale,
    Bf16Error,
    ActMax,
    GradMax,
    Subnormal16,
    Op,
    Why,
    ColumnCount
  };

  using QAbstractTableModel::QAbstractTableModel;
  /// Shows `layers`; `reportScale` is the loss scale their overflow column is judged against.
  void setLayers(std::vector<audit::LayerAudit> layers, double reportScale);
  const audit::LayerAudit& layer(int row) const { return layers_[static_cast<std::size_t>(row)]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  QVariant data(const QModelIndex& index, int role) const override;

 private:
  QVariant display(const audit::LayerAudit& l, int column) const;
  QVariant sortKey(const audit::LayerAudit& l, int column) const;
  QVariant foreground(const audit::LayerAudit& l, int column) const;
  static QString toolTip(const audit::LayerAudit& l);

  std::vector<audit::LayerAudit> layers_;
  double reportScale_ = 65536;
};

}  // namespace amp::widgets
