#include "CurveLegend.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>

namespace amp::widgets {

namespace {
// The entry's colour as the icon: a short thick line, as a curve looks.
QIcon swatchIcon(const QColor& color) {
  QPixmap pm(18, 12);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.fillRect(QRect(1, 4, 16, 4), color);
  return QIcon(pm);
}
}  // namespace

CurveLegend::CurveLegend(QWidget* parent)
    : QWidget(parent), filter_(new QLineEdit), list_(new QListWidget), shown_(new QLabel) {
  filter_->setPlaceholderText(tr("Filter curves"));
  filter_->setClearButtonEnabled(true);
  filter_->setToolTip(
      tr("Show in the list only the runs or groups whose name contains this "
         "text (e.g. BASE_LR=0.1, bf16)"));
  list_->setMouseTracking(true);
  list_->viewport()->installEventFilter(this);
  list_->setUniformItemSizes(true);
  auto* all = new QPushButton(tr("All"));
  auto* none = new QPushButton(tr("None"));
  all->setToolTip(tr("Show the curves of every entry listed"));
  none->setToolTip(tr("Hide the curves of every entry listed"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(all);
  buttons->addWidget(none);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(filter_);
  layout->addWidget(list_, 1);
  layout->addWidget(shown_);
  layout->addLayout(buttons);
  setMinimumWidth(240);  // "BASE_LR=0.0125, precision=bf16" whole

  connect(filter_, &QLineEdit::textChanged, this, &CurveLegend::applyFilter);
  connect(all, &QPushButton::clicked, this, [this] { setListedVisible(true); });
  connect(none, &QPushButton::clicked, this, [this] { setListedVisible(false); });
  connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    if (filling_) return;
    const int i = list_->row(item);
    const bool on = item->checkState() == Qt::Checked;
    if (i < 0 || i >= count() || entries_[static_cast<std::size_t>(i)].visible == on) return;
    entries_[static_cast<std::size_t>(i)].visible = on;
    updateCount();
    emit visibilityChanged(i, on);
  });
  connect(list_, &QListWidget::itemEntered, this, [this](QListWidgetItem* item) {
    const int i = list_->row(item);
    if (i != hovered_) emit hovered(hovered_ = i);
  });
}

void CurveLegend::setEntries(const std::vector<Entry>& entries) {
  entries_ = entries;
  filling_ = true;
  list_->clear();
  for (const Entry& e : entries_) {
    auto* item = new QListWidgetItem(swatchIcon(e.color), e.name);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(e.visible ? Qt::Checked : Qt::Unchecked);
    item->setToolTip(e.detail.isEmpty() ? e.name : QStringLiteral("%1 (%2)").arg(e.name, e.detail));
    list_->addItem(item);
  }
  filling_ = false;
  hovered_ = -1;
  applyFilter();
}

void CurveLegend::setEntryVisible(int i, bool on) {
  if (i < 0 || i >= count()) return;
  list_->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);  // itemChanged tells
}

bool CurveLegend::entryListed(int i) const {
  return i >= 0 && i < count() && !list_->item(i)->isHidden();
}

void CurveLegend::setListedVisible(bool on) {
  for (int i = 0; i < count(); ++i)
    if (entryListed(i)) setEntryVisible(i, on);
}

void CurveLegend::applyFilter() {
  const QString text = filter_->text().trimmed();
  for (int i = 0; i < count(); ++i)
    list_->item(i)->setHidden(!text.isEmpty() &&
                              !list_->item(i)->text().contains(text, Qt::CaseInsensitive));
  updateCount();
}

void CurveLegend::updateCount() {
  int listed = 0, visible = 0;
  for (int i = 0; i < count(); ++i) {
    listed += entryListed(i) ? 1 : 0;
    visible += entries_[static_cast<std::size_t>(i)].visible ? 1 : 0;
  }
  shown_->setText(tr("%1 of %2 shown").arg(visible).arg(count()) +
                  (listed < count() ? tr(", %1 listed").arg(listed) : QString()));
}

bool CurveLegend::eventFilter(QObject* watched, QEvent* event) {
  if (watched == list_->viewport() && event->type() == QEvent::Leave && hovered_ != -1)
    emit hovered(hovered_ = -1);
  return QWidget::eventFilter(watched, event);
}

}  // namespace amp::widgets
