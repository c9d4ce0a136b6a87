#pragma once
// The precision audit's two per-layer charts side by side: each layer's activation headroom to
// float16's largest value, and the share of its gradient float16 flushes to zero or to
// subnormals at the report's loss scale. The x axis is the execution order, as in the table, so a
// bar and a row name the same layer. The charts do not own the selection (the table does): a
// click asks for a layer, and markLayer draws the table's choice as a dashed line in both.
//
//   auto* charts = new AuditCharts;                  // says "no audit yet" until a report
//   charts->showReport(report);
//   connect(charts, &AuditCharts::layerClicked, this, [=](int row) { table->selectRow(row); });
//   charts->markLayer(row);                          // after the table's selection changed
#include <QSplitter>

#include <vector>

#include "audit/PrecisionAudit.h"

class QCPItemStraightLine;
class QCustomPlot;
class QMouseEvent;

namespace amp::widgets {

class AuditCharts : public QSplitter {
  Q_OBJECT
 public:
  explicit AuditCharts(QWidget* parent = nullptr);

  /// Draws `report`'s layers and clears the mark.
  void showReport(const audit::PrecisionAuditReport& report);
  /// Marks the layer of `row` (the report's layer order) in both charts; -1 for none.
  void markLayer(int row);
  /// The marked layer's execution index, -1 for none.
  int markedLayer() const { return marked_; }

  QCustomPlot* headroomChart() const { return headroom_; }
  QCustomPlot* underflowChart() const { return underflow_; }

 signals:
  /// The user clicked the bars of the layer at `row` (the report's layer order).
  void layerClicked(int row);

 private:
  void plotHeadroom();  ///< the bars, onto charts showReport cleared
  void plotUnderflow();
  /// The report's layer under the mouse in `p`, -1 for none.
  int layerAt(QCustomPlot* p, QMouseEvent* e) const;
  void showToolTip(QCustomPlot* p, QMouseEvent* e) const;

  QCustomPlot* headroom_;
  QCustomPlot* underflow_;
  std::vector<QCPItemStraightLine*> markers_;  ///< one a chart: headroom, underflow
  std::vector<audit::LayerAudit> layers_;
  double reportScale_ = 65536;
  int marked_ = -1;
};

}  // namespace amp::widgets
