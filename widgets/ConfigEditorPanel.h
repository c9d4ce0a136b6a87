#pragma once
// Edits one config file: a form for the mixed-precision and everyday keys beside the full YAML
// text, kept in sync both ways and validated by the engine as you type.
#include <QTimer>
#include <QWidget>
#include <optional>

#include "configfile/ConfigLoader.h"

class QLabel;

namespace amp::widgets {

/// "1 error", "3 errors".
QString countText(int n, const QString& one, const QString& many);
/// "1 error", "2 warnings", "1 error, 2 warnings": the counts that are not zero ("" when both are).
QString problemsText(int errors, int warnings);

class ConfigTextEdit;
class DiagnosticsView;
class PrecisionForm;
class PreflightRunner;

class ConfigEditorPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigEditorPanel(QWidget* parent = nullptr);

  /// Loads a file; false with `error` naming it when it cannot be read.
  bool openFile(const QString& path, QString* error);
  /// Writes the text to the current file (atomically); false with `error` when it cannot.
  bool save(QString* error);
  bool saveAs(const QString& path, QString* error);
  /// Back to the text on disk.
  void revert();
  /// Starts a new, unsaved config from text.
  void setText(const QString& yaml);
  /// A new, unsaved config with the text of `templatePath` (its _BASE_ still resolves from the
  /// template's folder). False with `error` when it cannot be read.
  bool newFromTemplate(const QString& templatePath, QString* error);

  QString text() const;
  QString filePath() const { return path_; }
  bool isDirty() const { return dirty_; }
  int errorCount() const { return errors_; }
  int warningCount() const { return warnings_; }
  /// The config check's warnings the problem list shows: without those the pre-flight reports as
  /// errors.
  int shownWarningCount() const;
  /// The config as resolved at the last validation; empty while the text has errors.
  std::optional<config::Config> config() const;
  const config::Diagnostics& diagnostics() const { return lastDiagnostics_; }
  ConfigTextEdit* textEdit() const { return edit_; }
  PrecisionForm* form() const { return form_; }

  /// Writes keys into the YAML text as one undoable edit (comments and layout kept), then
  /// validates. False with `error` when a key cannot be written (e.g. a flow-style section).
  bool applyKeyEdits(const std::vector<std::pair<std::string, config::Value>>& edits,
                     QString* error = nullptr);
  DiagnosticsView* diagnosticsView() const { return diagnostics_; }
  QLabel* summaryLabel() const { return summary_; }

  /// Pre-flight checks of the valid config on this machine (device, dataset, OUTPUT_DIR,
  /// checkpoints, memory), run off the GUI thread after each change and listed with the config's
  /// problems. Off by default (the studio turns it on).
  void setPreflightEnabled(bool on);
  PreflightRunner* preflight() const { return preflight_; }
  /// Pre-flight errors of the current config (0 while pending or off).
  int preflightErrorCount() const;
  /// The checks of the current config have not finished (Start waits for them).
  bool preflightPending() const;
  /// Why Start must stay off: config or pre-flight errors ("" when it may start, or while the
  /// pre-flight is pending: see preflightPending()).
  QString startProblem() const;
  /// Config and pre-flight problems as listed.
  config::Diagnostics allDiagnostics() const;
  /// The config's own problems as listed: without a warning the pre-flight checks repeat as an
  /// error of the same key (what train refuses).
  config::Diagnostics shownChecks() const;

 public slots:
  /// Validates now instead of after the typing pause.
  void validateNow();

 signals:
  void dirtyChanged(bool dirty);
  void filePathChanged(const QString& path);
  void validated(int errors, int warnings);
  /// Pre-flight results changed (or a check started).
  void preflightChanged();

 private:
  std::string displayName() const;
  void setDirty(bool dirty);
  void showProblems();

  ConfigTextEdit* edit_;
  PrecisionForm* form_;
  DiagnosticsView* diagnostics_;
  QLabel* summary_;
  PreflightRunner* preflight_;
  bool preflightOn_ = false;
  QString templateDir_;  ///< resolves _BASE_ of an unsaved config made from a template
  QTimer debounce_;
  QString path_;
  QString savedText_;
  bool dirty_ = false;
  int errors_ = 0;
  int warnings_ = 0;
  config::Diagnostics lastDiagnostics_;
  std::optional<config::Config> config_;
};

}  // namespace amp::widgets
