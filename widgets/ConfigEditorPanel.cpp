#include "ConfigEditorPanel.h"

#include <algorithm>

#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTextCursor>
#include <QVBoxLayout>

#include "ConfigTextEdit.h"
#include "DiagnosticsView.h"
#include "PrecisionForm.h"
#include "PreflightRunner.h"
#include "config/YamlEdit.h"
#include "util/AtomicFile.h"

namespace amp::widgets {

QString countText(int n, const QString& one, const QString& many) {
  return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

QString problemsText(int errors, int warnings) {
  QStringList parts;
  if (errors)
    parts << countText(errors, ConfigEditorPanel::tr("error"), ConfigEditorPanel::tr("errors"));
  if (warnings)
    parts << countText(warnings, ConfigEditorPanel::tr("warning"),
                       ConfigEditorPanel::tr("warnings"));
  return parts.join(", ");
}

int ConfigEditorPanel::shownWarningCount() const {
  const config::Diagnostics shown = shownChecks();
  return static_cast<int>(std::count_if(shown.begin(), shown.end(),
                                        [](const config::Diagnostic& d) { return !d.isError(); }));
}

ConfigEditorPanel::ConfigEditorPanel(QWidget* parent)
    : QWidget(parent),
      edit_(new ConfigTextEdit),
      form_(new PrecisionForm),
      diagnostics_(new DiagnosticsView),
      summary_(new QLabel),
      preflight_(new PreflightRunner(this)) {
  summary_->setWordWrap(true);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(edit_);
  auto* bottom = new QWidget;
  auto* bottomLayout = new QVBoxLayout(bottom);
  bottomLayout->setContentsMargins(0, 4, 0, 0);
  bottomLayout->addWidget(summary_);
  bottomLayout->addWidget(diagnostics_);
  split->addWidget(bottom);
  split->setStretchFactor(
      0, 3);  // the problem list holds the pre-flight answers too: room for a few lines
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
  // The form gets the width it asks for (no horizontal scrolling on the first look), the YAML the
  // rest.
  sides->setSizes(
      {form_->sizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 2, 700});
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
  connect(preflight_, &PreflightRunner::resultsChanged, this, [this] {
    showProblems();
    emit preflightChanged();
  });
  connect(preflight_, &PreflightRunner::started, this, [this] {
    showProblems();
    emit preflightChanged();
  });
  validateNow();
}

void ConfigEditorPanel::setPreflightEnabled(bool on) {
  preflightOn_ = on;
  if (!on) preflight_->clear();
  validateNow();
}

int ConfigEditorPanel::preflightErrorCount() const {
  return preflightOn_ && config_ && !preflight_->pending() ? preflight_->errorCount() : 0;
}

bool ConfigEditorPanel::preflightPending() const {
  return preflightOn_ && config_ && preflight_->pending();
}

QString ConfigEditorPanel::startProblem() const {
  if (!config_) return tr("%1 in the config").arg(countText(errors_, tr("error"), tr("errors")));
  if (const int n = preflightErrorCount())
    return tr("%1 found before start")
        .arg(countText(n, tr("pre-flight error"), tr("pre-flight errors")));
  return {};
}

config::Diagnostics ConfigEditorPanel::shownChecks() const {
  if (!preflightOn_ || !config_) return lastDiagnostics_;
  return config::withoutRepeatsOf(lastDiagnostics_, preflight_->diagnostics());
}

config::Diagnostics ConfigEditorPanel::allDiagnostics() const {
  config::Diagnostics all = shownChecks();
  if (preflightOn_ && config_)
    all.insert(all.end(), preflight_->diagnostics().begin(), preflight_->diagnostics().end());
  return all;
}

namespace {
// The loader's limits, before the editor holds the text: a device (/dev/zero) or a FIFO would be
// read forever, and a video opened by mistake would fill the editor. "" when it may be read.
QString whyNotAConfig(const QString& path) {
  const QFileInfo info(path);
  if (info.exists() && !info.isFile())
    return ConfigEditorPanel::tr("%1 is not a regular file; a config is a YAML file.").arg(path);
  if (info.size() > static_cast<qint64>(config::kMaxConfigFileBytes))
    return ConfigEditorPanel::
        tr("%1 is %2 MiB; a config is a YAML file of a few KB (at most %3 MiB). Check the path.")
            .arg(path)
            .arg(info.size() >> 20)
            .arg(config::kMaxConfigFileBytes >> 20);
  return {};
}
}  // namespace

bool ConfigEditorPanel::newFromTemplate(const QString& templatePath, QString* error) {
  if (const QString why = whyNotAConfig(templatePath); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  QFile f(templatePath);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot open %1: %2").arg(templatePath, f.errorString());
    return false;
  }
  const QString text = QString::fromUtf8(f.readAll());
  path_.clear();
  templateDir_ = QFileInfo(templatePath).absolutePath();
  savedText_.clear();
  edit_->setPlainText(text);
  setDirty(true);
  emit filePathChanged(path_);
  validateNow();
  return true;
}

std::string ConfigEditorPanel::displayName() const {
  return path_.isEmpty() ? std::string("untitled.yaml") : path_.toStdString();
}

bool ConfigEditorPanel::openFile(const QString& path, QString* error) {
  if (const QString why = whyNotAConfig(path); !why.isEmpty()) {
    if (error) *error = why;
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  path_ = QFileInfo(path).absoluteFilePath();
  templateDir_.clear();
  savedText_ = QString::fromUtf8(f.readAll());
  edit_->setPlainText(savedText_);
  setDirty(false);
  emit filePathChanged(path_);
  validateNow();
  if (preflightOn_) preflight_->recheck();  // the disk may have changed since the last look
  return true;
}

bool ConfigEditorPanel::save(QString* error) {
  if (path_.isEmpty()) {
    if (error) *error = tr("This config has no file yet: use Save As.");
    return false;
  }
  const QString text = edit_->toPlainText();
  std::string why;
  if (!util::writeFileAtomically(path_.toStdString(), text.toStdString(), &why)) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  savedText_ = text;
  setDirty(false);
  if (preflightOn_) preflight_->recheck();
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

bool ConfigEditorPanel::applyKeyEdits(
    const std::vector<std::pair<std::string, config::Value>>& edits, QString* error) {
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

QString ConfigEditorPanel::text() const {
  return edit_->toPlainText();
}

std::optional<config::Config> ConfigEditorPanel::config() const {
  return config_;
}

void ConfigEditorPanel::setDirty(bool dirty) {
  if (dirty == dirty_) return;
  dirty_ = dirty;
  emit dirtyChanged(dirty_);
}

void ConfigEditorPanel::validateNow() {
  debounce_.stop();
  const std::string name = displayName();
  const std::string baseDir = !path_.isEmpty() ? QFileInfo(path_).absolutePath().toStdString()
                              : !templateDir_.isEmpty() ? templateDir_.toStdString()
                                                        : std::string(".");
  auto result = config::ConfigLoader().loadText(edit_->toPlainText().toStdString(), name, baseDir);
  lastDiagnostics_ = result.diagnostics;
  errors_ = static_cast<int>(config::countErrors(result.diagnostics));
  warnings_ = static_cast<int>(result.diagnostics.size()) - errors_;
  config_ = result.ok() ? std::optional<config::Config>(std::move(result.config)) : std::nullopt;

  if (config_) form_->setConfig(*config_);
  form_->setProblem(
      config_ ? QString()
              : tr("The YAML has %1 (listed under the text); the form shows the last valid values.")
                    .arg(countText(errors_, tr("error"), tr("errors"))));
  if (preflightOn_) {
    if (config_)
      preflight_->request(*config_, name);
    else
      preflight_->clear();
  }
  showProblems();
  emit validated(errors_, warnings_);
}

void ConfigEditorPanel::showProblems() {
  const std::string name = displayName();
  const config::Diagnostics all = allDiagnostics();
  std::vector<TextMarker> markers;
  for (const auto& d : all)
    if (d.where.file == name && d.where.line > 0)
      markers.push_back({d.where.line, d.where.column, d.isError(),
                         QString::fromStdString((d.key.empty() ? "" : d.key + ": ") + d.message)});
  edit_->setMarkers(std::move(markers));
  const config::Diagnostics checks = shownChecks();
  diagnostics_->setDiagnostics(
      checks, name, preflightOn_ && config_ ? preflight_->diagnostics() : config::Diagnostics{});
  const int warnings = static_cast<int>(checks.size()) - errors_;
  QString text;
  if (errors_ == 0 && warnings == 0)
    text = tr("Valid PySlowFast config.");
  else if (errors_ == 0)
    text = tr("Valid PySlowFast config, %1.").arg(problemsText(0, warnings));
  else
    text = problemsText(errors_, warnings) + '.';
  if (preflightOn_ && config_) {
    const int pfErrors = preflight_->errorCount();
    const int pfWarnings = static_cast<int>(preflight_->diagnostics().size()) - pfErrors;
    if (preflight_->pending())
      text += tr(" Checking this machine, the data and the files…");
    else if (pfErrors || pfWarnings)
      text += tr(" Before start: %1%2.")
                  .arg(problemsText(pfErrors, pfWarnings),
                       pfErrors ? tr(" (Start is off)") : QString());
    else
      text += tr(" Ready to train on this machine.");
    if (!preflight_->pending() && !preflight_->complete())
      text += tr(" Measuring the memory of one training step…");
  }
  summary_->setText(text);
}

}  // namespace amp::widgets
