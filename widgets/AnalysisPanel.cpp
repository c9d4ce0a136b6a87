#include "AnalysisPanel.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ConfusionHeatMap.h"
#include "MistakesTable.h"

namespace amp::widgets {
namespace {

constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kClassRole = Qt::UserRole + 2;  // a row's class (accuracy) or its pair's classes
constexpr int kPredRole = Qt::UserRole + 3;
constexpr std::size_t kPairs = 50;  // most confused pairs listed

QStandardItem* cell(const QString& text, const QVariant& sort, bool right = false) {
  auto* i = new QStandardItem(text);
  i->setData(sort, kSortRole);
  i->setEditable(false);
  if (right) i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return i;
}

QString percentText(double v) {
  return std::isnan(v) ? QStringLiteral("–") : QString::number(100.0 * v, 'f', 1) + " %";
}

QTableView* makeTable(QStandardItemModel* model) {
  auto* t = new QTableView;
  t->setModel(model);
  t->setSortingEnabled(true);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setStretchLastSection(true);
  return t;
}

QLabel* heading(const QString& text) {
  auto* l = new QLabel("<b>" + text + "</b>");
  l->setContentsMargins(2, 4, 2, 2);
  return l;
}

QWidget* titled(const QString& text, QWidget* body) {
  auto* w = new QWidget;
  auto* l = new QVBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->setSpacing(2);
  l->addWidget(heading(text));
  l->addWidget(body);
  return w;
}

}  // namespace

AnalysisPanel::AnalysisPanel(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel),
      evaluation_(new QComboBox),
      grouping_(new QComboBox),
      stack_(new QStackedWidget),
      empty_(new QLabel),
      heatMap_(new ConfusionHeatMap),
      classes_(new QStandardItemModel(this)),
      pairs_(new QStandardItemModel(this)),
      mistakes_(new MistakesTable),
      cellNote_(new QLabel) {
  classes_->setSortRole(kSortRole);
  pairs_->setSortRole(kSortRole);
  classTable_ = makeTable(classes_);
  pairTable_ = makeTable(pairs_);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  evaluation_->setToolTip(
      tr("The test's matrix (videos, views ensembled) or a validation's (clips)"));
  grouping_->setToolTip(
      tr("All classes, the config's TENSORBOARD.CONFUSION_MATRIX.SUBSET_PATH, or the children of "
         "a parent category of TENSORBOARD.CATEGORIES_PATH"));
  auto *png = new QPushButton(tr("PNG…")), *pdf = new QPushButton(tr("PDF…")),
       *csv = new QPushButton(tr("CSV…"));
  png->setToolTip(tr("Export the matrix as shown"));
  pdf->setToolTip(tr("Export the matrix as shown (vector graphics, for a paper)"));
  csv->setToolTip(tr("Export the matrix of the shown classes (counts), or the mistakes listed"));
  connect(png, &QPushButton::clicked, this, [this] { exportMatrix("png"); });
  connect(pdf, &QPushButton::clicked, this, [this] { exportMatrix("pdf"); });
  connect(csv, &QPushButton::clicked, this, &AnalysisPanel::exportCsv);
  auto* top = new QHBoxLayout;
  top->addWidget(title_, 1);
  top->addWidget(new QLabel(tr("Evaluation:")));
  top->addWidget(evaluation_);
  top->addWidget(new QLabel(tr("Classes:")));
  top->addWidget(grouping_);
  top->addWidget(new QLabel(tr("Export:")));
  top->addWidget(png);
  top->addWidget(pdf);
  top->addWidget(csv);

  auto* side = new QSplitter(Qt::Vertical);
  side->addWidget(titled(tr("Per-class accuracy (worst first)"), classTable_));
  side->addWidget(titled(tr("Most confused pairs"), pairTable_));
  auto* upper = new QSplitter(Qt::Horizontal);
  upper->addWidget(heatMap_);
  upper->addWidget(side);
  upper->setStretchFactor(0, 3);
  upper->setStretchFactor(1, 2);
  auto* lowerBox = new QWidget;
  auto* lower = new QVBoxLayout(lowerBox);
  lower->setContentsMargins(0, 0, 0, 0);
  lower->addWidget(heading(tr("Mistakes")));
  lower->addWidget(cellNote_);
  lower->addWidget(mistakes_);
  cellNote_->setWordWrap(true);
  auto* main = new QSplitter(Qt::Vertical);
  main->addWidget(upper);
  main->addWidget(lowerBox);
  main->setStretchFactor(0, 3);
  main->setStretchFactor(1, 2);
  main->setSizes({560, 340});  // the mistakes get a dozen rows beside a readable matrix
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setWordWrap(true);
  empty_->setMargin(24);
  stack_->addWidget(empty_);
  stack_->addWidget(main);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(stack_, 1);

  connect(evaluation_, qOverload<int>(&QComboBox::activated), this, &AnalysisPanel::showEvaluation);
  connect(grouping_, qOverload<int>(&QComboBox::activated), this, &AnalysisPanel::setGrouping);
  connect(heatMap_, &ConfusionHeatMap::cellClicked, this, &AnalysisPanel::selectCell);
  connect(classTable_, &QTableView::clicked, this, [this](const QModelIndex& i) {
    const int k = classes_->index(i.row(), 0).data(kClassRole).toInt();
    const auto at = std::find(ids_.begin(), ids_.end(), k);
    if (record_ && at != ids_.end()) {
      const int row = static_cast<int>(at - ids_.begin());
      heatMap_->focusCell(row, row, 16);
      mistakes_->setCell(*at, -1);
      heatMap_->selectCell(row, row);
      cellNote_->setText(tr("Mistakes of %1, whatever they were taken for.")
                             .arg(QString::fromStdString(record_->className(*at))));
    }
  });
  connect(pairTable_, &QTableView::clicked, this, [this](const QModelIndex& i) {
    const auto index = pairs_->index(i.row(), 0);
    const int truth = index.data(kClassRole).toInt(), pred = index.data(kPredRole).toInt();
    const auto row = std::find(ids_.begin(), ids_.end(), truth) - ids_.begin();
    const auto col = std::find(ids_.begin(), ids_.end(), pred) - ids_.begin();
    if (row < static_cast<long>(ids_.size()) && col < static_cast<long>(ids_.size())) {
      heatMap_->focusCell(static_cast<int>(row), static_cast<int>(col), 16);
      selectCell(static_cast<int>(row), static_cast<int>(col));
    }
  });
  connect(mistakes_, &MistakesTable::predictRequested, this,
          [this](const QString& video) { emit predictRequested(runDir_, video); });
  connect(mistakes_, &MistakesTable::previewRequested, this, [this](const QString& video) {
    if (record_) emit clipRequested(runDir_, QString::fromStdString(record_->split), video);
  });
  showNothing(
      tr("Select a run in the Runs list to see where it is right and wrong: the "
         "confusion matrix, each class's accuracy and the mistakes of its test and "
         "validations (single-label runs)."));
}

void AnalysisPanel::showNothing(const QString& why) {
  record_.reset();
  ids_.clear();
  empty_->setText(why);
  stack_->setCurrentWidget(empty_);
  title_->setText(runDir_.isEmpty() ? QString() : QFileInfo(runDir_).fileName());
  mistakes_->setRecord(nullptr);
}

QString AnalysisPanel::message() const {
  return stack_->currentWidget() == empty_ ? empty_->text() : QString();
}

bool AnalysisPanel::showRun(const QString& runDir) {
  runDir_ = runDir;
  files_.clear();
  evaluation_->clear();
  reload();
  return record_.has_value();
}

void AnalysisPanel::reload() {
  const QString shown = evaluation_->currentText();
  files_ = metrics::listConfusionFiles(runDir_.toStdString());
  {
    QSignalBlocker block(evaluation_);
    evaluation_->clear();
    for (const auto& f : files_)
      evaluation_->addItem(f.split == "test" ? tr("Test")
                                             : tr("Validation, epoch %1").arg(f.epoch));
    evaluation_->setCurrentIndex(std::max(0, evaluation_->findText(shown)));
  }
  if (runDir_.isEmpty()) return;
  if (files_.empty()) {
    showNothing(tr("%1 has no confusion matrix: a single-label run writes one at each validation "
                   "and at its test (analysis/ in the run folder). Multi-label and AVA runs, "
                   "runs recorded before this studio version, and runs not validated yet have "
                   "none.")
                    .arg(QDir::toNativeSeparators(runDir_)));
    return;
  }
  showEvaluation(evaluation_->currentIndex());
}

int AnalysisPanel::evaluations() const {
  return static_cast<int>(files_.size());
}

void AnalysisPanel::showEvaluation(int index) {
  if (index < 0 || index >= static_cast<int>(files_.size())) return;
  {
    QSignalBlocker block(evaluation_);
    evaluation_->setCurrentIndex(index);
  }
  load(QString::fromStdString(files_[static_cast<std::size_t>(index)].path));
}

bool AnalysisPanel::load(const QString& path) {
  std::string error;
  auto r = metrics::readConfusionRecord(path.toStdString(), &error);
  if (!r) {
    showNothing(QString::fromStdString(error));
    return false;
  }
  record_ = std::move(*r);
  const QString kept = grouping_->currentText();
  {
    QSignalBlocker block(grouping_);
    grouping_->clear();
    grouping_->addItem(tr("All %1 classes").arg(record_->matrix.classes()));
    if (record_->subset) grouping_->addItem(tr("Subset (%1 classes)").arg(record_->subset->size()));
    for (const auto& [name, ids] : record_->parents)
      grouping_->addItem(tr("Parent: %1 (%2)").arg(QString::fromStdString(name)).arg(ids.size()));
    grouping_->setCurrentIndex(std::max(0, grouping_->findText(kept)));
  }
  const auto& m = record_->matrix;
  title_->setText(tr("<b>%1</b> · %2 · top-1 %3 (%4 of %5 %6)")
                      .arg(QFileInfo(runDir_).fileName().toHtmlEscaped(),
                           record_->split == "test" ? tr("test") : tr("validation"))
                      .arg(percentText(m.total() ? double(m.correct()) / m.total() : std::nan("")))
                      .arg(m.correct())
                      .arg(m.total())
                      .arg(record_->unit == "video" ? tr("videos") : tr("clips")));
  mistakes_->setRecord(&*record_);
  stack_->setCurrentIndex(1);
  setGrouping(grouping_->currentIndex());
  return true;
}

QStringList AnalysisPanel::groupings() const {
  QStringList out;
  for (int i = 0; i < grouping_->count(); ++i) out << grouping_->itemText(i);
  return out;
}

void AnalysisPanel::setGrouping(int index) {
  if (!record_) return;
  {
    QSignalBlocker block(grouping_);
    grouping_->setCurrentIndex(std::clamp(index, 0, std::max(0, grouping_->count() - 1)));
  }
  index = grouping_->currentIndex();
  const int subsetItems = record_->subset ? 1 : 0;
  if (index >= 1 && index <= subsetItems) {
    ids_ = *record_->subset;
  } else if (index > subsetItems) {
    ids_ = record_->parents[static_cast<std::size_t>(index - 1 - subsetItems)].second;
  } else {
    ids_.resize(static_cast<std::size_t>(record_->matrix.classes()));
    std::iota(ids_.begin(), ids_.end(), 0);
  }
  rebuild();
}

void AnalysisPanel::rebuild() {
  const auto& m = record_->matrix;
  const int n = static_cast<int>(ids_.size());
  QStringList names;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    names << QString::fromStdString(record_->className(ids_[static_cast<std::size_t>(i)]));
    for (int j = 0; j < n; ++j)
      counts[static_cast<std::size_t>(i) * n + j] =
          m.count(ids_[static_cast<std::size_t>(i)], ids_[static_cast<std::size_t>(j)]);
  }
  heatMap_->setMatrix(names, m.rates(ids_), counts);
  fillClasses();
  fillPairs();
  mistakes_->setCell(-1, -1);
  cellNote_->setText(tr("Click a cell of the matrix, a class or a pair to list its mistakes."));
}

void AnalysisPanel::fillClasses() {
  const auto& m = record_->matrix;
  classes_->clear();
  classes_->setHorizontalHeaderLabels(
      {tr("Class"), tr("Accuracy"), record_->unit == "video" ? tr("Videos") : tr("Clips")});
  for (const int k : ids_) {
    auto* name = cell(QString::fromStdString(record_->className(k)), k);
    name->setData(k, kClassRole);
    name->setToolTip(tr("Class %1").arg(k));
    const double acc = m.accuracy(k);
    classes_->appendRow(
        {name, cell(percentText(acc), std::isnan(acc) ? 2.0 : acc, true),
         cell(QString::number(m.samples(k)), static_cast<double>(m.samples(k)), true)});
  }
  classTable_->sortByColumn(1, Qt::AscendingOrder);
  classTable_->resizeColumnsToContents();
}

void AnalysisPanel::fillPairs() {
  const auto& m = record_->matrix;
  pairs_->clear();
  pairs_->setHorizontalHeaderLabels({tr("True class"), tr("Taken for"), tr("Count"), tr("Share")});
  pairs_->horizontalHeaderItem(3)->setToolTip(tr("The pair's count over the true class's samples"));
  std::vector<char> shown(static_cast<std::size_t>(m.classes()), 0);
  for (const int k : ids_) shown[static_cast<std::size_t>(k)] = 1;
  std::size_t listed = 0;
  for (const auto& p : m.mostConfused(static_cast<std::size_t>(m.classes()) * m.classes())) {
    if (listed == kPairs) break;
    if (!shown[static_cast<std::size_t>(p.truth)] || !shown[static_cast<std::size_t>(p.pred)])
      continue;
    ++listed;
    auto* truth = cell(QString::fromStdString(record_->className(p.truth)), p.truth);
    truth->setData(p.truth, kClassRole);
    truth->setData(p.pred, kPredRole);
    pairs_->appendRow({truth, cell(QString::fromStdString(record_->className(p.pred)), p.pred),
                       cell(QString::number(p.count), static_cast<double>(p.count), true),
                       cell(percentText(p.rate), p.rate, true)});
  }
  pairTable_->sortByColumn(2, Qt::DescendingOrder);
  pairTable_->resizeColumnsToContents();
}

void AnalysisPanel::selectCell(int row, int col) {
  if (!record_ || row < 0 || col < 0 || row >= static_cast<int>(ids_.size()) ||
      col >= static_cast<int>(ids_.size()))
    return;
  const int truth = ids_[static_cast<std::size_t>(row)], pred = ids_[static_cast<std::size_t>(col)];
  heatMap_->selectCell(row, col);
  const auto& m = record_->matrix;
  const QString t = QString::fromStdString(record_->className(truth)),
                p = QString::fromStdString(record_->className(pred));
  const QString unit = record_->unit == "video" ? tr("videos") : tr("clips");
  if (truth == pred) {
    // The run keeps the mistakes only: the right ones are counted, not listed.
    mistakes_->setCell(truth, -1);
    cellNote_->setText(tr("%1: %2 of %3 %4 right (%5); its mistakes are listed below.")
                           .arg(t)
                           .arg(m.count(truth, truth))
                           .arg(m.samples(truth))
                           .arg(unit, percentText(m.accuracy(truth))));
  } else {
    mistakes_->setCell(truth, pred);
    cellNote_->setText(tr("%1 taken for %2: %3 %4 (%5 of the class).")
                           .arg(t, p)
                           .arg(m.count(truth, pred))
                           .arg(unit, percentText(m.rate(truth, pred))));
  }
}

QString AnalysisPanel::matrixCsv() const {
  return record_ ? QString::fromStdString(metrics::confusionCsv(*record_, ids_, false)) : QString();
}

void AnalysisPanel::exportMatrix(const QString& suffix) {
  if (!record_) return;
  const QString name = QFileInfo(runDir_).fileName() + "-confusion." + suffix;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export the confusion matrix"), name,
      suffix == "pdf" ? tr("PDF documents (*.pdf)") : tr("PNG images (*.png)"));
  if (!path.isEmpty() && !heatMap_->exportTo(path))
    QMessageBox::warning(this, tr("Export"), tr("Cannot write %1").arg(path));
}

void AnalysisPanel::exportCsv() {
  if (!record_) return;
  QMessageBox ask(QMessageBox::Question, tr("Export CSV"), tr("Which table?"), QMessageBox::Cancel,
                  this);
  QPushButton* matrix = ask.addButton(tr("The matrix"), QMessageBox::AcceptRole);
  QPushButton* listed = ask.addButton(tr("The mistakes listed"), QMessageBox::AcceptRole);
  ask.exec();
  if (ask.clickedButton() != matrix && ask.clickedButton() != listed) return;
  const bool isMatrix = ask.clickedButton() == matrix;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export CSV"),
      QFileInfo(runDir_).fileName() + (isMatrix ? "-confusion.csv" : "-mistakes.csv"),
      tr("CSV files (*.csv)"));
  if (path.isEmpty()) return;
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
      f.write((isMatrix ? matrixCsv() : mistakes_->csv()).toUtf8()) < 0)
    QMessageBox::warning(this, tr("Export"), tr("Cannot write %1: %2").arg(path, f.errorString()));
}

}  // namespace amp::widgets
