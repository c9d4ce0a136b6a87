#pragma once
// The YAML text view of a config: line numbers, syntax colours, and the engine's problems
// underlined at their line with the message as a tooltip.
#include <QPlainTextEdit>
#include <vector>

namespace amp::widgets {

/// A problem to show in the text: 1-based line and column (column 0 = whole line).
struct TextMarker {
  int line = 0;
  int column = 0;
  bool error = true;
  QString message;
};

class ConfigTextEdit : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit ConfigTextEdit(QWidget* parent = nullptr);

  void setMarkers(std::vector<TextMarker> markers);
  const std::vector<TextMarker>& markers() const { return markers_; }
  /// Moves the cursor to a 1-based line and column and shows it.
  void goTo(int line, int column);
  /// Messages of the markers on a 1-based line, one per line of text.
  QString messagesAt(int line) const;

  int gutterWidth() const;
  void paintGutter(QPaintEvent* event);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void updateGutterWidth();
  void updateGutter(const QRect& rect, int dy);
  void applyMarkers();

  QWidget* gutter_;
  std::vector<TextMarker> markers_;
};

}  // namespace amp::widgets
