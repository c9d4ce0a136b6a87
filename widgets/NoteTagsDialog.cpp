#include "NoteTagsDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <algorithm>

namespace amp::widgets {

NoteTagsDialog::NoteTagsDialog(const QString& runName, const std::string& note,
                               const std::vector<std::string>& tags, QWidget* parent)
    : QDialog(parent), note_(new QPlainTextEdit), tags_(new QLineEdit) {
  setWindowTitle(tr("Note and tags of %1").arg(runName));
  note_->setPlainText(QString::fromStdString(note));
  note_->setPlaceholderText(tr("Why this run, what you saw, what to try next"));
  tags_->setText(tagsText(tags));
  tags_->setPlaceholderText(tr("sweep-3, baseline"));
  tags_->setToolTip(tr("Tags separated by commas; filter the run list with tag:NAME"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* form = new QFormLayout(this);
  form->addRow(tr("Note"), note_);
  form->addRow(tr("Tags"), tags_);
  form->addRow(
      new QLabel(tr("Kept in the run's run.json; a trainer still writing it keeps them.")));
  form->addRow(buttons);
  resize(480, 300);
}

std::string NoteTagsDialog::note() const {
  return note_->toPlainText().trimmed().toStdString();
}

std::vector<std::string> NoteTagsDialog::tags() const {
  return parseTags(tags_->text());
}

std::vector<std::string> NoteTagsDialog::parseTags(const QString& text) {
  std::vector<std::string> out;
  for (const QString& part : text.split(',')) {
    const std::string tag = part.simplified().toStdString();
    if (!tag.empty() && std::find(out.begin(), out.end(), tag) == out.end()) out.push_back(tag);
  }
  return out;
}

QString NoteTagsDialog::tagsText(const std::vector<std::string>& tags) {
  QStringList parts;
  for (const auto& t : tags) parts << QString::fromStdString(t);
  return parts.join(QStringLiteral(", "));
}

}  // namespace amp::widgets
