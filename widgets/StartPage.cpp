#include "StartPage.h"

#include <QCommandLinkButton>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

namespace amp::widgets {

namespace {
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
  demo_->setDescription(tr("A tiny X3D learns eight kinds of motion on generated clips, in mixed precision; "
                           "its curves appear within a minute."));
  open_->setDescription(tr("A PySlowFast YAML config, unchanged (Ctrl+O)."));
  blank_->setDescription(tr("An empty config: every key at PySlowFast's default, to fill in the form."));
  runFolder_->setDescription(tr("Watch or inspect a run written here or by ampstudio-cli on a server."));
  connect(demo_, &QCommandLinkButton::clicked, this, &StartPage::demoRequested);
  connect(open_, &QCommandLinkButton::clicked, this, &StartPage::openRequested);
  connect(blank_, &QCommandLinkButton::clicked, this, &StartPage::blankRequested);
  connect(runFolder_, &QCommandLinkButton::clicked, this, &StartPage::runFolderRequested);
  connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    if (item->flags() & Qt::ItemIsEnabled) emit recentChosen(item->data(Qt::UserRole).toString());
  });
  connect(templates_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { emit templateChosen(item->data(Qt::UserRole).toString()); });
  recentEmpty_->setEnabled(false);
  footnote_->setWordWrap(true);
  footnote_->setEnabled(false);

  auto* title = new QLabel(tr("<h2>AMP Studio</h2><p>Mixed-precision training of video models (SlowFast, X3D, MViT, "
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

void StartPage::setTemplates(const QStringList& paths, const QString& root) {
  templates_->clear();
  for (int i = 0; i < paths.size(); ++i) {
    const QString rel = root.isEmpty() ? QFileInfo(paths[i]).fileName() : QDir(root).relativeFilePath(paths[i]);
    auto* item = new QListWidgetItem(i == 0 && rel.startsWith(QStringLiteral("demo/")) ? tr("%1 (the demo)").arg(rel) : rel);
    item->setData(Qt::UserRole, paths[i]);
    item->setToolTip(paths[i]);
    templates_->addItem(item);
  }
}

void StartPage::setRecent(const QStringList& paths) {
  recent_->clear();
  for (const QString& path : paths) {
    const bool there = QFileInfo(path).isFile();
    auto* item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(QFileInfo(path).fileName(), QFileInfo(path).absolutePath()));
    item->setData(Qt::UserRole, path);
    item->setToolTip(there ? path : tr("%1 (no longer there)").arg(path));
    if (!there) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
    recent_->addItem(item);
  }
  recentEmpty_->setVisible(paths.isEmpty());
  recent_->setVisible(!paths.isEmpty());
}

void StartPage::setFootnote(const QString& text) { footnote_->setText(text); }

}  // namespace amp::widgets
