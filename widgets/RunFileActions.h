#pragma once
// Putting a finished run away from the run list: to the desktop's trash (the freedesktop.org
// Trash, recoverable from the file manager; never a hard delete) or to <runs folder>/archive/,
// which the list hides unless "Show archived" is on. A run being written is refused: moving its
// folder under a live trainer would split its log.
//
//   QString error;
//   if (!widgets::RunFileActions::moveToTrash(dir, &error)) warn(error);
#include <QString>

namespace amp::widgets {

class RunFileActions {
 public:
  static constexpr const char* kArchiveFolder = "archive";

  /// Why the run cannot be moved now (a trainer holds its run.lock, or run.json says running and
  /// its process lives), naming who writes it; empty when it may be moved.
  static QString busyReason(const QString& runDir);
  /// QFile::moveToTrash: ~/.local/share/Trash (or the mount's .Trash-<uid>) with its .trashinfo.
  static bool moveToTrash(const QString& runDir, QString* error);
  /// Moves the run to <runsFolder>/archive/<name> (a suffix when the name is taken); the path it
  /// got in `movedTo`. Only runs directly in the runs folder are archived.
  static bool archive(const QString& runDir, const QString& runsFolder, QString* movedTo,
                      QString* error);
  /// Moves an archived run back to <runsFolder>/<name> (a suffix when the name is taken).
  static bool restore(const QString& runDir, const QString& runsFolder, QString* movedTo,
                      QString* error);
  static bool isArchived(const QString& runDir, const QString& runsFolder);
};

}  // namespace amp::widgets
