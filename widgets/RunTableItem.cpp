#include "RunTableItem.h"

#include <QVariant>

namespace amp::widgets {

bool RunTableItem::operator<(const QTableWidgetItem& other) const {
  const QVariant mine = data(kSortRole), theirs = other.data(kSortRole);
  if (mine.isValid() && theirs.isValid()) return mine.toDouble() < theirs.toDouble();
  if (mine.isValid() != theirs.isValid()) return mine.isValid();  // a value before none
  const QString a = text(), b = other.text();
  if (a.isEmpty() != b.isEmpty()) return !a.isEmpty();
  return a.compare(b, Qt::CaseInsensitive) < 0;
}

}  // namespace amp::widgets
