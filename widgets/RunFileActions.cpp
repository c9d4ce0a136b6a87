#include "RunFileActions.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "runlog/RunDirectory.h"
#include "runlog/RunLock.h"

namespace amp::widgets {
namespace {

// `name` in `folder`, or name-2, name-3 ... when taken.
QString freePathIn(const QDir& folder, const QString& name) {
  QString path = folder.filePath(name);
  for (int i = 2; QFileInfo::exists(path); ++i)
    path = folder.filePath(name + "-" + QString::number(i));
  return path;
}

bool moveRunFolder(const QString& from, const QString& toFolder, QString* movedTo, QString* error) {
  if (!QDir().mkpath(toFolder)) {
    if (error) *error = QObject::tr("cannot create the folder %1").arg(toFolder);
    return false;
  }
  const QString target = freePathIn(QDir(toFolder), QFileInfo(from).fileName());
  if (!QDir().rename(from, target)) {
    if (error)
      *error = QObject::tr("cannot move %1 to %2 (is it on another disk, or read-only?)")
                   .arg(from, target);
    return false;
  }
  if (movedTo) *movedTo = target;
  return true;
}

}  // namespace

QString RunFileActions::busyReason(const QString& runDir) {
  if (const auto holder = runlog::RunLock::probe(runDir.toStdString()))
    return QString::fromStdString(*holder);
  runlog::RunDirectory run(runDir.toStdString());
  const auto meta = run.readMetadata();
  if (meta && meta->status == runlog::RunStatus::Running &&
      !runlog::RunDirectory::isAbandoned(*meta))
    return QObject::tr("%1 is running (pid %2 on host %3); stop it first")
        .arg(runDir)
        .arg(meta->pid)
        .arg(QString::fromStdString(meta->host));
  return {};
}

bool RunFileActions::moveToTrash(const QString& runDir, QString* error) {
  if (const QString busy = busyReason(runDir); !busy.isEmpty()) {
    if (error) *error = busy;
    return false;
  }
  QFile folder(runDir);
  if (!folder.moveToTrash()) {
    if (error)
      *error = QObject::tr(
                   "cannot move %1 to the trash (%2); a folder on a disk without a trash "
                   "can be archived, or deleted in the file manager")
                   .arg(runDir, folder.errorString());
    return false;
  }
  return true;
}

bool RunFileActions::archive(const QString& runDir, const QString& runsFolder, QString* movedTo,
                             QString* error) {
  if (QDir(QFileInfo(runDir).absolutePath()) != QDir(runsFolder)) {
    if (error)
      *error = QObject::tr("%1 is not in the runs folder %2: only its runs are archived there")
                   .arg(runDir, runsFolder);
    return false;
  }
  if (const QString busy = busyReason(runDir); !busy.isEmpty()) {
    if (error) *error = busy;
    return false;
  }
  return moveRunFolder(runDir, QDir(runsFolder).filePath(kArchiveFolder), movedTo, error);
}

bool RunFileActions::restore(const QString& runDir, const QString& runsFolder, QString* movedTo,
                             QString* error) {
  if (!isArchived(runDir, runsFolder)) {
    if (error) *error = QObject::tr("%1 is not in the archive of %2").arg(runDir, runsFolder);
    return false;
  }
  return moveRunFolder(runDir, runsFolder, movedTo, error);
}

bool RunFileActions::isArchived(const QString& runDir, const QString& runsFolder) {
  return !runsFolder.isEmpty() &&
         QDir(QFileInfo(runDir).absolutePath()) == QDir(QDir(runsFolder).filePath(kArchiveFolder));
}

}  // namespace amp::widgets
