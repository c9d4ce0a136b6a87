#include "YamlHighlighter.h"

#include <QGuiApplication>
#include <QPalette>

namespace amp::widgets {
namespace {

// Colours readable on both light and dark palettes: mid lightness, moderate saturation.
QTextCharFormat makeFormat(const QColor& color, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(color);
  if (bold) f.setFontWeight(QFont::DemiBold);
  f.setFontItalic(italic);
  return f;
}

}  // namespace

YamlHighlighter::YamlHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
  const QColor key = dark ? QColor(0x7a, 0xb7, 0xff) : QColor(0x1f, 0x5f, 0xbf);
  const QColor number = dark ? QColor(0xf0, 0xb0, 0x60) : QColor(0xb0, 0x5a, 0x00);
  const QColor string = dark ? QColor(0x8f, 0xd4, 0x8f) : QColor(0x2e, 0x7d, 0x32);
  const QColor constant = dark ? QColor(0xd0, 0x9c, 0xff) : QColor(0x7b, 0x1f, 0xa2);
  rules_.push_back(
      {QRegularExpression(
           R"((?<![\w.])[-+]?(\d[\d_]*\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)(?![\w.]))"),
       makeFormat(number)});
  rules_.push_back({QRegularExpression(R"(\b(True|False|true|false|yes|no|on|off|None|null|~)\b)"),
                    makeFormat(constant)});
  rules_.push_back({QRegularExpression(R"("([^"\\]|\\.)*"|'[^']*')"), makeFormat(string)});
  rules_.push_back({QRegularExpression(R"(^\s*(_BASE_|[A-Za-z_][A-Za-z0-9_]*)\s*(?=:))"),
                    makeFormat(key, true), 1});
  comment_ = makeFormat(dark ? QColor(0x90, 0x90, 0x90) : QColor(0x80, 0x80, 0x80), false, true);
}

void YamlHighlighter::highlightBlock(const QString& text) {
  // A '#' starts a comment unless it sits inside quotes.
  int commentAt = -1;
  QChar quote;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (!quote.isNull()) {
      if (c == quote) quote = QChar();
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1].isSpace())) {
      commentAt = i;
      break;
    }
  }
  const QString code = commentAt >= 0 ? text.left(commentAt) : text;
  for (const auto& rule : rules_) {
    auto it = rule.pattern.globalMatch(code);
    while (it.hasNext()) {
      const auto m = it.next();
      setFormat(static_cast<int>(m.capturedStart(rule.group)),
                static_cast<int>(m.capturedLength(rule.group)), rule.format);
    }
  }
  if (commentAt >= 0) setFormat(commentAt, static_cast<int>(text.size()) - commentAt, comment_);
}

}  // namespace amp::widgets
