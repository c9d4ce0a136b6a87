#include "RunListPanel.h"

#include <QBrush>
#include <QCheckBox>
#include <QColor>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>

#include "ConfigEditorPanel.h"
#include "MetricFormat.h"
#include "NoteTagsDialog.h"
#include "RunFileActions.h"
#include "RunTableItem.h"
#include "checkpoint/ImportedRun.h"
#include "runlog/RunDirectory.h"
#include "runlog/TensorBoardRun.h"
#include "util/AtomicFile.h"
#include "util/Duration.h"

namespace amp::widgets {
RunListPanel::RunListPanel(QWidget* parent)
    : QWidget(parent),
      header_(new QLabel),
      filter_(new QLineEdit),
      showArchived_(new QCheckBox(tr("Show archived"))),
      table_(new QTableWidget) {
  table_->setColumnCount(ColumnCount);
  table_->setHorizontalHeaderLabels({tr("Run"), tr("Status"), tr("Best val top-1"), tr("Time"),
                                     tr("Precision"), tr("Model"), tr("Peak memory"), tr("Devices"),
                                     tr("Started"), tr("Tags"), tr("Note")});
  table_->horizontalHeaderItem(BestTop1)->setToolTip(
      tr("The best validation top-1 accuracy; for a multi-label run (Charades), the best "
         "validation mAP (mean average precision), shown as \"mAP 41.3 %\""));
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSortIndicatorShown(true);
  // Column widths from the first 100 rows (the visible ones first), not every cell of a sweep.
  table_->horizontalHeader()->setResizeContentsPrecision(100);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setItemPrototype(new RunTableItem);
  // Newest first, as a sweep is watched; a click on a header sorts by that column.
  table_->sortByColumn(Started, Qt::DescendingOrder);
  table_->setSortingEnabled(true);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  table_->setToolTip(
      tr("Double-click a run to show it in the dashboard; select two or more to compare them. "
         "Click a column's header to sort by it."));
  filter_->setPlaceholderText(tr("Filter: bf16 status:finished SOLVER.BASE_LR<0.1 tag:sweep"));
  filter_->setToolTip(QString::fromUtf8(runlog::RunFilter::syntaxHelp()));
  filter_->setClearButtonEnabled(true);
  showArchived_->setToolTip(tr("Also list the runs archived to <runs folder>/archive/"));
  header_->setWordWrap(true);
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(filter_, 1);
  filterRow->addWidget(showArchived_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(header_);
  layout->addLayout(filterRow);
  layout->addWidget(table_);
  stretch_ = new QSpacerItem(0, 0, QSizePolicy::Minimum, QSizePolicy::Expanding);
  layout->addItem(stretch_);  // holds the text at the top while the table is hidden
  timer_.setInterval(2000);
  connect(&timer_, &QTimer::timeout, this, &RunListPanel::refresh);
  // Typing filters after a short pause: each keystroke of "SOLVER.BASE_LR" is not a filter.
  filterDelay_.setSingleShot(true);
  filterDelay_.setInterval(150);
  connect(filter_, &QLineEdit::textChanged, this, [this] { filterDelay_.start(); });
  connect(&filterDelay_, &QTimer::timeout, this, [this] { setFilterText(filter_->text()); });
  connect(showArchived_, &QCheckBox::toggled, this, &RunListPanel::setShowArchived);
  summaryTimer_.setInterval(250);
  connect(&summaryTimer_, &QTimer::timeout, this, &RunListPanel::collectSummaries);
  connect(table_, &QTableWidget::cellActivated, this, [this](int row, int) {
    emit runActivated(table_->item(row, 0)->data(Qt::UserRole).toString());
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this,
          [this] { emit selectionChanged(selectedRuns()); });
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QWidget::customContextMenuRequested, this, &RunListPanel::showContextMenu);
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
  // A TensorBoard logdir holds its runs in sub-folders, as `tensorboard --logdir` reads it.
  std::vector<std::string> runs;
  if (runlog::RunDirectory(abs.toStdString()).exists())
    runs.push_back(abs.toStdString());
  else
    runs = runlog::TensorBoardRun::findRunFolders(abs.toStdString());
  if (runs.empty()) runs.push_back(abs.toStdString());  // listed as unreadable, with the reason
  for (const auto& r : runs)
    if (!extra_.contains(QString::fromStdString(r))) extra_ << QString::fromStdString(r);
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

int RunListPanel::shownRunCount() const {
  int shown = 0;
  for (int r = 0; r < table_->rowCount(); ++r) shown += table_->isRowHidden(r) ? 0 : 1;
  return shown;
}

void RunListPanel::setFilterText(const QString& text) {
  if (filter_->text() != text) {
    const QSignalBlocker quiet(filter_);
    filter_->setText(text);
  }
  filterDelay_.stop();
  runFilter_ = runlog::RunFilter(text.toStdString());
  applyFilter();
}

void RunListPanel::setShowArchived(bool show) {
  if (showArchived_->isChecked() != show) {
    const QSignalBlocker quiet(showArchived_);
    showArchived_->setChecked(show);
  }
  refresh();
}

const runlog::RunSummary& RunListPanel::summaryOf(const QString& dir) {
  Cached& c = cache_[dir];
  if (c.metricsPath.isEmpty())
    c.metricsPath = QString::fromStdString(runlog::RunDirectory(dir.toStdString()).metricsPath());
  const QFileInfo info(c.metricsPath);
  const qint64 size = info.exists() ? info.size() : 0,
               mtime = info.exists() ? info.lastModified().toMSecsSinceEpoch() : 0;
  // Read again only when the log changed, on the loader's thread; until then the old figures.
  if ((size != c.size || mtime != c.mtime) && (size != c.askedSize || mtime != c.askedMtime)) {
    loader_.request(dir, size, mtime);
    c.askedSize = size;
    c.askedMtime = mtime;
    if (!summaryTimer_.isActive()) summaryTimer_.start();
  }
  return c.summary;
}

void RunListPanel::collectSummaries() {
  std::set<QString> changed;
  for (auto& r : loader_.takeResults()) {
    auto it = cache_.find(r.dir);
    if (it == cache_.end()) continue;  // no longer listed
    // Stale figures (a long live log read a while ago) are shown, and asked for again at the
    // next refresh: the loader reads the log anew once its interval has passed.
    it->second.size = r.stale ? -1 : r.size;
    it->second.mtime = r.mtime;
    if (r.stale) it->second.askedSize = -1;
    it->second.summary = std::move(r.summary);
    ++it->second.version;
    changed.insert(r.dir);
  }
  if (!loader_.busy()) summaryTimer_.stop();
  if (changed.empty()) return;
  const QSignalBlocker block(table_);
  table_->setSortingEnabled(false);
  const double now = runlog::unixTimeNow();
  for (int r = 0; r < table_->rowCount(); ++r) {
    const QString dir = table_->item(r, Name)->data(Qt::UserRole).toString();
    if (changed.count(dir)) fillRow(r, dir, metadataOf(dir), now);
  }
  nameBestColumn();
  table_->setSortingEnabled(true);
  if (!loader_.busy())  // the figures' columns fit what arrived
    for (int column : {int(BestTop1), int(PeakMemory)}) table_->resizeColumnToContents(column);
  applyFilter();
}

void RunListPanel::waitForSummaries() {
  while (!loader_.readsDone()) QThread::msleep(2);
  collectSummaries();  // all at once: one fill, sort and filter
}

void RunListPanel::nameBestColumn() {
  int multiLabelRuns = 0, rows = table_->rowCount();
  for (int r = 0; r < rows; ++r) {
    const auto it = cache_.find(table_->item(r, Name)->data(Qt::UserRole).toString());
    if (it != cache_.end() && it->second.meta &&
        (it->second.summary.multiLabel || it->second.meta->multiLabel))
      ++multiLabelRuns;
  }
  table_->horizontalHeaderItem(BestTop1)->setText(multiLabelRuns == 0 ? tr("Best val top-1")
                                                  : multiLabelRuns == rows
                                                      ? tr("Best val mAP")
                                                      : tr("Best val top-1 / mAP"));
}

RunListPanel::Cached& RunListPanel::metadataOf(const QString& dir) {
  Cached& c = cache_[dir];
  const QFileInfo info(QDir(dir).filePath(runlog::RunDirectory::kMetadataFile));
  // Ours: parsed again only when run.json changed (the trainer rewrites it at each heartbeat).
  // An imported run (no run.json) is described by its files each time: cheap, and it may move.
  const qint64 size = info.exists() ? info.size() : -2,
               mtime = info.exists() ? info.lastModified().toMSecsSinceEpoch() : 0;
  if (!info.exists() || size != c.metaSize || mtime != c.metaMtime ||
      (!c.meta && c.metaError.empty())) {
    c.metaError.clear();
    c.meta = runlog::RunDirectory(dir.toStdString()).readMetadata(&c.metaError);
    if (c.meta) checkpoint::describeImportedRun(*c.meta, dir.toStdString());
    c.metaSize = size;
    c.metaMtime = mtime;
    c.metricsPath.clear();  // summaryOf finds it again
    ++c.version;
  }
  return c;
}

void RunListPanel::setCell(int row, int column, const QString& text, const QVariant& sortKey,
                           const QString& toolTip) {
  QTableWidgetItem* item = table_->item(row, column);
  if (!item) {
    // Set up before it joins the table: each change of an item in the table signals the view.
    item = new RunTableItem(text);
    if (column == BestTop1 || column == PeakMemory || column == Time)
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (sortKey.isValid()) item->setData(RunTableItem::kSortRole, sortKey);
    item->setToolTip(toolTip);
    table_->setItem(row, column, item);
    return;
  }
  // Only what changed is set: a thousand rows re-set every 2 s would repaint them all.
  if (item->text() != text) item->setText(text);
  if (item->data(RunTableItem::kSortRole) != sortKey)
    item->setData(RunTableItem::kSortRole, sortKey);
  if (item->toolTip() != toolTip) item->setToolTip(toolTip);
}

void RunListPanel::fillRow(int row, const QString& dir, Cached& c, double now) {
  c.shownVersion = c.version;
  const bool archived = RunFileActions::isArchived(dir, folder_);
  const QString nativeDir = QDir::toNativeSeparators(dir);
  runlog::RunFilterRow& f = c.filterRow;
  std::map<std::string, std::string> config;  // read by applyFilter, kept across fills
  config.swap(f.config);
  const bool hasConfig = f.hasConfig;
  f = {};
  f.config.swap(config);
  f.hasConfig = hasConfig;
  f.dir = dir.toStdString();
  if (!c.meta) {
    const QString why = QString::fromStdString(c.metaError);
    setCell(row, Name, QDir(dir).dirName(), {}, why);
    setCell(row, Status, tr("unreadable"), {}, why);
    for (int col = BestTop1; col < ColumnCount; ++col) setCell(row, col, {}, {}, why);
    f.name = QDir(dir).dirName().toStdString();
    f.status = "unreadable";
  } else {
    const runlog::RunMetadata& meta = *c.meta;
    QString status = QString::fromLatin1(runlog::toString(meta.status));
    if (runlog::RunDirectory::isAbandoned(meta)) status = tr("abandoned");
    const double end = meta.endedAt > 0
                           ? meta.endedAt
                           : (meta.status == runlog::RunStatus::Running ? now : meta.updatedAt);
    const runlog::RunSummary& s = summaryOf(dir);
    const bool multiLabel = s.multiLabel || meta.multiLabel;
    const QString tip =
        nativeDir + (archived ? tr(" (archived)") : QString()) +
        (meta.error.empty() ? QString() : "\n" + QString::fromStdString(meta.error));
    const QString name =
        meta.name.empty() ? QDir(dir).dirName() : QString::fromStdString(meta.name);
    const double best = multiLabel ? (s.bestValMap ? *s.bestValMap * 100.0 : NAN)
                                   : (s.bestValTop1 ? *s.bestValTop1 : NAN);
    const auto number = [](double v) { return std::isfinite(v) ? QVariant(v) : QVariant(); };
    const double took = meta.startedAt > 0 ? end - meta.startedAt : NAN;
    setCell(row, Name, archived ? tr("%1 (archived)").arg(name) : name, {}, tip);
    setCell(row, Status, status, {}, tip);
    setCell(row, BestTop1, bestText(s, multiLabel), number(best),
            multiLabel ? tr("Multi-label run: the best validation mAP (mean average precision), in "
                            "percent")
                       : tr("The best validation top-1 accuracy"));
    setCell(row, Time,
            std::isfinite(took) ? QString::fromStdString(util::formatDuration(took)) : QString(),
            number(took), tip);
    setCell(row, Precision, QString::fromStdString(meta.precision), {}, tip);
    setCell(row, Model, QString::fromStdString(meta.model), {}, tip);
    setCell(row, PeakMemory, s.peakMemoryBytes ? formatMiB(*s.peakMemoryBytes) : QString(),
            s.peakMemoryBytes ? QVariant(*s.peakMemoryBytes) : QVariant(), tip);
    setCell(row, Devices, devicesLabel(meta), {}, QString::fromStdString(meta.device));
    setCell(row, Started,
            meta.startedAt > 0 ? QDateTime::fromSecsSinceEpoch(static_cast<qint64>(meta.startedAt))
                                     .toString("yyyy-MM-dd hh:mm")
                               : QString(),
            meta.startedAt > 0 ? QVariant(meta.startedAt) : QVariant(), tip);
    const QString tags = NoteTagsDialog::tagsText(meta.tags);
    setCell(row, Tags, tags, {}, tags.isEmpty() ? tip : tags);
    const QString note = QString::fromStdString(meta.note);
    setCell(row, Note, note.section('\n', 0, 0), {}, note.isEmpty() ? tip : note);
    const QColor statusColor = status == "failed"    ? QColor("#d62728")
                               : status == "running" ? QColor("#1f77b4")
                                                     : QColor();
    const QVariant foreground = statusColor.isValid() ? QVariant(QBrush(statusColor)) : QVariant();
    if (table_->item(row, Status)->data(Qt::ForegroundRole) != foreground)
      table_->item(row, Status)->setData(Qt::ForegroundRole, foreground);
    f.name = name.toStdString();
    f.status = status.toStdString();
    f.precision = meta.precision;
    f.model = meta.model;
    f.device = meta.device;
    f.host = meta.host;
    f.note = meta.note;
    f.tags = meta.tags;
    if (std::isfinite(best)) f.numbers["best"] = best;
    if (s.finalLoss) f.numbers["loss"] = *s.finalLoss;
    if (s.peakMemoryBytes) f.numbers["mem_gib"] = *s.peakMemoryBytes / (1024.0 * 1024 * 1024);
    if (std::isfinite(took)) f.numbers["hours"] = took / 3600.0;
    f.numbers["steps"] = static_cast<double>(s.steps);
  }
  table_->item(row, Name)->setData(Qt::UserRole, dir);
}

void RunListPanel::applyFilter() {
  for (int r = 0; r < table_->rowCount(); ++r) {
    const QString dir = table_->item(r, Name)->data(Qt::UserRole).toString();
    Cached& c = cache_[dir];
    if (runFilter_.needsConfig()) {
      // Read only when a term names a config key, and again only when the file changed. Only
      // the keys that differ from the schema's defaults are kept: a thousand full configs would
      // hold 70 MB of defaults the filter knows anyway.
      QFileInfo config(QDir(dir).filePath(runlog::RunDirectory::kConfigFile));
      if (!config.exists()) config = QFileInfo(QDir(dir).filePath("hparams.yaml"));  // Lightning
      const bool pyslowfast = c.meta && c.meta->extra.value("source_format", "") == "pyslowfast";
      const qint64 mtime = config.exists() ? config.lastModified().toMSecsSinceEpoch()
                           : pyslowfast    ? 1  // its checkpoint's cfg: read once
                                           : 0;
      if (mtime != c.configMtime) {
        c.filterRow.config.clear();
        c.filterRow.hasConfig = false;
        if (config.exists()) {
          c.filterRow.hasConfig = true;
          c.filterRow.config =
              runlog::RunFilter::readConfigValues(config.filePath().toStdString(), nullptr, false);
        } else if (pyslowfast) {
          if (const auto imported = checkpoint::readImportedRunConfig(dir.toStdString())) {
            c.filterRow.hasConfig = true;
            c.filterRow.config = runlog::RunFilter::configValuesFromText(
                imported->yaml, imported->checkpoint, nullptr, false);
          }
        }
        c.configMtime = mtime;
      }
    }
    table_->setRowHidden(r, !runFilter_.empty() && !runFilter_.matches(c.filterRow));
  }
  updateHeader();
}

void RunListPanel::updateHeader() {
  const QString shownFolder = QDir::toNativeSeparators(folder_);
  if (listed_ == 0) {
    header_->setText(
        tr("No runs in %1 yet.\n\nRuns you train appear here, as do runs ampstudio-cli writes to "
           "this folder; File > Open Run Folder adds one from elsewhere (a PySlowFast OUTPUT_DIR "
           "or a folder of TensorBoard event files too).")
            .arg(shownFolder));
    return;
  }
  QString text = tr("%1 in %2").arg(countText(listed_, tr("run"), tr("runs")), shownFolder);
  if (!runFilter_.empty()) text = tr("%1 of %2").arg(shownRunCount()).arg(text);
  for (const auto& p : runFilter_.problems())
    text += QStringLiteral("\n") + tr("Filter: %1").arg(QString::fromStdString(p));
  header_->setText(text);
}

void RunListPanel::refresh() {
  std::vector<std::string> runs = runlog::RunDirectory::findRuns(folder_.toStdString());
  if (showArchived_->isChecked() && !folder_.isEmpty())
    for (auto& r : runlog::RunDirectory::findRuns(
             QDir(folder_).filePath(RunFileActions::kArchiveFolder).toStdString()))
      runs.push_back(std::move(r));
  for (const QString& e : extra_)
    if (std::find(runs.begin(), runs.end(), e.toStdString()) == runs.end())
      runs.push_back(e.toStdString());
  listed_ = static_cast<int>(runs.size());
  // An empty table of its column headers only scrolls sideways in a narrow dock: show the text
  // alone.
  table_->setVisible(!runs.empty());
  // The filter and "Show archived" stay while they can bring runs back.
  const bool controls =
      !runs.empty() || !filter_->text().isEmpty() ||
      (!folder_.isEmpty() && QDir(folder_).exists(RunFileActions::kArchiveFolder));
  filter_->setVisible(controls);
  showArchived_->setVisible(controls);
  stretch_->changeSize(0, 0, QSizePolicy::Minimum,
                       runs.empty() ? QSizePolicy::Expanding : QSizePolicy::Fixed);
  layout()->invalidate();
  QSignalBlocker block(table_);
  // Rows stay where they are while cells change; the table sorts once at the end.
  table_->setSortingEnabled(false);
  std::set<QString> wanted;
  for (const auto& r : runs) wanted.insert(QString::fromStdString(r));
  std::map<QString, int> rowOf;
  for (int r = table_->rowCount() - 1; r >= 0; --r) {
    const QString dir = table_->item(r, Name)->data(Qt::UserRole).toString();
    if (!wanted.count(dir)) {
      table_->removeRow(r);
      cache_.erase(dir);
    }
  }
  for (int r = 0; r < table_->rowCount(); ++r)
    rowOf[table_->item(r, Name)->data(Qt::UserRole).toString()] = r;
  const bool rowsChanged = rowOf.size() != runs.size();
  // New runs get their rows in one go: inserting a thousand one by one costs the header view a
  // thousand updates.
  int nextRow = table_->rowCount();
  table_->setRowCount(nextRow + static_cast<int>(runs.size() - rowOf.size()));
  const double now = runlog::unixTimeNow();
  for (const auto& r : runs) {
    const QString dir = QString::fromStdString(r);
    const auto it = rowOf.find(dir);
    const bool isRow = it != rowOf.end();
    const int row = isRow ? it->second : nextRow++;
    Cached& c = metadataOf(dir);
    (void)summaryOf(dir);  // asks the loader when the log changed
    const bool running = c.meta && c.meta->status == runlog::RunStatus::Running;
    if (c.version != c.shownVersion || running || !isRow) fillRow(row, dir, c, now);
  }
  nameBestColumn();
  table_->setSortingEnabled(true);  // sorts by the header's column and order
  // Measuring every cell is the costly part at a thousand rows: only when rows came or went.
  if (rowsChanged) {
    table_->resizeColumnsToContents();
    table_->setColumnWidth(Note, std::min(table_->columnWidth(Note), 400));
  }
  block.unblock();
  applyFilter();
}

}  // namespace amp::widgets
