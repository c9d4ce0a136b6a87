#pragma once
// Syntax colours for PySlowFast YAML: keys, comments, strings, numbers, booleans and null.
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <vector>

namespace amp::widgets {

class YamlHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit YamlHighlighter(QTextDocument* document);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
    int group = 0;
  };
  std::vector<Rule> rules_;
  QTextCharFormat comment_;
};

}  // namespace amp::widgets
