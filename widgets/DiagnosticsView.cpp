#include "DiagnosticsView.h"

#include <QHeaderView>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTimer>

namespace amp::widgets {
namespace {
constexpr int kLineRole = Qt::UserRole;
constexpr int kColumnRole = Qt::UserRole + 1;

// A tree view sizes a wrapped row as if its column were unbounded; this delegate measures the
// text at the column's actual width, so a long message gets the lines it needs.
class WrappingDelegate : public QStyledItemDelegate {
 public:
  explicit WrappingDelegate(QTreeView* view) : QStyledItemDelegate(view), view_(view) {}
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    // The style's text margins and the focus frame take a few pixels of the column.
    const int width = view_->columnWidth(index.column()) - 16;
    if (width <= 0) return size;
    const QRect text = option.fontMetrics.boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap,
                                                       index.data().toString());
    size.setHeight(std::max(size.height(), text.height() + 4));
    return size;
  }

 private:
  QTreeView* view_;
};
}  // namespace

DiagnosticsView::DiagnosticsView(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(3);
  setHeaderLabels({tr("Where"), tr("Key"), tr("Problem")});
  setRootIsDecorated(false);
  // Messages say what to do: wrapped in full rather than cut off at the column's edge.
  setWordWrap(true);
  setUniformRowHeights(false);
  setTextElideMode(Qt::ElideNone);
  setItemDelegateForColumn(2, new WrappingDelegate(this));
  connect(header(), &QHeaderView::sectionResized, this, [this](int column) {
    if (column == 2) doItemsLayout();  // new row heights for the new width
  });
  setAlternatingRowColors(true);
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  header()->setStretchLastSection(true);
  connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) {
    const int line = item->data(0, kLineRole).toInt();
    if (line > 0) emit locationActivated(line, item->data(0, kColumnRole).toInt());
  });
}

void DiagnosticsView::setDiagnostics(const config::Diagnostics& diagnostics,
                                     const std::string& localFile,
                                     const config::Diagnostics& preflight) {
  clear();
  const QIcon errorIcon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
  const QIcon warningIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
  auto rows = config::sortedByLocation(diagnostics);
  const size_t firstPreflight = rows.size();
  for (auto& d : config::sortedByLocation(preflight)) rows.push_back(d);
  for (size_t i = 0; i < rows.size(); ++i) {
    const config::Diagnostic& d = rows[i];
    QString where;
    if (d.where.isCommandLine())
      where = tr("command line");
    else if (d.where.file == localFile)
      where = d.where.line > 0 ? tr("line %1").arg(d.where.line) : tr("this file");
    else
      where = QString::fromStdString(d.where.describe());
    if (i >= firstPreflight)
      where = d.where.file == localFile && d.where.line > 0 ? tr("pre-flight, %1").arg(where)
                                                            : tr("pre-flight");
    auto* item = new QTreeWidgetItem(
        this, {where, QString::fromStdString(d.key), QString::fromStdString(d.message)});
    item->setIcon(0, d.isError() ? errorIcon : warningIcon);
    item->setToolTip(2, QString::fromStdString(d.toString()));
    if (d.where.file == localFile) {
      item->setData(0, kLineRole, d.where.line);
      item->setData(0, kColumnRole, d.where.column);
    }
  }
  // Once the header has fitted the other columns to their contents, the rows get their heights
  // for the width the messages really have.
  QTimer::singleShot(0, this, [this] { doItemsLayout(); });
}

}  // namespace amp::widgets
