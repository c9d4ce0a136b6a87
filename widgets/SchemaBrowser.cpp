#include "SchemaBrowser.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <map>

#include "config/KeySchema.h"
#include "config/ValueFormat.h"

namespace amp::widgets {

SchemaBrowser::SchemaBrowser(QWidget* parent)
    : QWidget(parent), filter_(new QLineEdit), tree_(new QTreeWidget) {
  filter_->setPlaceholderText(tr("Filter keys and docs (e.g. AMP, lr, crop)"));
  filter_->setClearButtonEnabled(true);
  tree_->setColumnCount(3);
  tree_->setHeaderLabels({tr("Key"), tr("Type"), tr("Default")});
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tree_->setAlternatingRowColors(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(filter_);
  layout->addWidget(tree_);

  auto schema = config::KeySchema::builtin();
  std::map<std::string, QTreeWidgetItem*> groups;
  for (const auto& k : schema->keys()) {
    const std::string top =
        k.key.substr(0, k.key.find('.') == std::string::npos ? 0 : k.key.find('.'));
    const std::string groupName = top.empty() ? "(top level)" : top;
    QTreeWidgetItem*& group = groups[groupName];
    if (!group) {
      group = new QTreeWidgetItem(tree_, {QString::fromStdString(groupName)});
      group->setFirstColumnSpanned(true);
    }
    const std::string leaf = top.empty() ? k.key : k.key.substr(top.size() + 1);
    auto* item = new QTreeWidgetItem(
        group, {QString::fromStdString(leaf), QString::fromStdString(k.type.text()),
                QString::fromStdString(config::formatValue(k.defaultValue))});
    QString tip = QStringLiteral("<b>%1</b><br>%2")
                      .arg(QString::fromStdString(k.key).toHtmlEscaped(),
                           QString::fromStdString(k.doc).toHtmlEscaped());
    if (!k.constraint.empty())
      tip += "<br>" +
             tr("Allowed: %1").arg(QString::fromStdString(k.constraint.text()).toHtmlEscaped());
    if (k.status == config::KeyStatus::Inactive)
      tip += "<br><i>" + tr("Read, but not acted on by AMP Studio yet.") + "</i>";
    if (k.status == config::KeyStatus::Deprecated)
      tip += "<br><i>" + tr("Removed from PySlowFast; ignored.") + "</i>";
    if (k.status == config::KeyStatus::Refused)
      tip += "<br><i>" +
             tr("Asks for what AMP Studio does not run: training and testing refuse a value other "
                "than the default.") +
             "</i>";
    if (k.studioKey) tip += "<br><i>" + tr("AMP Studio key (not in PySlowFast).") + "</i>";
    for (int c = 0; c < 3; ++c) item->setToolTip(c, tip);
    item->setData(0, Qt::UserRole, QString::fromStdString(k.key));
    item->setData(0, Qt::UserRole + 1, QString::fromStdString(k.doc));
    if (k.status != config::KeyStatus::Active)
      item->setForeground(0, palette().color(QPalette::Disabled, QPalette::Text));
  }
  tree_->sortItems(0, Qt::AscendingOrder);
  connect(filter_, &QLineEdit::textChanged, this, &SchemaBrowser::setFilter);
  connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) {
    const QString key = item->data(0, Qt::UserRole).toString();
    if (!key.isEmpty()) emit keyActivated(key);
  });
}

void SchemaBrowser::setFilter(const QString& text) {
  if (filter_->text() != text) filter_->setText(text);
  for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
    QTreeWidgetItem* group = tree_->topLevelItem(g);
    int shown = 0;
    for (int i = 0; i < group->childCount(); ++i) {
      QTreeWidgetItem* item = group->child(i);
      const bool match =
          text.isEmpty() ||
          item->data(0, Qt::UserRole).toString().contains(text, Qt::CaseInsensitive) ||
          item->data(0, Qt::UserRole + 1).toString().contains(text, Qt::CaseInsensitive);
      item->setHidden(!match);
      shown += match ? 1 : 0;
    }
    group->setHidden(shown == 0);
    group->setExpanded(!text.isEmpty() && shown > 0);
  }
}

int SchemaBrowser::visibleKeyCount() const {
  int n = 0;
  for (int g = 0; g < tree_->topLevelItemCount(); ++g)
    for (int i = 0; i < tree_->topLevelItem(g)->childCount(); ++i)
      n += tree_->topLevelItem(g)->child(i)->isHidden() ? 0 : 1;
  return n;
}

}  // namespace amp::widgets
