#pragma once
// What the Config tab shows before any config is open: start the demo, open a config, start
// from a template or from PySlowFast's defaults, reopen a recent config, or open a run folder.
// A view only: it says what was chosen; the window does it.
#include <QWidget>

class QCommandLinkButton;
class QLabel;
class QListWidget;

namespace amp::widgets {

class StartPage : public QWidget {
  Q_OBJECT
 public:
  explicit StartPage(QWidget* parent = nullptr);

  /// The configs File > New offers; names are shown relative to `root` (the demo's, if first
  /// and under demo/, as the demo), each with the first sentence of its leading comment under it.
  void setTemplates(const QStringList& paths, const QString& root);
  /// What a config file says about itself: its leading '#' comment block as one paragraph
  /// (`whole`), and its first sentence, cut at a word near `maxChars` with an ellipsis. Empty when
  /// the file has no leading comment or cannot be read.
  static QString configSummary(const QString& path, int maxChars = 150, QString* whole = nullptr);
  /// Recently opened configs, newest first; those gone from the disk are shown but greyed out.
  void setRecent(const QStringList& paths);
  /// One line about this machine and the runs folder under the choices.
  void setFootnote(const QString& text);

  QCommandLinkButton* demoButton() const { return demo_; }
  QCommandLinkButton* openButton() const { return open_; }
  QCommandLinkButton* blankButton() const { return blank_; }
  QCommandLinkButton* runFolderButton() const { return runFolder_; }
  QListWidget* recentList() const { return recent_; }
  QListWidget* templateList() const { return templates_; }

 signals:
  void demoRequested();
  void openRequested();
  void blankRequested();
  void runFolderRequested();
  void recentChosen(const QString& path);
  void templateChosen(const QString& path);

 private:
  QCommandLinkButton* demo_;
  QCommandLinkButton* open_;
  QCommandLinkButton* blank_;
  QCommandLinkButton* runFolder_;
  QListWidget* recent_;
  QListWidget* templates_;
  QLabel* recentEmpty_;
  QLabel* footnote_;
};

}  // namespace amp::widgets
