#include "PerClassView.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "PerClassChart.h"

namespace amp::widgets {

namespace {
// The number a cell stands for (NaN: none), the key it sorts by (a cell without a number sorts
// below every number: last when sorted by the largest difference) and the text the filter reads.
constexpr int kNumberRole = Qt::UserRole;
constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kFilterRole = Qt::UserRole + 2;
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

QStandardItem* numberItem(double v, const QString& text) {
  auto* item = new QStandardItem(std::isnan(v) ? QStringLiteral("–") : text);
  item->setData(v, kNumberRole);
  item->setData(std::isnan(v) ? -std::numeric_limits<double>::infinity() : v, kSortRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  item->setEditable(false);
  return item;
}

// AP as the summary shows mAP: a fraction in percent; differences in percentage points.
QString percent(double v) {
  return QString::number(v * 100.0, 'f', 2);
}
QString points(double v) {
  return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v * 100.0, 'f', 2);
}

const runlog::PerClassEntry* figuresOf(const PerClassView::RunFigures& run,
                                       PerClassView::Split split) {
  const auto& f = split == PerClassView::Split::Val ? run.val : run.test;
  return f ? &*f : nullptr;
}

// One class's figures across the runs: AP by run (NaN where the run has none), its name and
// count of positives from the first run that has them (the baseline's first).
struct ClassRow {
  QString name;
  std::optional<std::int64_t> positives;
  std::vector<double> ap;
};
}  // namespace

PerClassView::RunFigures::RunFigures(QString name, QColor color, const runlog::PerClassEntry* val,
                                     const runlog::PerClassEntry* test)
    : name(std::move(name)),
      color(std::move(color)),
      val(val ? std::optional<runlog::PerClassEntry>(*val) : std::nullopt),
      test(test ? std::optional<runlog::PerClassEntry>(*test) : std::nullopt) {}

PerClassView::PerClassView(QWidget* parent)
    : QWidget(parent),
      note_(new QLabel),
      splitCombo_(new QComboBox),
      filter_(new QLineEdit),
      items_(new QStandardItemModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView),
      chart_(new PerClassChart) {
  setObjectName(QStringLiteral("per_class"));
  note_->setWordWrap(true);
  note_->hide();
  splitCombo_->addItems({tr("Last validation"), tr("Test")});
  splitCombo_->setToolTip(tr("Which evaluation's per-class figures the table shows"));
  filter_->setPlaceholderText(tr("Filter classes by number or name"));
  filter_->setClearButtonEnabled(true);
  auto* copyMd = new QPushButton(tr("Copy as Markdown"));
  auto* copyCsv = new QPushButton(tr("Copy as CSV"));
  copyMd->setToolTip(tr("Copy the rows as shown (sorted and filtered)"));
  copyCsv->setToolTip(copyMd->toolTip());
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Evaluation:")));
  top->addWidget(splitCombo_);
  top->addWidget(filter_, 1);
  top->addWidget(copyMd);
  top->addWidget(copyCsv);

  proxy_->setSourceModel(items_);
  proxy_->setSortRole(kSortRole);
  proxy_->setFilterRole(kFilterRole);
  proxy_->setFilterKeyColumn(kNameColumn);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addWidget(note_);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(table_);
  split->addWidget(chart_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({600, 400});  // the table first: its numbers are what is quoted
  layout->addWidget(split, 1);

  connect(splitCombo_, qOverload<int>(&QComboBox::activated), this, [this](int i) {
    splitChosen_ = true;
    setSplit(i == 0 ? Split::Val : Split::Test);
  });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    proxy_->setFilterFixedString(text);
    updateChart();
  });
  // A click on a header sorts: the chart follows the new top rows.
  connect(proxy_, &QSortFilterProxyModel::layoutChanged, this, [this] {
    if (!rebuilding_) updateChart();
  });
  connect(copyMd, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(markdown()); });
  connect(copyCsv, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(csv()); });
  rebuild();
}

void PerClassView::setRuns(std::vector<RunFigures> runs, int baseline) {
  runs_ = std::move(runs);
  baseline_ = std::clamp(baseline, 0, std::max(0, static_cast<int>(runs_.size()) - 1));
  // Until the user picks one, the split is the one the runs have: a test-only run has no
  // validation figures, and an empty table would hide its test's.
  if (!splitChosen_) {
    bool anyVal = false, anyTest = false;
    for (const auto& r : runs_) anyVal = anyVal || r.val, anyTest = anyTest || r.test;
    split_ = !anyVal && anyTest ? Split::Test : Split::Val;
  }
  rebuild();
}

void PerClassView::setSplit(Split split) {
  split_ = split;
  rebuild();
}

void PerClassView::setFilter(const QString& text) {
  filter_->setText(text);  // textChanged filters
}

QAbstractItemModel* PerClassView::model() const {
  return proxy_;
}

int PerClassView::diffColumn(int run) const {
  if (run == baseline_ || run < 0 || run >= static_cast<int>(runs_.size())) return -1;
  return kFirstRunColumn + static_cast<int>(runs_.size()) + (run < baseline_ ? run : run - 1);
}

int PerClassView::largestDiffColumn() const {
  const int n = static_cast<int>(runs_.size());
  return kFirstRunColumn + n + std::max(0, n - 1);
}

QString PerClassView::note() const {
  return note_->text();
}

void PerClassView::rebuild() {
  {
    QSignalBlocker block(splitCombo_);
    splitCombo_->setCurrentIndex(split_ == Split::Val ? 0 : 1);
  }
  // Classes by id across the runs that have figures; a class one run lacks is "–" there.
  std::map<std::int64_t, ClassRow> rows;
  QStringList missing;
  const int n = static_cast<int>(runs_.size());
  std::vector<int> order;  // the baseline first, so its names and counts are the ones shown
  if (n > 0) order.push_back(baseline_);
  for (int i = 0; i < n; ++i)
    if (i != baseline_) order.push_back(i);
  for (const int i : order) {
    const runlog::PerClassEntry* f = figuresOf(runs_[static_cast<std::size_t>(i)], split_);
    if (!f) {
      missing << runs_[static_cast<std::size_t>(i)].name;
      continue;
    }
    const runlog::PerClassValues& p = f->values;
    for (std::size_t k = 0; k < p.classes.size(); ++k) {
      ClassRow& row = rows[p.classes[k]];
      if (row.ap.empty()) row.ap.assign(static_cast<std::size_t>(n), kNone);
      row.ap[static_cast<std::size_t>(i)] = p.values[k];
      if (row.name.isEmpty()) row.name = QString::fromStdString(p.nameAt(k));
      if (!row.positives && k < p.positives.size()) row.positives = p.positives[k];
    }
  }
  // What the figures are: the baseline's metric, else the first run's that has figures. Runs that
  // measure classes differently (AP against top-1) are said, not silently subtracted.
  std::string metric;
  QStringList otherMetric;
  for (const int i : order)
    if (const runlog::PerClassEntry* f = figuresOf(runs_[static_cast<std::size_t>(i)], split_)) {
      if (metric.empty())
        metric = f->values.metric;
      else if (f->values.metric != metric)
        otherMetric << runs_[static_cast<std::size_t>(i)].name;
    }
  metric_ = metric == "top1_acc" ? tr("Top-1") : tr("AP");
  const QString what = metric == "top1_acc" ? tr("top-1 accuracy") : tr("average precision");
  chart_->setMetric(metric_);
  // Say why columns are empty rather than leave a reader to guess.
  QStringList lines;
  const QString evaluation = split_ == Split::Val ? tr("validation") : tr("test");
  for (const QString& name : missing)
    lines << tr("Run %1 has no per-class figures of its %2: one not %3 yet, or one recorded "
                "before per-class figures were.")
                 .arg(name, evaluation, split_ == Split::Val ? tr("validated") : tr("tested"));
  if (!otherMetric.isEmpty())
    lines << tr("%1 measured classes otherwise (AP against top-1 accuracy): their differences "
                "compare different figures.")
                 .arg(otherMetric.join(", "));
  const bool baseHas = n > 0 && figuresOf(runs_[static_cast<std::size_t>(baseline_)], split_);
  if (n > 1 && !baseHas && static_cast<int>(missing.size()) < n)
    lines << tr(
        "The differences are taken against the baseline, which has none: choose another "
        "baseline.");
  note_->setText(lines.join('\n'));
  note_->setVisible(!lines.isEmpty());

  QStringList columns = {tr("Class"), tr("Name"), tr("Positives")};
  for (const auto& r : runs_) columns << tr("%1 %2").arg(metric_, r.name);
  const QString base = n > 0 ? runs_[static_cast<std::size_t>(baseline_)].name : QString();
  for (int i = 0; i < n; ++i)
    if (i != baseline_) columns << tr("Δ %1").arg(runs_[static_cast<std::size_t>(i)].name);
  columns << tr("Largest |Δ|");
  // The reader's sort, taken before the model is cleared (which resets the header's).
  QHeaderView* header = table_->horizontalHeader();
  const int sortColumn = header->sortIndicatorSection();
  const Qt::SortOrder sortOrder = header->sortIndicatorOrder();
  rebuilding_ = true;
  items_->clear();
  items_->setColumnCount(static_cast<int>(columns.size()));
  items_->setHorizontalHeaderLabels(columns);
  auto* positives = items_->horizontalHeaderItem(kPositivesColumn);
  positives->setToolTip(
      tr("Samples of the class (single-label: its videos or validation clips), its positive "
         "samples (multi-label) or its ground-truth boxes (AVA) in the evaluated set, as the "
         "baseline counted them"));
  for (int i = 0; i < n; ++i) {
    const RunFigures& r = runs_[static_cast<std::size_t>(i)];
    auto* h = items_->horizontalHeaderItem(kFirstRunColumn + i);
    h->setForeground(r.color);
    if (const runlog::PerClassEntry* f = figuresOf(r, split_))
      h->setToolTip(
          tr("%1: %2 in percent, epoch %3, step %4").arg(r.name, what).arg(f->epoch).arg(f->step));
    if (const int c = diffColumn(i); c >= 0) {
      items_->horizontalHeaderItem(c)->setForeground(r.color);
      items_->horizontalHeaderItem(c)->setToolTip(
          tr("%1 of %2 minus that of the baseline %3, in percentage points")
              .arg(metric_, r.name, base));
    }
  }
  items_->horizontalHeaderItem(largestDiffColumn())
      ->setToolTip(tr("The largest absolute difference from the baseline %1 over the runs, in "
                      "percentage points")
                       .arg(base));

  for (const auto& [id, row] : rows) {
    QList<QStandardItem*> cells;
    auto* idItem = new QStandardItem(QString::number(id));
    idItem->setData(static_cast<double>(id), kNumberRole);
    idItem->setData(static_cast<double>(id), kSortRole);
    idItem->setEditable(false);
    auto* nameItem = new QStandardItem(row.name);
    nameItem->setData(row.name.toLower(), kSortRole);
    nameItem->setData(QString::number(id) + ' ' + row.name, kFilterRole);
    nameItem->setEditable(false);
    cells << idItem << nameItem
          << numberItem(row.positives ? static_cast<double>(*row.positives) : kNone,
                        row.positives ? QString::number(*row.positives) : QString());
    for (double ap : row.ap) cells << numberItem(ap, percent(ap));
    const double b = row.ap.empty() ? kNone : row.ap[static_cast<std::size_t>(baseline_)];
    double largest = kNone;
    for (int i = 0; i < n; ++i) {
      if (i == baseline_) continue;
      const double d = row.ap[static_cast<std::size_t>(i)] - b;  // NaN when either is missing
      cells << numberItem(d, points(d));
      if (!std::isnan(d))
        largest = std::isnan(largest) ? std::abs(d) : std::max(largest, std::abs(d));
    }
    cells << numberItem(largest, QString::number(largest * 100.0, 'f', 2));
    items_->appendRow(cells);
  }
  // A reload of the same runs keeps the reader's sort; new columns start from the question the
  // tab answers: the classes that moved most first.
  if (columns != columns_ || sortColumn < 0 || sortColumn >= columns.size())
    table_->sortByColumn(n > 1 ? largestDiffColumn() : static_cast<int>(kClassColumn),
                         n > 1 ? Qt::DescendingOrder : Qt::AscendingOrder);
  else
    table_->sortByColumn(sortColumn, sortOrder);
  columns_ = columns;
  table_->resizeColumnsToContents();
  rebuilding_ = false;
  updateChart();
}

void PerClassView::updateChart() {
  QStringList classes;
  const int rows = std::min(proxy_->rowCount(), static_cast<int>(PerClassChart::kMaxClasses));
  for (int r = 0; r < rows; ++r) {
    QString name = proxy_->index(r, kNameColumn).data().toString();
    if (name.size() > 14) name = name.left(13) + QStringLiteral("…");  // AVA's long names
    classes << (proxy_->index(r, kClassColumn).data().toString() +
                (name.isEmpty() ? QString() : ' ' + name));
  }
  std::vector<PerClassChart::Bars> bars;
  for (int i = 0; i < static_cast<int>(runs_.size()); ++i) {
    const int c = diffColumn(i);
    if (c < 0) continue;
    PerClassChart::Bars b{
        runs_[static_cast<std::size_t>(i)].name, runs_[static_cast<std::size_t>(i)].color, {}};
    for (int r = 0; r < rows; ++r)
      b.points.push_back(proxy_->index(r, c).data(kNumberRole).toDouble() * 100.0);
    bars.push_back(std::move(b));
  }
  chart_->showBars(classes, bars);
}

namespace {
// RFC 4180: a class name with a comma or quote must not shift the columns.
QString csvField(const QString& s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n')) return s;
  return '"' + QString(s).replace('"', QStringLiteral("\"\"")) + '"';
}
}  // namespace

QString PerClassView::markdown() const {
  // A "|" in a header ("Largest |Δ|") or a class name would end its cell: escaped.
  const auto cell = [](QString s) { return s.replace('|', QStringLiteral("\\|")); };
  QStringList head;
  for (int c = 0; c < proxy_->columnCount(); ++c)
    head << cell(proxy_->headerData(c, Qt::Horizontal).toString());
  QString md = "| " + head.join(" | ") + " |\n|" + QString("---|").repeated(head.size()) + "\n";
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < proxy_->columnCount(); ++c)
      row << cell(proxy_->index(r, c).data().toString());
    md += "| " + row.join(" | ") + " |\n";
  }
  return md;
}

QString PerClassView::csv() const {
  QStringList head;
  for (int c = 0; c < proxy_->columnCount(); ++c)
    head << csvField(proxy_->headerData(c, Qt::Horizontal).toString());
  QString out = head.join(',') + '\n';
  for (int r = 0; r < proxy_->rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < proxy_->columnCount(); ++c) {
      // Numbers as plain numbers (no "–" for none), so a spreadsheet reads them.
      const QModelIndex i = proxy_->index(r, c);
      const QVariant v = i.data(kNumberRole);
      row << (c != kNameColumn && v.isValid()
                  ? (std::isnan(v.toDouble()) ? QString() : i.data().toString())
                  : csvField(i.data().toString()));
    }
    out += row.join(',') + '\n';
  }
  return out;
}

}  // namespace amp::widgets
