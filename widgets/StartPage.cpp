#include "StartPage.h"

#include <QApplication>
#include <QCommandLinkButton>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QVBoxLayout>
#include <algorithm>

namespace amp::widgets {

namespace {
// A template's entry: its name in bold, the line about it under it in the secondary text colour,
// wrapped to the list's width.
class NameAndSummaryDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text =
        index.data(Qt::DisplayRole).toString();  // opt.text has the newline as a line separator
    const QString name = text.section('\n', 0, 0), summary = text.section('\n', 1);
    opt.text.clear();
    const QWidget* w = opt.widget;
    QStyle* style = w ? w->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);  // background and selection
    const bool selected = opt.state & QStyle::State_Selected;
    const QRect r = opt.rect.adjusted(kPad, kPad, -kPad, -kPad);
    painter->save();
    QFont bold = opt.font;
    bold.setBold(true);
    painter->setFont(bold);
    painter->setPen(opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text));
    const int nameHeight = QFontMetrics(bold).height();
    painter->drawText(QRect(r.left(), r.top(), r.width(), nameHeight),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetrics(bold).elidedText(name, Qt::ElideMiddle, r.width()));
    if (!summary.isEmpty()) {
      painter->setFont(opt.font);
      painter->setPen(
          opt.palette.color(selected ? QPalette::HighlightedText : QPalette::PlaceholderText));
      painter->drawText(QRect(r.left(), r.top() + nameHeight, r.width(), r.height() - nameHeight),
                        Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, summary);
    }
    painter->restore();
  }

  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString summary = index.data(Qt::DisplayRole).toString().section('\n', 1);
    const int width =
        std::max(100, (opt.widget ? opt.widget->width() - 24 : opt.rect.width()) - 2 * kPad);
    QFont bold = opt.font;
    bold.setBold(true);
    int height = QFontMetrics(bold).height() + 2 * kPad;
    if (!summary.isEmpty())
      height += QFontMetrics(opt.font)
                    .boundingRect(QRect(0, 0, width, 10000), Qt::TextWordWrap, summary)
                    .height();
    return {width, height};
  }

 private:
  static constexpr int kPad = 4;
};

QLabel* heading(const QString& text) {
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped()));
  label->setContentsMargins(0, 8, 0, 2);
  return label;
}
}  // namespace

StartPage::StartPage(QWidget* parent)
    : QWidget(parent),
      demo_(new QCommandLinkButton(tr("Train the demo"))),
      open_(new QCommandLinkButton(tr("Open a config…"))),
      blank_(new QCommandLinkButton(tr("Start from PySlowFast's defaults"))),
      runFolder_(new QCommandLinkButton(tr("Open a run folder…"))),
      recent_(new QListWidget),
      templates_(new QListWidget),
      recentEmpty_(new QLabel(tr("None yet: configs you open are listed here."))),
      footnote_(new QLabel) {
  setObjectName("StartPage");
  demo_->setDescription(
      tr("A tiny X3D learns eight kinds of motion on generated clips, in mixed precision; "
         "its curves appear within a minute."));
  open_->setDescription(tr("A PySlowFast YAML config, unchanged (Ctrl+O)."));
  blank_->setDescription(
      tr("An empty config: every key at PySlowFast's default, to fill in the form."));
  runFolder_->setDescription(
      tr("Watch or inspect a run written here or by ampstudio-cli on a server."));
  connect(demo_, &QCommandLinkButton::clicked, this, &StartPage::demoRequested);
  connect(open_, &QCommandLinkButton::clicked, this, &StartPage::openRequested);
  connect(blank_, &QCommandLinkButton::clicked, this, &StartPage::blankRequested);
  connect(runFolder_, &QCommandLinkButton::clicked, this, &StartPage::runFolderRequested);
  connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    if (item->flags() & Qt::ItemIsEnabled) emit recentChosen(item->data(Qt::UserRole).toString());
  });
  templates_->setItemDelegate(new NameAndSummaryDelegate(templates_));
  templates_->setResizeMode(QListView::Adjust);  // the wrapped lines follow the list's width
  connect(templates_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    emit templateChosen(item->data(Qt::UserRole).toString());
  });
  recentEmpty_->setEnabled(false);
  footnote_->setWordWrap(true);
  footnote_->setEnabled(false);

  auto* title = new QLabel(
      tr("<h2>AMP Studio</h2><p>Mixed-precision training of video models (SlowFast, X3D, MViT, "
         "ResNet3D) from PySlowFast configs.</p>"));
  title->setWordWrap(true);

  auto* left = new QVBoxLayout;
  left->addWidget(heading(tr("Start")));
  for (QCommandLinkButton* b : {demo_, open_, blank_, runFolder_}) left->addWidget(b);
  left->addWidget(heading(tr("Recent configs")));
  left->addWidget(recentEmpty_, 1, Qt::AlignTop);
  left->addWidget(recent_, 1);

  auto* right = new QVBoxLayout;
  right->addWidget(heading(tr("New from a template")));
  right->addWidget(templates_, 1);

  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(24, 16, 24, 16);
  grid->setHorizontalSpacing(32);
  grid->addWidget(title, 0, 0, 1, 2);
  grid->addLayout(left, 1, 0);
  grid->addLayout(right, 1, 1);
  auto* hint = new QLabel(tr("Double-click a config, or select it and press Enter."));
  hint->setEnabled(false);
  grid->addWidget(hint, 2, 0, 1, 2);
  grid->addWidget(footnote_, 3, 0, 1, 2);
  grid->setColumnStretch(0, 3);
  grid->setColumnStretch(1, 2);
  grid->setRowStretch(1, 1);
  setRecent({});
}

QString StartPage::configSummary(const QString& path, int maxChars, QString* whole) {
  QFile f(path);
  QStringList lines;
  if (QFileInfo(path).isFile() &&
      f.open(QIODevice::ReadOnly | QIODevice::Text))  // not a FIFO: it would wait
    while (!f.atEnd()) {
      const QString line = QString::fromUtf8(f.readLine(4096)).trimmed();
      if (!line.startsWith('#')) break;
      lines << line.mid(1).trimmed();
    }
  const QString text = lines.join(' ').simplified();
  if (whole) *whole = text;
  int end = text.indexOf(QStringLiteral(". "));
  QString first = end < 0 ? text : text.left(end + 1);
  if (first.size() > maxChars) {
    const int cut = first.lastIndexOf(' ', maxChars - 1);
    first = first.left(cut > maxChars / 2 ? cut : maxChars - 1);
    while (!first.isEmpty() && (first.back().isPunct() || first.back().isSpace())) first.chop(1);
    first += QChar(0x2026);
  }
  return first;
}

void StartPage::setTemplates(const QStringList& paths, const QString& root) {
  templates_->clear();
  for (int i = 0; i < paths.size(); ++i) {
    const QString rel =
        root.isEmpty() ? QFileInfo(paths[i]).fileName() : QDir(root).relativeFilePath(paths[i]);
    QString whole;
    const QString summary = configSummary(paths[i], 110, &whole);
    const bool demo = rel.startsWith(QStringLiteral("demo/"));
    const QString name = !demo    ? rel
                         : i == 0 ? tr("%1 (the demo)").arg(rel)
                                  : tr("%1 (a demo: writes its data, then trains)").arg(rel);
    auto* item = new QListWidgetItem(summary.isEmpty() ? name : name + '\n' + summary);
    item->setData(Qt::UserRole, paths[i]);
    item->setToolTip(whole.isEmpty() ? paths[i]
                                     : QStringLiteral("<p>%1</p><p>%2</p>")
                                           .arg(paths[i].toHtmlEscaped(), whole.toHtmlEscaped()));
    templates_->addItem(item);
  }
}

void StartPage::setRecent(const QStringList& paths) {
  recent_->clear();
  for (const QString& path : paths) {
    const bool there = QFileInfo(path).isFile();
    auto* item = new QListWidgetItem(
        QStringLiteral("%1 — %2").arg(QFileInfo(path).fileName(), QFileInfo(path).absolutePath()));
    item->setData(Qt::UserRole, path);
    item->setToolTip(there ? path : tr("%1 (no longer there)").arg(path));
    if (!there) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    recent_->addItem(item);
  }
  recentEmpty_->setVisible(paths.isEmpty());
  recent_->setVisible(!paths.isEmpty());
}

void StartPage::setFootnote(const QString& text) {
  footnote_->setText(text);
}

}  // namespace amp::widgets
