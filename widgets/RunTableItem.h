#pragma once
// A run list cell that sorts by value: best accuracy, durations, memory and start times compare
// as numbers (text order would put "9.5 %" above "87.5 %" and "0:59:00" above "10:00:00").
// Cells without a value (a run with no validation yet) sort after those with one.
//
//   auto* item = new widgets::RunTableItem("1:02:05");
//   item->setData(widgets::RunTableItem::kSortRole, 3725.0);  // seconds
#include <QTableWidgetItem>

namespace amp::widgets {

class RunTableItem : public QTableWidgetItem {
 public:
  /// The number a cell sorts by; a cell without it sorts by its text, case-insensitively.
  static constexpr int kSortRole = Qt::UserRole + 1;

  using QTableWidgetItem::QTableWidgetItem;
  bool operator<(const QTableWidgetItem& other) const override;
};

}  // namespace amp::widgets
