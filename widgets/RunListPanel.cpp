#include "RunListPanel.h"

#include <QDateTime>
#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ConfigEditorPanel.h"
#include "runlog/RunDirectory.h"

namespace amp::widgets {
namespace {

QString durationText(double seconds) {
  const auto s = static_cast<qint64>(std::max(0.0, seconds));
  return QStringLiteral("%1:%2:%3").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

RunListPanel::RunListPanel(QWidget* parent) : QWidget(parent), header_(new QLabel), table_(new QTableWidget) {
  table_->setColumnCount(6);
  table_->setHorizontalHeaderLabels({tr("Run"), tr("Status"), tr("Model"), tr("Precision"), tr("Started"), tr("Time")});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSortingEnabled(false);
  header_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(header_);
  layout->addWidget(table_);
  timer_.setInterval(2000);
  connect(&timer_, &QTimer::timeout, this, &RunListPanel::refresh);
  connect(table_, &QTableWidget::cellActivated, this, [this](int row, int) {
    emit runActivated(table_->item(row, 0)->data(Qt::UserRole).toString());
  });
}

void RunListPanel::setRunsFolder(const QString& folder) {
  folder_ = folder;
  refresh();
  timer_.start();
}

void RunListPanel::refresh() {
  const auto runs = runlog::RunDirectory::findRuns(folder_.toStdString());
  const QString shownFolder = QDir::toNativeSeparators(folder_);
  header_->setText(runs.empty() ? tr("No runs in %1 yet.").arg(shownFolder) : tr("%1 in %2").arg(countText(static_cast<int>(runs.size()), tr("run"), tr("runs")), shownFolder));
  table_->setRowCount(static_cast<int>(runs.size()));
  const double now = runlog::unixTimeNow();
  for (int row = 0; row < static_cast<int>(runs.size()); ++row) {
    const QString dir = QString::fromStdString(runs[static_cast<size_t>(row)]);
    std::string error;
    auto meta = runlog::RunDirectory(runs[static_cast<size_t>(row)]).readMetadata(&error);
    QStringList cells;
    if (!meta) {
      cells = {QDir(dir).dirName(), tr("unreadable"), QString(), QString(), QString(), QString()};
    } else {
      QString status = QString::fromLatin1(runlog::toString(meta->status));
      if (runlog::RunDirectory::isAbandoned(*meta)) status = tr("abandoned");
      const double end = meta->endedAt > 0 ? meta->endedAt : (meta->status == runlog::RunStatus::Running ? now : meta->updatedAt);
      cells = {meta->name.empty() ? QDir(dir).dirName() : QString::fromStdString(meta->name), status,
               QString::fromStdString(meta->model), QString::fromStdString(meta->precision),
               meta->startedAt > 0 ? QDateTime::fromSecsSinceEpoch(static_cast<qint64>(meta->startedAt)).toString("yyyy-MM-dd hh:mm") : QString(),
               meta->startedAt > 0 ? durationText(end - meta->startedAt) : QString()};
    }
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setToolTip(meta ? QDir::toNativeSeparators(dir) : QString::fromStdString(error));
      if (c == 0) item->setData(Qt::UserRole, dir);
      table_->setItem(row, c, item);
    }
  }
  table_->resizeColumnsToContents();
}

}  // namespace amp::widgets
