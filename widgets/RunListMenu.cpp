// The run list's context menu and the file actions behind it (note and tags, trash, archive):
// RunListPanel's rows, the panel's menu here so that RunListPanel.cpp stays the table.
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QTableWidget>
#include <QUrl>

#include "NoteTagsDialog.h"
#include "RunFileActions.h"
#include "RunListPanel.h"
#include "runlog/RunDirectory.h"

namespace amp::widgets {

void RunListPanel::showContextMenu(const QPoint& pos) {
  QTableWidgetItem* item = table_->itemAt(pos);
  if (!item) return;
  const QString dir = table_->item(item->row(), Name)->data(Qt::UserRole).toString();
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
  QAction* note = menu.addAction(tr("Note and Tags…"), this, [this, dir] { editNoteAndTags(dir); });
  const bool ours = QFileInfo::exists(QDir(dir).filePath(runlog::RunDirectory::kMetadataFile));
  note->setEnabled(ours);
  if (!ours) note->setToolTip(tr("An imported run is read-only"));
  menu.addAction(tr("Export Metrics as CSV…"), this, [this, dir] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export metrics"), QDir(dir).dirName() + "-metrics.csv", tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportRunCsv(dir, path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  });
  menu.addAction(tr("Open Folder"), this,
                 [dir] { QDesktopServices::openUrl(QUrl::fromLocalFile(dir)); });
  menu.addSeparator();
  // Putting runs away: the selected ones when the clicked run is among them, else that one.
  const QStringList targets = selected.contains(dir) ? selected : QStringList{dir};
  const auto forAll = [this, targets](bool (RunListPanel::*action)(const QString&, QString*),
                                      const QString& title) {
    QStringList errors;
    for (const QString& d : targets)
      if (QString error; !(this->*action)(d, &error)) errors << error;
    if (!errors.isEmpty()) QMessageBox::warning(this, title, errors.join("\n\n"));
  };
  const bool archived = RunFileActions::isArchived(dir, folder_);
  if (archived)
    menu.addAction(tr("Restore from Archive"), this,
                   [forAll] { forAll(&RunListPanel::restoreRun, tr("Restore failed")); });
  else
    menu.addAction(tr("Archive (%1)").arg(targets.size()), this,
                   [forAll] { forAll(&RunListPanel::archiveRun, tr("Archive failed")); })
        ->setToolTip(tr("Moves the run folder to %1/archive/; \"Show archived\" lists it again")
                         .arg(QDir::toNativeSeparators(folder_)));
  menu.addAction(tr("Move to Trash (%1)").arg(targets.size()), this, [this, targets, forAll] {
    if (QMessageBox::question(
            this, tr("Move to Trash"),
            tr("Move %n run folder(s) to the trash? They can be restored from the file manager's "
               "trash.",
               nullptr, static_cast<int>(targets.size()))) == QMessageBox::Yes)
      forAll(&RunListPanel::trashRun, tr("Move to Trash failed"));
  });
  menu.setToolTipsVisible(true);
  menu.exec(table_->viewport()->mapToGlobal(pos));
}

void RunListPanel::editNoteAndTags(const QString& dir) {
  runlog::RunDirectory run(dir.toStdString());
  std::string why;
  const auto meta = run.readMetadata(&why);
  if (!meta) {
    QMessageBox::warning(this, tr("Note and tags"), QString::fromStdString(why));
    return;
  }
  NoteTagsDialog dialog(QString::fromStdString(meta->name), meta->note, meta->tags, this);
  if (dialog.exec() != QDialog::Accepted) return;
  if (!run.setNoteAndTags(dialog.note(), dialog.tags(), &why))
    QMessageBox::warning(this, tr("Note and tags"), QString::fromStdString(why));
  refresh();
}

bool RunListPanel::trashRun(const QString& dir, QString* error) {
  if (!RunFileActions::moveToTrash(dir, error)) return false;
  extra_.removeAll(dir);
  refresh();
  return true;
}

bool RunListPanel::archiveRun(const QString& dir, QString* error) {
  if (!RunFileActions::archive(dir, folder_, nullptr, error)) return false;
  refresh();
  return true;
}

bool RunListPanel::restoreRun(const QString& dir, QString* error) {
  if (!RunFileActions::restore(dir, folder_, nullptr, error)) return false;
  refresh();
  return true;
}

}  // namespace amp::widgets
