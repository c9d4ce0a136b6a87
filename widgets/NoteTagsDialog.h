#pragma once
// "Note and tags…" on a run: a few words a researcher keeps with the run (why it was started,
// what went wrong) and tags that group a sweep ("sweep-3", "baseline"). Kept in run.json by
// runlog::RunDirectory::setNoteAndTags, so they travel with the folder to another machine.
//
//   widgets::NoteTagsDialog dialog(runName, note, tags, this);
//   if (dialog.exec() == QDialog::Accepted) save(dialog.note(), dialog.tags());
#include <QDialog>
#include <string>
#include <vector>

class QLineEdit;
class QPlainTextEdit;

namespace amp::widgets {

class NoteTagsDialog : public QDialog {
  Q_OBJECT
 public:
  NoteTagsDialog(const QString& runName, const std::string& note,
                 const std::vector<std::string>& tags, QWidget* parent = nullptr);
  std::string note() const;
  std::vector<std::string> tags() const;
  /// "sweep-3, baseline,, lr 0.1" -> {"sweep-3", "baseline", "lr 0.1"}: commas separate tags,
  /// surrounding spaces go, empty ones and repeats are dropped.
  static std::vector<std::string> parseTags(const QString& text);
  /// The tags as the run list's column and this dialog show them: "sweep-3, baseline".
  static QString tagsText(const std::vector<std::string>& tags);

 private:
  QPlainTextEdit* note_;
  QLineEdit* tags_;
};

}  // namespace amp::widgets
