#include "RunListPanel.h"

#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <set>

#include "ConfigEditorPanel.h"
#include "MetricChart.h"
#include "checkpoint/ImportedRun.h"
#include "runlog/RunDirectory.h"
#include "util/AtomicFile.h"
#include "util/Duration.h"

namespace amp::widgets {
RunListPanel::RunListPanel(QWidget* parent)
    : QWidget(parent), header_(new QLabel), table_(new QTableWidget) {
  table_->setColumnCount(ColumnCount);
  table_->setHorizontalHeaderLabels({tr("Run"), tr("Status"), tr("Best val top-1"), tr("Time"),
                                     tr("Precision"), tr("Model"), tr("Peak memory"), tr("Devices"),
                                     tr("Started")});
  table_->horizontalHeaderItem(BestTop1)->setToolTip(
      tr("The best validation top-1 accuracy; for a multi-label run (Charades), the best "
         "validation mAP (mean average precision), shown as \"mAP 41.3 %\""));
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSortingEnabled(false);
  table_->setAlternatingRowColors(true);
  table_->setToolTip(
      tr("Double-click a run to show it in the dashboard; select two or more to compare them."));
  header_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(header_);
  layout->addWidget(table_);
  stretch_ = new QSpacerItem(0, 0, QSizePolicy::Minimum, QSizePolicy::Expanding);
  layout->addItem(stretch_);  // holds the text at the top while the table is hidden
  timer_.setInterval(2000);
  connect(&timer_, &QTimer::timeout, this, &RunListPanel::refresh);
  connect(table_, &QTableWidget::cellActivated, this, [this](int row, int) {
    emit runActivated(table_->item(row, 0)->data(Qt::UserRole).toString());
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this,
          [this] { emit selectionChanged(selectedRuns()); });
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    QTableWidgetItem* item = table_->itemAt(pos);
    if (!item) return;
    const QString dir = table_->item(item->row(), 0)->data(Qt::UserRole).toString();
    QMenu menu(this);
    menu.addAction(tr("Show in Dashboard"), this, [this, dir] { emit runActivated(dir); });
    const QStringList selected = selectedRuns();
    menu.addAction(tr("Compare Selected (%1)").arg(selected.size()), this,
                   [this, selected] { emit compareRequested(selected); })
        ->setEnabled(selected.size() >= 2);
    menu.addAction(tr("Show Its Clips"), this, [this, dir] { emit clipsRequested(dir); });
    menu.addAction(tr("Audit Precision of Its Newest Checkpoint"), this,
                   [this, dir] { emit auditRequested(dir); });
    menu.addAction(tr("Predict Videos with Its Newest Checkpoint…"), this,
                   [this, dir] { emit predictRequested(dir); });
    menu.addSeparator();
    menu.addAction(tr("Export Metrics as CSV…"), this, [this, dir] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export metrics"),
                                                        QDir(dir).dirName() + "-metrics.csv",
                                                        tr("CSV files (*.csv)"));
      QString error;
      if (!path.isEmpty() && !exportRunCsv(dir, path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
    });
    menu.addAction(tr("Open Folder"), this,
                   [dir] { QDesktopServices::openUrl(QUrl::fromLocalFile(dir)); });
    menu.exec(table_->viewport()->mapToGlobal(pos));
  });
}

QString RunListPanel::bestText(const runlog::RunSummary& s, bool multiLabel) {
  // A multi-label run's figure names itself: in a mixed list "41.3 %" would read as top-1.
  if (multiLabel)
    return s.bestValMap ? tr("mAP %1 %").arg(*s.bestValMap * 100.0, 0, 'f', 1) : QString();
  return s.bestValTop1 ? QStringLiteral("%1 %").arg(*s.bestValTop1, 0, 'f', 1) : QString();
}

QString RunListPanel::devicesLabel(const runlog::RunMetadata& meta) {
  const QString kind =
      meta.device.rfind("cuda", 0) == 0 || meta.device.find("x cuda") != std::string::npos
          ? tr("GPU")
          : tr("CPU");
  if (meta.device.empty()) return {};
  return meta.worldSize > 1 ? QStringLiteral("%1 x %2").arg(meta.worldSize).arg(kind) : kind;
}

bool RunListPanel::exportRunCsv(const QString& runDir, const QString& path, QString* error) {
  runlog::RunRecord record;
  std::string why;
  if (!record.loadRunDirectory(runDir.toStdString(), &why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  if (util::writeFileAtomically(path.toStdString(), record.toCsv(), &why)) return true;
  if (error) *error = QString::fromStdString(why);
  return false;
}

void RunListPanel::setRunsFolder(const QString& folder) {
  folder_ = folder;
  refresh();
  timer_.start();
}

void RunListPanel::addRunDirectory(const QString& dir) {
  const QString abs = QDir(dir).absolutePath();
  if (!extra_.contains(abs)) extra_ << abs;
  refresh();
}

QStringList RunListPanel::selectedRuns() const {
  std::set<int> rows;
  for (const QModelIndex& i : table_->selectionModel()->selectedRows()) rows.insert(i.row());
  QStringList dirs;
  for (int r : rows) dirs << table_->item(r, 0)->data(Qt::UserRole).toString();
  return dirs;
}

void RunListPanel::selectRuns(const QStringList& dirs) {
  table_->clearSelection();
  table_->setSelectionMode(QAbstractItemView::MultiSelection);
  for (int r = 0; r < table_->rowCount(); ++r)
    if (dirs.contains(table_->item(r, 0)->data(Qt::UserRole).toString())) table_->selectRow(r);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
}

int RunListPanel::runCount() const {
  return table_->rowCount();
}

const runlog::RunSummary& RunListPanel::summaryOf(const QString& dir) {
  const QFileInfo info(
      QString::fromStdString(runlog::RunDirectory(dir.toStdString()).metricsPath()));
  Cached& c = cache_[dir];
  const qint64 size = info.exists() ? info.size() : 0,
               mtime = info.exists() ? info.lastModified().toMSecsSinceEpoch() : 0;
  if (size != c.size || mtime != c.mtime) {  // read again only when the log changed
    runlog::RunRecord record;
    (void)record.loadRunDirectory(dir.toStdString(), nullptr);  // unreadable: an empty summary
    c = {size, mtime, record.summary()};
  }
  return c.summary;
}

void RunListPanel::refresh() {
  std::vector<std::string> runs = runlog::RunDirectory::findRuns(folder_.toStdString());
  for (const QString& e : extra_)
    if (std::find(runs.begin(), runs.end(), e.toStdString()) == runs.end())
      runs.push_back(e.toStdString());
  const QString shownFolder = QDir::toNativeSeparators(folder_);
  header_->setText(
      runs.empty()
          ? tr("No runs in %1 yet.\n\nRuns you train appear here, as do runs ampstudio-cli writes "
               "to this "
               "folder; File > Open Run Folder adds one from elsewhere.")
                .arg(shownFolder)
          : tr("%1 in %2")
                .arg(countText(static_cast<int>(runs.size()), tr("run"), tr("runs")), shownFolder));
  // An empty table of nine column headers only scrolls sideways in a narrow dock: show the text
  // alone.
  table_->setVisible(!runs.empty());
  stretch_->changeSize(0, 0, QSizePolicy::Minimum,
                       runs.empty() ? QSizePolicy::Expanding : QSizePolicy::Fixed);
  layout()->invalidate();
  const QStringList selected = selectedRuns();
  QSignalBlocker block(table_);
  table_->setRowCount(static_cast<int>(runs.size()));
  const double now = runlog::unixTimeNow();
  int multiLabelRuns = 0;
  for (int row = 0; row < static_cast<int>(runs.size()); ++row) {
    const QString dir = QString::fromStdString(runs[static_cast<size_t>(row)]);
    std::string error;
    auto meta = runlog::RunDirectory(runs[static_cast<size_t>(row)]).readMetadata(&error);
    if (meta)
      checkpoint::describeImportedRun(
          *meta, runs[static_cast<size_t>(row)]);  // a PySlowFast run's model and precision
    QStringList cells;
    QString status;
    bool multiLabel = false;
    if (!meta) {
      cells = {QDir(dir).dirName(), tr("unreadable"), QString(), QString(), QString(),
               QString(),           QString(),        QString(), QString()};
    } else {
      status = QString::fromLatin1(runlog::toString(meta->status));
      if (runlog::RunDirectory::isAbandoned(*meta)) status = tr("abandoned");
      const double end = meta->endedAt > 0
                             ? meta->endedAt
                             : (meta->status == runlog::RunStatus::Running ? now : meta->updatedAt);
      const runlog::RunSummary& s = summaryOf(dir);
      multiLabel = s.multiLabel || meta->multiLabel;
      if (multiLabel) ++multiLabelRuns;
      const QString took = meta->startedAt > 0
                               ? QString::fromStdString(util::formatDuration(end - meta->startedAt))
                               : QString();
      cells = {meta->name.empty() ? QDir(dir).dirName() : QString::fromStdString(meta->name),
               status,
               bestText(s, multiLabel),
               took,
               QString::fromStdString(meta->precision),
               QString::fromStdString(meta->model),
               s.peakMemoryBytes ? formatMiB(*s.peakMemoryBytes) : QString(),
               devicesLabel(*meta),
               meta->startedAt > 0
                   ? QDateTime::fromSecsSinceEpoch(static_cast<qint64>(meta->startedAt))
                         .toString("yyyy-MM-dd hh:mm")
                   : QString()};
    }
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setToolTip(
          meta ? QDir::toNativeSeparators(dir) +
                     (meta->error.empty() ? QString() : "\n" + QString::fromStdString(meta->error))
               : QString::fromStdString(error));
      if (c == 0) item->setData(Qt::UserRole, dir);
      if (c == Devices && meta) item->setToolTip(QString::fromStdString(meta->device));
      if (c == BestTop1 && meta)
        item->setToolTip(multiLabel ? tr("Multi-label run: the best validation mAP (mean average "
                                         "precision), in percent")
                                    : tr("The best validation top-1 accuracy"));
      if (c == Status && status == "failed") item->setForeground(QColor("#d62728"));
      if (c == Status && status == "running") item->setForeground(QColor("#1f77b4"));
      if (c == BestTop1 || c == PeakMemory || c == Time)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(row, c, item);
    }
  }
  // The column is named for what its rows show: top-1, mAP (multi-label runs) or both.
  const int rowCount = table_->rowCount();
  table_->horizontalHeaderItem(BestTop1)->setText(multiLabelRuns == 0 ? tr("Best val top-1")
                                                  : multiLabelRuns == rowCount
                                                      ? tr("Best val mAP")
                                                      : tr("Best val top-1 / mAP"));
  table_->resizeColumnsToContents();
  block.unblock();
  if (!selected.isEmpty()) {
    QSignalBlocker again(table_);
    selectRuns(selected);
  }
}

}  // namespace amp::widgets
