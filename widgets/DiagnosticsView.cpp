#include "DiagnosticsView.h"

#include <QHeaderView>
#include <QStyle>

namespace amp::widgets {
namespace {
constexpr int kLineRole = Qt::UserRole;
constexpr int kColumnRole = Qt::UserRole + 1;
}  // namespace

DiagnosticsView::DiagnosticsView(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(3);
  setHeaderLabels({tr("Where"), tr("Key"), tr("Problem")});
  setRootIsDecorated(false);
  setUniformRowHeights(true);
  setAlternatingRowColors(true);
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  header()->setStretchLastSection(true);
  connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) {
    const int line = item->data(0, kLineRole).toInt();
    if (line > 0) emit locationActivated(line, item->data(0, kColumnRole).toInt());
  });
}

void DiagnosticsView::setDiagnostics(const config::Diagnostics& diagnostics, const std::string& localFile) {
  clear();
  const QIcon errorIcon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
  const QIcon warningIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
  for (const auto& d : config::sortedByLocation(diagnostics)) {
    QString where;
    if (d.where.isCommandLine()) where = tr("command line");
    else if (d.where.file == localFile) where = d.where.line > 0 ? tr("line %1").arg(d.where.line) : tr("this file");
    else where = QString::fromStdString(d.where.describe());
    auto* item = new QTreeWidgetItem(this, {where, QString::fromStdString(d.key), QString::fromStdString(d.message)});
    item->setIcon(0, d.isError() ? errorIcon : warningIcon);
    item->setToolTip(2, QString::fromStdString(d.toString()));
    if (d.where.file == localFile) {
      item->setData(0, kLineRole, d.where.line);
      item->setData(0, kColumnRole, d.where.column);
    }
  }
}

}  // namespace amp::widgets
