#include "ConfigTextEdit.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>

#include "YamlHighlighter.h"

namespace amp::widgets {
namespace {

class Gutter : public QWidget {
 public:
  explicit Gutter(ConfigTextEdit* edit) : QWidget(edit), edit_(edit) {}
  QSize sizeHint() const override { return {edit_->gutterWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { edit_->paintGutter(event); }

 private:
  ConfigTextEdit* edit_;
};

QColor markerColor(bool error) {
  return error ? QColor(0xd3, 0x2f, 0x2f) : QColor(0xe0, 0x9a, 0x00);
}

}  // namespace

ConfigTextEdit::ConfigTextEdit(QWidget* parent)
    : QPlainTextEdit(parent), gutter_(new Gutter(this)) {
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setTabStopDistance(fontMetrics().horizontalAdvance(' ') * 2);
  new YamlHighlighter(document());
  connect(this, &QPlainTextEdit::blockCountChanged, this, &ConfigTextEdit::updateGutterWidth);
  connect(this, &QPlainTextEdit::updateRequest, this, &ConfigTextEdit::updateGutter);
  updateGutterWidth();
}

int ConfigTextEdit::gutterWidth() const {
  int digits = 1;
  for (int n = std::max(1, blockCount()); n >= 10; n /= 10) ++digits;
  return 14 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
}

void ConfigTextEdit::updateGutterWidth() {
  setViewportMargins(gutterWidth(), 0, 0, 0);
}

void ConfigTextEdit::updateGutter(const QRect& rect, int dy) {
  if (dy)
    gutter_->scroll(0, dy);
  else
    gutter_->update(0, rect.y(), gutter_->width(), rect.height());
  if (rect.contains(viewport()->rect())) updateGutterWidth();
}

void ConfigTextEdit::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect cr = contentsRect();
  gutter_->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void ConfigTextEdit::paintGutter(QPaintEvent* event) {
  QPainter p(gutter_);
  const QPalette pal = palette();
  p.fillRect(event->rect(), pal.color(QPalette::AlternateBase));
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  const int lineHeight = fontMetrics().height();
  while (block.isValid() && top <= event->rect().bottom()) {
    const int line = block.blockNumber() + 1;
    if (block.isVisible()) {
      bool hasError = false, hasWarning = false;
      for (const auto& m : markers_)
        if (m.line == line) (m.error ? hasError : hasWarning) = true;
      if (hasError || hasWarning) {
        p.setBrush(markerColor(hasError));
        p.setPen(Qt::NoPen);
        p.drawEllipse(QRectF(3, top + lineHeight / 2.0 - 3, 6, 6));
      }
      p.setPen(pal.color(QPalette::PlaceholderText));
      p.drawText(0, top, gutter_->width() - 4, lineHeight, Qt::AlignRight, QString::number(line));
    }
    top += qRound(blockBoundingRect(block).height());
    block = block.next();
  }
}

void ConfigTextEdit::setMarkers(std::vector<TextMarker> markers) {
  markers_ = std::move(markers);
  applyMarkers();
  gutter_->update();
}

void ConfigTextEdit::applyMarkers() {
  QList<QTextEdit::ExtraSelection> selections;
  for (const auto& m : markers_) {
    const QTextBlock block = document()->findBlockByNumber(m.line - 1);
    if (!block.isValid()) continue;
    QTextEdit::ExtraSelection sel;
    sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    sel.format.setUnderlineColor(markerColor(m.error));
    QTextCursor c(block);
    // Underline from the column to the end of the line, or the whole text of the line.
    const QString text = block.text();
    int start = m.column > 0 ? m.column - 1 : static_cast<int>(text.size() - text.trimmed().size());
    start = std::clamp(start, 0, static_cast<int>(text.size()));
    c.setPosition(block.position() + start);
    c.setPosition(block.position() + static_cast<int>(text.size()), QTextCursor::KeepAnchor);
    if (!c.hasSelection()) c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    sel.cursor = c;
    selections.append(sel);
  }
  setExtraSelections(selections);
}

QString ConfigTextEdit::messagesAt(int line) const {
  QStringList out;
  for (const auto& m : markers_)
    if (m.line == line) out << m.message;
  return out.join('\n');
}

void ConfigTextEdit::goTo(int line, int column) {
  const QTextBlock block = document()->findBlockByNumber(std::max(0, line - 1));
  if (!block.isValid()) return;
  QTextCursor c(block);
  c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                 std::clamp(column - 1, 0, static_cast<int>(block.length()) - 1));
  setTextCursor(c);
  centerCursor();
  setFocus();
}

bool ConfigTextEdit::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QPoint pos = viewport()->mapFromGlobal(help->globalPos());
    const int line = cursorForPosition(pos).blockNumber() + 1;
    const QString text = messagesAt(line);
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QPlainTextEdit::event(event);
}

}  // namespace amp::widgets
