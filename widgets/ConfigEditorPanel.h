#pragma once
// Edits one config file: a form for the mixed-precision and everyday keys beside the full YAML
// text, kept in sync both ways and validated by the engine as you type.
#include <QTimer>
#include <QWidget>
#include <optional>

#include "config/ConfigLoader.h"

class QLabel;

namespace amp::widgets {

/// "1 error", "3 errors".
QString countText(int n, const QString& one, const QString& many);

class ConfigTextEdit;
class DiagnosticsView;
class PrecisionForm;

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

  QString text() const;
  QString filePath() const { return path_; }
  bool isDirty() const { return dirty_; }
  int errorCount() const { return errors_; }
  int warningCount() const { return warnings_; }
  /// The config as resolved at the last validation; empty while the text has errors.
  std::optional<config::Config> config() const;
  const config::Diagnostics& diagnostics() const { return lastDiagnostics_; }
  ConfigTextEdit* textEdit() const { return edit_; }
  PrecisionForm* form() const { return form_; }

  /// Writes keys into the YAML text as one undoable edit (comments and layout kept), then
  /// validates. False with `error` when a key cannot be written (e.g. a flow-style section).
  bool applyKeyEdits(const std::vector<std::pair<std::string, config::Value>>& edits, QString* error = nullptr);
  DiagnosticsView* diagnosticsView() const { return diagnostics_; }

 public slots:
  /// Validates now instead of after the typing pause.
  void validateNow();

 signals:
  void dirtyChanged(bool dirty);
  void filePathChanged(const QString& path);
  void validated(int errors, int warnings);

 private:
  std::string displayName() const;
  void setDirty(bool dirty);

  ConfigTextEdit* edit_;
  PrecisionForm* form_;
  DiagnosticsView* diagnostics_;
  QLabel* summary_;
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
