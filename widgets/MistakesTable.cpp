#include "MistakesTable.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

#include "metrics/ConfusionRecord.h"

namespace amp::widgets {
namespace {

constexpr int kClassRole = Qt::UserRole + 1;  // the class index of a true/predicted cell
constexpr int kSortRole = Qt::UserRole + 2;

// Rows of one true class, one predicted class and a path holding a text.
class MistakeFilter : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void set(int truth, int pred, const QString& text) {
    truth_ = truth;
    pred_ = pred;
    text_ = text;
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    const auto* m = sourceModel();
    const auto cls = [&](int col) { return m->index(row, col, parent).data(kClassRole).toInt(); };
    if (truth_ >= 0 && cls(MistakesTable::kTrueColumn) != truth_) return false;
    if (pred_ >= 0 && cls(MistakesTable::kPredColumn) != pred_) return false;
    return text_.isEmpty() || m->index(row, MistakesTable::kVideoColumn, parent)
                                  .data()
                                  .toString()
                                  .contains(text_, Qt::CaseInsensitive);
  }

 private:
  int truth_ = -1, pred_ = -1;
  QString text_;
};

QStandardItem* item(const QString& text, const QVariant& sort) {
  auto* i = new QStandardItem(text);
  i->setData(sort, kSortRole);
  i->setEditable(false);
  return i;
}

QStandardItem* score(double v) {
  auto* i = item(std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', 3),
                 std::isnan(v) ? -1.0 : v);
  i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return i;
}

QString csvField(QString s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
  return '"' + s.replace('"', "\"\"") + '"';
}

}  // namespace

MistakesTable::MistakesTable(QWidget* parent)
    : QWidget(parent),
      trueCombo_(new QComboBox),
      predCombo_(new QComboBox),
      text_(new QLineEdit),
      count_(new QLabel),
      items_(new QStandardItemModel(this)),
      proxy_(new MistakeFilter(this)),
      table_(new QTableView) {
  proxy_->setSourceModel(items_);
  proxy_->setSortRole(kSortRole);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setToolTip(
      tr("Double-click a video to preview its clip; right-click to predict it again with the "
         "run's checkpoint"));
  table_->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* preview = new QAction(tr("Preview the Clip"), table_);
  auto* predict = new QAction(tr("Predict Again"), table_);
  auto* copy = new QAction(tr("Copy Path"), table_);
  table_->addActions({preview, predict, copy});
  connect(preview, &QAction::triggered, this, &MistakesTable::previewCurrent);
  connect(predict, &QAction::triggered, this, &MistakesTable::predictCurrent);
  connect(copy, &QAction::triggered, this,
          [this] { QGuiApplication::clipboard()->setText(currentVideo()); });
  trueCombo_->setToolTip(tr("Only mistakes of this true class"));
  predCombo_->setToolTip(tr("Only mistakes predicted as this class"));
  text_->setPlaceholderText(tr("Filter videos by path"));
  text_->setClearButtonEnabled(true);
  for (QComboBox* c : {trueCombo_, predCombo_}) {
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(14);
    connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this, &MistakesTable::applyFilters);
  }
  connect(text_, &QLineEdit::textChanged, this, &MistakesTable::applyFilters);
  connect(table_, &QTableView::activated, this, &MistakesTable::previewCurrent);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("True:")));
  top->addWidget(trueCombo_);
  top->addWidget(new QLabel(tr("Predicted:")));
  top->addWidget(predCombo_);
  top->addWidget(text_, 1);
  top->addWidget(count_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(table_);
  setRecord(nullptr);
}

void MistakesTable::setRecord(const metrics::ConfusionRecord* r) {
  items_->clear();
  items_->setHorizontalHeaderLabels({tr("Video"), tr("True class"), tr("Predicted"), tr("Score"),
                                     tr("True class's score"), tr("True class's rank")});
  items_->horizontalHeaderItem(kScoreColumn)
      ->setToolTip(tr("The predicted class's probability (test: the mean over the views)"));
  items_->horizontalHeaderItem(kRankColumn)
      ->setToolTip(tr("Where the true class ranked among the scores (2: second best)"));
  total_ = r ? static_cast<int>(r->mistakes.size()) : 0;
  for (QComboBox* c : {trueCombo_, predCombo_}) {
    QSignalBlocker block(c);
    c->clear();
    c->addItem(tr("any class"), -1);
    if (r)
      for (int k = 0; k < r->matrix.classes(); ++k)
        c->addItem(QString::fromStdString(r->className(k)), k);
  }
  if (r)
    for (const auto& m : r->mistakes) {
      auto* truth = item(QString::fromStdString(r->className(m.truth)), m.truth);
      truth->setData(m.truth, kClassRole);
      auto* pred = item(QString::fromStdString(r->className(m.pred)), m.pred);
      pred->setData(m.pred, kClassRole);
      auto* rank =
          item(m.true_rank > 0 ? QString::number(m.true_rank) : QStringLiteral("–"), m.true_rank);
      rank->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      items_->appendRow({item(QString::fromStdString(m.video), QString::fromStdString(m.video)),
                         truth, pred, score(m.score), score(m.true_score), rank});
    }
  if (r && r->mistakes_left_out > 0)
    table_->setToolTip(
        tr("%1 more mistakes were not listed in the run's file").arg(r->mistakes_left_out));
  table_->sortByColumn(kScoreColumn, Qt::DescendingOrder);  // the most confident mistakes first
  table_->resizeColumnsToContents();
  applyFilters();
}

void MistakesTable::setCell(int truth, int pred) {
  {
    QSignalBlocker a(trueCombo_), b(predCombo_);
    trueCombo_->setCurrentIndex(std::max(0, trueCombo_->findData(truth)));
    predCombo_->setCurrentIndex(std::max(0, predCombo_->findData(pred)));
  }
  applyFilters();
}

void MistakesTable::setTextFilter(const QString& text) {
  text_->setText(text);  // textChanged filters
}

int MistakesTable::rows() const {
  return proxy_->rowCount();
}

void MistakesTable::applyFilters() {
  static_cast<MistakeFilter*>(proxy_)->set(trueCombo_->currentData().toInt(),
                                           predCombo_->currentData().toInt(), text_->text());
  count_->setText(rows() == total_ ? tr("%1 mistakes").arg(total_)
                                   : tr("%1 of %2 mistakes").arg(rows()).arg(total_));
}

QString MistakesTable::currentVideo() const {
  const QModelIndex at = table_->currentIndex();
  return at.isValid() ? proxy_->index(at.row(), kVideoColumn).data().toString() : QString();
}

void MistakesTable::previewCurrent() {
  if (const QString video = currentVideo(); !video.isEmpty()) emit previewRequested(video);
}

void MistakesTable::predictCurrent() {
  if (const QString video = currentVideo(); !video.isEmpty()) emit predictRequested(video);
}

QString MistakesTable::csv() const {
  QStringList lines;
  QStringList head;
  for (int c = 0; c < proxy_->columnCount(); ++c)
    head << csvField(proxy_->headerData(c, Qt::Horizontal).toString());
  lines << head.join(',');
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < proxy_->columnCount(); ++c)
      cells << csvField(proxy_->index(r, c).data().toString());
    lines << cells.join(',');
  }
  return lines.join('\n') + '\n';
}

}  // namespace amp::widgets
