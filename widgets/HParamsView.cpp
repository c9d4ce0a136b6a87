#include "HParamsView.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "ParallelCoordinates.h"

namespace amp::widgets {

namespace {

constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kRunRole = Qt::UserRole + 2;
// Runs without a value sort below every number.
constexpr double kMissing = -std::numeric_limits<double>::max();

QString csvCell(QString s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
  return '"' + s.replace('"', "\"\"") + '"';
}

}  // namespace

HParamsView::HParamsView(QWidget* parent)
    : QWidget(parent),
      metricBox_(new QComboBox),
      keyBox_(new QComboBox),
      note_(new QLabel),
      model_(new QStandardItemModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      view_(new QTableView),
      scatter_(new QCustomPlot),
      parallel_(new ParallelCoordinates) {
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(kSortRole);
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->verticalHeader()->hide();
  metricBox_->setToolTip(
      tr("The result on the scatter's y axis and the parallel plot's last axis"));
  keyBox_->setToolTip(tr("The config key on the scatter's x axis"));
  note_->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Result:")));
  bar->addWidget(metricBox_);
  bar->addWidget(new QLabel(tr("Scatter against:")));
  bar->addWidget(keyBox_);
  bar->addWidget(note_, 1);
  auto* plots = new QSplitter(Qt::Horizontal);
  plots->addWidget(scatter_);
  plots->addWidget(parallel_);
  plots->setStretchFactor(0, 2);
  plots->setStretchFactor(1, 3);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(view_);
  split->addWidget(plots);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
  scatter_->setInteractions(QCP::iSelectPlottables | QCP::iMultiSelect);
  scatter_->setMultiSelectModifier(Qt::ControlModifier);
  connect(metricBox_, qOverload<int>(&QComboBox::activated), this, [this] {
    plotScatter();
    parallel_->setTable(table_, colours_, metric());
    parallel_->showSelection(selection_);
  });
  connect(keyBox_, qOverload<int>(&QComboBox::activated), this, &HParamsView::plotScatter);
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    if (syncing_) return;
    QList<int> runs;
    for (const QModelIndex& row : view_->selectionModel()->selectedRows())
      runs << row.data(kRunRole).toInt();
    std::sort(runs.begin(), runs.end());
    select(runs, true);
  });
  connect(parallel_, &ParallelCoordinates::selectionChanged, this,
          [this](const QList<int>& runs) { select(runs, true, /*toParallel=*/false); });
  connect(scatter_, &QCustomPlot::plottableClick, this,
          [this](QCPAbstractPlottable* p, int, QMouseEvent* e) {
            const int run = p->property("run").toInt();
            QList<int> runs = (e->modifiers() & Qt::ControlModifier) ? selection_ : QList<int>{};
            if (runs.contains(run))
              runs.removeAll(run);
            else
              runs << run;
            std::sort(runs.begin(), runs.end());
            select(runs, true);
          });
}

int HParamsView::metric() const {
  return metricBox_->currentIndex();
}

void HParamsView::setTable(runlog::HParamTable table, std::vector<QColor> colours) {
  const QString metricId = metricBox_->currentData().toString();
  // A reload of the same runs keeps the key shown; other runs get a fresh choice below.
  const QString key = table.runCount() == table_.runCount() ? keyBox_->currentText() : QString();
  table_ = std::move(table);
  colours_ = std::move(colours);
  selection_.clear();
  metricBox_->clear();
  for (const auto& m : table_.metrics())
    metricBox_->addItem(QString::fromStdString(m.title), QString::fromStdString(m.id));
  metricBox_->setCurrentIndex(std::max(0, metricBox_->findData(metricId)));
  keyBox_->clear();
  for (const auto& k : table_.keys()) keyBox_->addItem(QString::fromStdString(k));
  // The key chosen before stays; else the first key that is not a seed (a seed explains nothing).
  int keyAt = keyBox_->findText(key);
  for (int k = 0; keyAt < 0 && k < keyBox_->count(); ++k)
    if (!keyBox_->itemText(k).contains("SEED")) keyAt = k;
  keyBox_->setCurrentIndex(std::max(0, keyAt));
  note_->setText(table_.keys().empty()
                     ? tr("The runs' configs do not differ (or cannot be read): nothing to relate.")
                     : tr("%n run(s), %1 key(s) that differ", nullptr, table_.runCount())
                           .arg(table_.keys().size()));
  fillTable();
  plotScatter();
  parallel_->setTable(table_, colours_, metric());
}

void HParamsView::setMetric(const std::string& id) {
  metricBox_->setCurrentIndex(std::max(0, metricBox_->findData(QString::fromStdString(id))));
  plotScatter();
  parallel_->setTable(table_, colours_, metric());
  parallel_->showSelection(selection_);
}

void HParamsView::setScatterKey(int key) {
  keyBox_->setCurrentIndex(key);
  plotScatter();
}

void HParamsView::fillTable() {
  model_->clear();
  QStringList headers{tr("Run")};
  for (const auto& k : table_.keys()) headers << QString::fromStdString(k);
  for (const auto& m : table_.metrics())
    headers << QString::fromStdString(m.title) +
                   (m.unit.empty() ? QString() : " (" + QString::fromStdString(m.unit) + ")");
  model_->setHorizontalHeaderLabels(headers);
  const int keys = static_cast<int>(table_.keys().size());
  for (int r = 0; r < table_.runCount(); ++r) {
    QList<QStandardItem*> row;
    auto* name = new QStandardItem(QString::fromStdString(table_.runName(r)));
    name->setData(r, kSortRole);  // the Run column sorts in Compare's order
    name->setData(r, kRunRole);
    if (static_cast<std::size_t>(r) < colours_.size())
      name->setData(colours_[r], Qt::DecorationRole);
    row << name;
    for (int k = 0; k < keys; ++k) {
      auto* cell = new QStandardItem(QString::fromStdString(table_.value(r, k)));
      if (table_.numericKey(k)) {
        const auto v = table_.number(r, k);
        cell->setData(v ? *v : kMissing, kSortRole);
        cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      } else {
        cell->setData(cell->text(), kSortRole);
      }
      row << cell;
    }
    for (int m = 0; m < static_cast<int>(table_.metrics().size()); ++m) {
      const auto v = table_.metricValue(r, m);
      // Counts (skipped steps) as whole numbers, figures with the digits that tell runs apart.
      const bool whole = table_.metrics()[static_cast<std::size_t>(m)].id == "skipped_steps";
      auto* cell = new QStandardItem(v ? QString::number(*v, 'f',
                                                         whole                 ? 0
                                                         : std::abs(*v) >= 100 ? 1
                                                                               : 3)
                                       : QStringLiteral("–"));
      cell->setData(v ? *v : kMissing, kSortRole);
      cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      row << cell;
    }
    model_->appendRow(row);
  }
  view_->sortByColumn(0, Qt::AscendingOrder);  // run order until a header is clicked
  view_->resizeColumnsToContents();
}

void HParamsView::plotScatter() {
  scatter_->clearGraphs();
  scatter_->clearItems();
  const int key = keyBox_->currentIndex(), m = metric();
  const bool ok = key >= 0 && m >= 0;
  scatter_->xAxis->setLabel(ok ? keyBox_->currentText() : QString());
  scatter_->yAxis->setLabel(ok ? metricBox_->currentText() : QString());
  const bool log = ok && table_.logScaleKey(key);
  scatter_->xAxis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  QStringList categories;
  if (ok && !table_.numericKey(key)) {
    for (int r = 0; r < table_.runCount(); ++r)
      if (const QString v = QString::fromStdString(table_.value(r, key));
          !v.isEmpty() && !categories.contains(v))
        categories << v;
    categories.sort();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < categories.size(); ++i) ticker->addTick(i, categories[i]);
    scatter_->xAxis->setTicker(ticker);
  } else if (log) {
    scatter_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  } else {
    scatter_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  if (ok)
    for (int r = 0; r < table_.runCount(); ++r) {
      const auto y = table_.metricValue(r, m);
      std::optional<double> x;
      if (table_.numericKey(key))
        x = table_.number(r, key);
      else if (const int i = categories.indexOf(QString::fromStdString(table_.value(r, key)));
               i >= 0)
        x = i;
      if (!x || !y) continue;
      QCPGraph* g = scatter_->addGraph();
      g->setProperty("run", r);
      g->setName(QString::fromStdString(table_.runName(r)));
      g->setLineStyle(QCPGraph::lsNone);
      g->addData(*x, *y);
      g->setSelectable(QCP::stWhole);
    }
  scatter_->rescaleAxes();
  if (ok && !table_.numericKey(key))
    scatter_->xAxis->setRange(-0.5, categories.size() - 0.5);
  else
    scatter_->xAxis->scaleRange(1.1);
  scatter_->yAxis->scaleRange(1.15);
  select(selection_, false);
}

void HParamsView::showSelection(const QList<int>& runs) {
  select(runs, false);
}

void HParamsView::select(const QList<int>& runs, bool announce, bool toParallel) {
  // The parallel plot's "every run" (nothing brushed) is no selection.
  selection_ = runs.size() == table_.runCount() && announce ? QList<int>{} : runs;
  syncing_ = true;
  view_->selectionModel()->clearSelection();
  for (int row = 0; row < proxy_->rowCount(); ++row)
    if (selection_.contains(proxy_->index(row, 0).data(kRunRole).toInt()))
      view_->selectionModel()->select(proxy_->index(row, 0),
                                      QItemSelectionModel::Select | QItemSelectionModel::Rows);
  syncing_ = false;
  for (int i = 0; i < scatter_->graphCount(); ++i) {
    QCPGraph* g = scatter_->graph(i);
    const int run = g->property("run").toInt();
    const bool on = selection_.isEmpty() || selection_.contains(run);
    QColor c =
        static_cast<std::size_t>(run) < colours_.size() ? colours_[run] : QColor(Qt::darkGray);
    if (!on) c = QColor(200, 200, 200);
    g->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, on && !selection_.isEmpty() ? 11 : 8));
    g->selectionDecorator()->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, Qt::black, 13));
  }
  scatter_->replot();
  if (toParallel) parallel_->showSelection(selection_);
  if (announce) emit runsSelected(selection_);
}

QString HParamsView::csv() const {
  QStringList lines;
  QStringList head;
  for (int c = 0; c < proxy_->columnCount(); ++c)
    head << csvCell(proxy_->headerData(c, Qt::Horizontal).toString());
  lines << head.join(',');
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < proxy_->columnCount(); ++c) {
      const QString t = proxy_->index(r, c).data().toString();
      cells << csvCell(t == QStringLiteral("–") ? QString() : t);
    }
    lines << cells.join(',');
  }
  return lines.join('\n') + '\n';
}

}  // namespace amp::widgets
