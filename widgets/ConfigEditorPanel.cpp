#include "ConfigEditorPanel.h"

#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextCursor>
#include <QSplitter>
#include <QVBoxLayout>

#include "ConfigTextEdit.h"
#include "DiagnosticsView.h"
#include "PrecisionForm.h"
#include "config/YamlEdit.h"
#include "util/AtomicFile.h"

namespace amp::widgets {

QString countText(int n, const QString& one, const QString& many) {
  return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

ConfigEditorPanel::ConfigEditorPanel(QWidget* parent)
    : QWidget(parent), edit_(new ConfigTextEdit), form_(new PrecisionForm), diagnostics_(new DiagnosticsView), summary_(new QLabel) {
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(edit_);
  auto* bottom = new QWidget;
  auto* bottomLayout = new QVBoxLayout(bottom);
  bottomLayout->setContentsMargins(0, 4, 0, 0);
  bottomLayout->addWidget(summary_);
  bottomLayout->addWidget(diagnostics_);
  split->addWidget(bottom);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumWidth(300);
  auto* sides = new QSplitter(Qt::Horizontal);
  sides->addWidget(scroll);
  sides->addWidget(split);
  sides->setStretchFactor(0, 0);
  sides->setStretchFactor(1, 1);
  sides->setSizes({380, 700});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(sides);
  connect(form_, &PrecisionForm::keysEdited, this, [this](const KeyEdits& edits) {
    QString error;
    if (!applyKeyEdits(edits, &error)) summary_->setText(error);
  });

  debounce_.setSingleShot(true);
  debounce_.setInterval(300);
  connect(&debounce_, &QTimer::timeout, this, &ConfigEditorPanel::validateNow);
  connect(edit_, &QPlainTextEdit::textChanged, this, [this] {
    setDirty(edit_->toPlainText() != savedText_);
    debounce_.start();
  });
  connect(diagnostics_, &DiagnosticsView::locationActivated, edit_, &ConfigTextEdit::goTo);
  validateNow();
}

std::string ConfigEditorPanel::displayName() const {
  return path_.isEmpty() ? std::string("untitled.yaml") : path_.toStdString();
}

bool ConfigEditorPanel::openFile(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  path_ = QFileInfo(path).absoluteFilePath();
  savedText_ = QString::fromUtf8(f.readAll());
  edit_->setPlainText(savedText_);
  setDirty(false);
  emit filePathChanged(path_);
  validateNow();
  return true;
}

bool ConfigEditorPanel::save(QString* error) {
  if (path_.isEmpty()) {
    if (error) *error = tr("This config has no file yet: use Save As.");
    return false;
  }
  const QString text = edit_->toPlainText();
  const std::string why = util::writeFileAtomically(path_.toStdString(), text.toStdString());
  if (!why.empty()) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  savedText_ = text;
  setDirty(false);
  return true;
}

bool ConfigEditorPanel::saveAs(const QString& path, QString* error) {
  const QString old = path_;
  path_ = QFileInfo(path).absoluteFilePath();
  if (!save(error)) {
    path_ = old;
    return false;
  }
  emit filePathChanged(path_);
  validateNow();  // a relative _BASE_ now resolves from the new folder
  return true;
}

void ConfigEditorPanel::revert() {
  edit_->setPlainText(savedText_);
  setDirty(false);
  validateNow();
}

void ConfigEditorPanel::setText(const QString& yaml) {
  edit_->setPlainText(yaml);
  validateNow();
}

bool ConfigEditorPanel::applyKeyEdits(const std::vector<std::pair<std::string, config::Value>>& edits, QString* error) {
  std::string text = edit_->toPlainText().toStdString();
  for (const auto& [key, value] : edits) {
    std::string why;
    auto next = config::setYamlKey(text, key, config::yamlScalarText(value), &why);
    if (!next) {
      if (error) *error = QString::fromStdString(why);
      return false;
    }
    text = std::move(*next);
  }
  const QString updated = QString::fromStdString(text);
  if (updated == edit_->toPlainText()) return true;
  QTextCursor cursor(edit_->document());
  const int scroll = edit_->verticalScrollBar()->value();
  cursor.beginEditBlock();
  cursor.select(QTextCursor::Document);
  cursor.insertText(updated);
  cursor.endEditBlock();
  edit_->verticalScrollBar()->setValue(scroll);
  validateNow();
  return true;
}

QString ConfigEditorPanel::text() const { return edit_->toPlainText(); }

std::optional<config::Config> ConfigEditorPanel::config() const { return config_; }

void ConfigEditorPanel::setDirty(bool dirty) {
  if (dirty == dirty_) return;
  dirty_ = dirty;
  emit dirtyChanged(dirty_);
}

void ConfigEditorPanel::validateNow() {
  debounce_.stop();
  const std::string name = displayName();
  const std::string baseDir = path_.isEmpty() ? std::string(".") : QFileInfo(path_).absolutePath().toStdString();
  auto result = config::ConfigLoader().loadText(edit_->toPlainText().toStdString(), name, baseDir);
  lastDiagnostics_ = result.diagnostics;
  errors_ = static_cast<int>(config::countErrors(result.diagnostics));
  warnings_ = static_cast<int>(result.diagnostics.size()) - errors_;
  config_ = result.ok() ? std::optional<config::Config>(std::move(result.config)) : std::nullopt;

  std::vector<TextMarker> markers;
  for (const auto& d : lastDiagnostics_)
    if (d.where.file == name && d.where.line > 0)
      markers.push_back({d.where.line, d.where.column, d.isError(),
                         QString::fromStdString((d.key.empty() ? "" : d.key + ": ") + d.message)});
  edit_->setMarkers(std::move(markers));
  diagnostics_->setDiagnostics(lastDiagnostics_, name);
  if (errors_ == 0 && warnings_ == 0) summary_->setText(tr("Valid PySlowFast config."));
  else summary_->setText(countText(errors_, tr("error"), tr("errors")) + ", " + countText(warnings_, tr("warning"), tr("warnings")));
  if (config_) form_->setConfig(*config_);
  form_->setProblem(config_ ? QString()
                            : tr("The YAML has %1 (listed under the text); the form shows the last valid values.")
                                  .arg(countText(errors_, tr("error"), tr("errors"))));
  emit validated(errors_, warnings_);
}

}  // namespace amp::widgets
