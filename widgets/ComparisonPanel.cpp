#include "ComparisonPanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <atomic>
#include <exception>
#include <set>
#include <thread>

#include "ChartPalette.h"
#include "ComparisonSummary.h"
#include "CurveLegend.h"
#include "HParamsView.h"
#include "MetricChart.h"
#include "PerClassView.h"
#include "checkpoint/ImportedRun.h"
#include "configfile/ConfigLoader.h"
#include "runlog/RunDirectory.h"

namespace amp::widgets {

ComparisonPanel::ComparisonPanel(QWidget* parent)
    : QWidget(parent),
      header_(new QLabel),
      alignCombo_(new QComboBox),
      baselineCombo_(new QComboBox),
      groupCombo_(new QComboBox),
      thenCombo_(new QComboBox),
      bandCombo_(new QComboBox),
      membersBox_(new QCheckBox(tr("Runs"))),
      smoothingSpin_(new QDoubleSpinBox),
      timeWeightedBox_(new QCheckBox(tr("Time-weighted"))),
      charts_(new ComparisonCharts),
      legend_(new CurveLegend),
      summary_(new QTableWidget),
      diff_(new QTableWidget),
      perClass_(new PerClassView),
      hparams_(new HParamsView),
      tabs_(new QTabWidget),
      tables_(std::make_unique<ComparisonSummary>(summary_, diff_, tabs_)),
      liveTimer_(new QTimer(this)) {
  header_->setWordWrap(true);
  alignCombo_->addItems({tr("Step"), tr("Epoch"), tr("Relative time")});
  alignCombo_->setToolTip(tr("How the runs' curves are lined up on the X axis"));
  baselineCombo_->setToolTip(tr("The run (or group) the ratios in the summary are taken against"));
  groupCombo_->setToolTip(
      tr("Draw the runs that share this value as one group: its mean with a "
         "band, one colour, one summary row (the run fields and config keys "
         "whose values differ)"));
  thenCombo_->setToolTip(tr("A second key: one group per combination of the two values"));
  bandCombo_->addItems({tr("± 1 std"), tr("min–max")});
  bandCombo_->setToolTip(
      tr("The band around each group's mean: one sample standard deviation "
         "either side, or the lowest and highest run"));
  membersBox_->setToolTip(tr("Draw each group's runs as thin lines under its mean"));
  smoothingSpin_->setRange(0.0, 0.99);
  smoothingSpin_->setSingleStep(0.05);
  smoothingSpin_->setDecimals(2);
  smoothingSpin_->setValue(options_.smoothing);
  smoothingSpin_->setToolTip(
      tr("Smoothing of the loss and throughput charts: TensorBoard's "
         "de-biased exponential moving average (0: raw)"));
  timeWeightedBox_->setToolTip(
      tr("Weigh the smoothing by the distance between logged points, so "
         "runs that log at unequal rates are smoothed over the same span "
         "of the X axis"));
  auto* copy = new QPushButton(tr("Copy as Markdown"));
  copy->setToolTip(tr("Copy the summary table, ratios included, for a paper or an issue"));
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(new QLabel(tr("Align by:")));
  top->addWidget(alignCombo_);
  top->addSpacing(8);
  top->addWidget(new QLabel(tr("Smoothing:")));
  top->addWidget(smoothingSpin_);
  top->addWidget(timeWeightedBox_);
  top->addSpacing(8);
  top->addWidget(new QLabel(tr("Baseline:")));
  top->addWidget(baselineCombo_);
  top->addWidget(copy);
  auto* grouping = new QHBoxLayout;
  grouping->addWidget(new QLabel(tr("Group by:")));
  grouping->addWidget(groupCombo_);
  grouping->addWidget(new QLabel(tr("then by:")));
  grouping->addWidget(thenCombo_);
  grouping->addWidget(new QLabel(tr("Band:")));
  grouping->addWidget(bandCombo_);
  grouping->addWidget(membersBox_);
  grouping->addStretch(1);

  for (QTableWidget* t : {summary_, diff_}) {
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->verticalHeader()->hide();
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setStretchLastSection(true);
  }
  tabs_->addTab(summary_, tr("Summary"));
  tabs_->addTab(diff_, tr("Config diff"));
  tabs_->addTab(perClass_, tr("Per class"));
  tabs_->setTabToolTip(2, tr("Each class's average precision in every run, and its difference "
                             "from the baseline (multi-label and detection runs)"));
  tabs_->addTab(hparams_, tr("Hyperparameters"));
  tabs_->setTabToolTip(3, tr("Which settings gave which result: the keys that differ against "
                             "the results, as a table, a scatter and parallel coordinates"));
  auto* chartsAndLegend = new QSplitter(Qt::Horizontal);
  chartsAndLegend->addWidget(charts_);
  chartsAndLegend->addWidget(legend_);
  chartsAndLegend->setStretchFactor(0, 5);
  chartsAndLegend->setStretchFactor(1, 1);
  legend_->hide();
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(chartsAndLegend);
  split->addWidget(tabs_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  // The charts first: the pane below keeps its minimum (fitPane: up to six rows) and a little.
  split->setSizes({3000, 1000});
  chartsAndLegend->setSizes({4000, 1000});
  // The hyperparameter view needs room for its table and two plots: opening it gives the pane
  // below about half the height (dragging the splitter sets it otherwise).
  connect(tabs_, &QTabWidget::currentChanged, this, [this, split](int index) {
    if (tabs_->widget(index) != hparams_) return;
    const QList<int> sizes = split->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (total > 0 && sizes.value(1) < total * 45 / 100)
      split->setSizes({total * 52 / 100, total - total * 52 / 100});
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addLayout(grouping);
  layout->addWidget(split, 1);

  connect(alignCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setAlign(static_cast<Align>(i)); });
  connect(baselineCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i >= 0) setBaseline(i);
  });
  const auto groupChanged = [this] {
    QStringList keys;
    for (QComboBox* c : {groupCombo_, thenCombo_})
      if (c->currentIndex() > 0 && !keys.contains(c->currentData().toString()))
        keys << c->currentData().toString();
    setGroupBy(keys);
  };
  connect(groupCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this, groupChanged);
  connect(thenCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this, groupChanged);
  connect(bandCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setBand(static_cast<Band>(i)); });
  connect(membersBox_, &QCheckBox::toggled, this, &ComparisonPanel::setShowMembers);
  connect(smoothingSpin_, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
          [this](double w) { setSmoothing(w, timeWeightedBox_->isChecked()); });
  connect(timeWeightedBox_, &QCheckBox::toggled, this,
          [this](bool on) { setSmoothing(smoothingSpin_->value(), on); });
  connect(legend_, &CurveLegend::visibilityChanged, this, [this](int entry, bool on) {
    const QString name = legend_->entry(entry).name;
    if (on)
      options_.hidden.remove(name);
    else
      options_.hidden.insert(name);
    charts_->setEntryVisible(entry, on);
  });
  connect(legend_, &CurveLegend::hovered, charts_, &ComparisonCharts::emphasize);
  connect(hparams_, &HParamsView::runsSelected, this, [this](const QList<int>& runs) {
    showOnlyRuns(runs);
    QStringList dirs;
    for (const int r : runs) dirs << runs_[static_cast<std::size_t>(r)]->dir;
    emit runsSelected(dirs);
  });
  connect(copy, &QPushButton::clicked, this,
          [this] { QApplication::clipboard()->setText(summaryMarkdown()); });
  liveTimer_->setInterval(2000);
  connect(liveTimer_, &QTimer::timeout, this, &ComparisonPanel::reload);
  setRuns({});
}

ComparisonPanel::~ComparisonPanel() = default;

QStringList ComparisonPanel::runs() const {
  QStringList dirs;
  for (const auto& r : runs_) dirs << r->dir;
  return dirs;
}

void ComparisonPanel::setRuns(const QStringList& dirs) {
  charts_->forgetCurves();  // kept by run, and these are other runs
  runs_.clear();
  QStringList keys;
  for (const QString& dir : dirs) keys << QDir(dir).absolutePath();
  const std::vector<QColor> colors =
      distinctColors(keys);  // two runs of one or of neighbouring colours would look like one
  for (int i = 0; i < dirs.size(); ++i) {
    auto run = std::make_unique<ComparedRun>();
    run->dir = dirs[i];
    run->color = colors[static_cast<std::size_t>(i)];
    runs_.push_back(std::move(run));
  }
  baseline_ = 0;
  options_.hidden.clear();
  reload();
}

namespace {
// Reads one run's folder into `run` (its metadata, metrics log and config), marking what could not
// be read. Touches no widget, so runs are read on several threads at once.
void readComparedRun(ComparedRun& run) {
  runlog::RunDirectory rd(run.dir.toStdString());
  std::string why;
  run.meta = rd.readMetadata(&why);
  run.problem = run.meta ? QString() : QString::fromStdString(why);
  run.name = run.meta && !run.meta->name.empty() ? QString::fromStdString(run.meta->name)
                                                 : QDir(run.dir).dirName();
  // What could not be read marks this run (its status cell); its curves and the others stay.
  const auto mark = [&run](const QString& what) {
    run.problem += (run.problem.isEmpty() ? QString() : QStringLiteral("; ")) + what;
  };
  const auto trPanel = [](const char* text) {
    return QCoreApplication::translate("amp::widgets::ComparisonPanel", text);
  };
  // A run with no metrics yet still shows with its metadata; what its files hold that could not
  // be read is in readProblems().
  (void)run.record.loadRunDirectory(run.dir.toStdString(), nullptr);
  for (const auto& p : run.record.readProblems()) mark(QString::fromStdString(p));
  run.summary = run.record.summary();
  if (run.meta) checkpoint::describeImportedRun(*run.meta, rd.dir());
  if (rd.isPySlowFast()) {  // its config from its newest checkpoint's "cfg" (unknown keys out)
    std::string whyNot;
    const auto imported = checkpoint::readImportedRunConfig(rd.dir(), &whyNot);
    run.cfg = imported ? std::optional<config::Config>(imported->loaded.config) : std::nullopt;
    if (!imported && !whyNot.empty())
      mark(trPanel("config not read: %1").arg(QString::fromStdString(whyNot)));
    if (imported && !imported->loaded.ok())  // keys of another PySlowFast version are left out
      for (const auto& d : imported->loaded.diagnostics)
        if (d.isError() && d.message.find("alias expands") != std::string::npos)
          mark(trPanel("config not read: %1").arg(QString::fromStdString(d.toString())));
  } else {
    auto loaded = config::ConfigLoader().loadFile(rd.configPath());
    run.cfg = loaded.ok() ? std::optional<config::Config>(loaded.config) : std::nullopt;
    // A config.yaml from a stranger that is refused (an alias bomb, a broken file) marks this
    // run; its curves and the other runs are shown as ever.
    if (!loaded.ok() && QFileInfo::exists(QString::fromStdString(rd.configPath())))
      mark(trPanel("config not read: %1")
               .arg(QString::fromStdString(
                   config::sortedByLocation(loaded.diagnostics).front().toString())));
  }
}

// Reads every run, on up to one thread per core: a sweep's hundred metrics logs are parsed side
// by side (the JSON lines are most of the time of opening it). Each thread takes the next unread
// run; an exception stays with its run (named in its status) rather than leave the thread.
void readComparedRuns(std::vector<std::unique_ptr<ComparedRun>>& runs) {
  std::atomic<std::size_t> next{0};
  const auto work = [&runs, &next] {
    for (std::size_t i = next++; i < runs.size(); i = next++) {
      try {
        readComparedRun(*runs[i]);
      } catch (const std::exception& e) {
        runs[i]->problem = QString::fromLocal8Bit(e.what());
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>({runs.size(), std::max(1u, std::thread::hardware_concurrency()), 16});
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}
}  // namespace

void ComparisonPanel::reload() {
  readComparedRuns(runs_);
  bool live = false;
  for (const auto& run : runs_)
    live = live || (run->meta && run->meta->status == runlog::RunStatus::Running &&
                    !runlog::RunDirectory::isAbandoned(*run->meta));
  // Two runs of one name (plain-fp32 of two benchmarks) are told apart by as many of their
  // folders' trailing path parts as it takes: pbn10/plain-fp32, seed2/plain-fp32.
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    std::vector<std::size_t> same;
    for (std::size_t j = 0; j < runs_.size(); ++j)
      if (runs_[j]->name == runs_[i]->name) same.push_back(j);
    if (same.size() < 2) continue;
    const QString name = runs_[i]->name;
    for (int parts = 2; parts <= 8; ++parts) {
      std::vector<QString> labels;
      for (std::size_t j : same) {
        const QStringList path = QDir(runs_[j]->dir).absolutePath().split('/', Qt::SkipEmptyParts);
        QStringList parents = path.mid(std::max<qsizetype>(0, path.size() - parts), parts - 1);
        labels.push_back((parents.isEmpty() ? QString() : parents.join('/') + '/') + name);
      }
      const bool distinct = std::set<QString>(labels.begin(), labels.end()).size() == labels.size();
      if (distinct || parts == 8) {
        for (std::size_t k = 0; k < same.size(); ++k) runs_[same[k]]->name = labels[k];
        break;
      }
    }
  }
  if (live)
    liveTimer_->start();
  else
    liveTimer_->stop();
  header_->setText(runs_.size() < 2
                       ? tr("Select two or more runs in the run list to compare them (Ctrl+click).")
                       : tr("Comparing %1 runs").arg(runs_.size()));
  fillGroupCombos();
  regroup();
  tables_->fillDiff(runs_);
  rebuildPerClass();
  rebuildHParams();
}

void ComparisonPanel::rebuildHParams() {
  std::vector<runlog::HParamInput> inputs;
  std::vector<QColor> colours;
  for (const auto& r : runs_) {
    inputs.push_back({r->name.toStdString(), r->cfg ? &*r->cfg : nullptr, r->summary});
    colours.push_back(r->color);
  }
  const QList<int> kept = hparams_->table().runCount() == static_cast<int>(runs_.size())
                              ? hparams_->selection()
                              : QList<int>{};  // a live reload keeps the selection
  hparams_->setTable(runlog::HParamTable::build(inputs), std::move(colours));
  hparams_->showSelection(kept);
}

bool ComparisonPanel::showPane(const QString& name) {
  const int at = QStringList{"summary", "diff", "per-class", "hyperparameters"}.indexOf(name);
  if (at < 0) return false;
  tabs_->setCurrentIndex(at);
  return true;
}

void ComparisonPanel::showOnlyRuns(const QList<int>& runs) {
  for (int e = 0; e < legend_->count(); ++e) {
    bool on = runs.isEmpty();
    if (groupBy_.isEmpty())
      on = on || runs.contains(e);
    else
      for (const std::size_t m : groups_[static_cast<std::size_t>(e)].members)
        on = on || runs.contains(static_cast<int>(m));
    legend_->setEntryVisible(e, on);  // its visibilityChanged hides or shows the curves
  }
}

std::vector<runlog::GroupableRun> ComparisonPanel::groupable() const {
  std::vector<runlog::GroupableRun> out;
  out.reserve(runs_.size());
  for (const auto& r : runs_)
    out.push_back({r->meta ? &*r->meta : nullptr, r->cfg ? &*r->cfg : nullptr});
  return out;
}

QStringList ComparisonPanel::groupKeys() const {
  QStringList keys;
  for (const std::string& k : runlog::groupKeys(groupable())) keys << QString::fromStdString(k);
  return keys;
}

void ComparisonPanel::fillGroupCombos() {
  const QStringList keys = groupKeys();
  for (QComboBox* c : {groupCombo_, thenCombo_}) {
    QSignalBlocker block(c);
    c->clear();
    c->addItem(tr("none"));
    for (const QString& k : keys) c->addItem(k, k);
    // A key asked for by name (--group-by) that does not differ here is still offered.
    for (const QString& k : groupBy_)
      if (!keys.contains(k)) c->addItem(k, k);
  }
  for (int i = 0; i < 2; ++i) {
    QComboBox* c = i == 0 ? groupCombo_ : thenCombo_;
    QSignalBlocker block(c);
    c->setCurrentIndex(i < groupBy_.size() ? std::max(0, c->findData(groupBy_[i])) : 0);
  }
  thenCombo_->setEnabled(!groupBy_.isEmpty());
  bandCombo_->setEnabled(!groupBy_.isEmpty());
  membersBox_->setEnabled(!groupBy_.isEmpty());
}

bool ComparisonPanel::setGroupBy(const QStringList& keys, QString* error) {
  const auto runs = groupable();
  for (const QString& k : keys)
    if (!runlog::isGroupKey(runs, k.toStdString())) {
      if (error)
        *error = tr("No run field or config key %1 to group by; the keys whose values differ "
                    "here: %2")
                     .arg(k, groupKeys().isEmpty() ? tr("none") : groupKeys().join(", "));
      return false;
    }
  if (keys != groupBy_) {
    groupBy_ = keys;
    baseline_ = 0;
    options_.hidden.clear();
  }
  fillGroupCombos();
  regroup();
  return true;
}

void ComparisonPanel::regroup() {
  groups_.clear();
  if (!groupBy_.isEmpty()) {
    std::vector<std::string> keys;
    for (const QString& k : groupBy_) keys.push_back(k.toStdString());
    QStringList labels;
    for (const runlog::RunGroup& g : runlog::groupRuns(groupable(), keys)) {
      groups_.push_back({QString::fromStdString(g.label), QColor(), g.members});
      labels << groups_.back().label;
    }
    // Colours by label: a group keeps its colour while runs come and go.
    const std::vector<QColor> colors = distinctColors(labels);
    for (std::size_t i = 0; i < groups_.size(); ++i) groups_[i].color = colors[i];
  }
  fillBaselineCombo();
  redraw();
  rebuildSummary();
}

void ComparisonPanel::fillBaselineCombo() {
  QSignalBlocker block(baselineCombo_);
  baselineCombo_->clear();
  if (groupBy_.isEmpty())
    for (const auto& r : runs_) baselineCombo_->addItem(r->name);
  else
    for (const ComparedGroup& g : groups_) baselineCombo_->addItem(g.label);
  if (baseline_ >= baselineCombo_->count()) baseline_ = 0;
  baselineCombo_->setCurrentIndex(baseline_);
}

void ComparisonPanel::redraw() {
  charts_->draw(runs_, groupBy_.isEmpty() ? nullptr : &groups_, options_);
  std::vector<CurveLegend::Entry> entries;
  if (groupBy_.isEmpty())
    for (const auto& r : runs_)
      entries.push_back({r->name, QString(), r->color, !options_.hidden.contains(r->name)});
  else
    for (const ComparedGroup& g : groups_)
      entries.push_back({g.label, tr("%n run(s)", nullptr, static_cast<int>(g.members.size())),
                         g.color, !options_.hidden.contains(g.label)});
  legend_->setEntries(entries);
  const bool side = static_cast<int>(entries.size()) > kInPlotLegendEntries;
  legend_->setVisible(side);
  charts_->setInPlotLegends(!side);
}

void ComparisonPanel::setAlign(Align a) {
  options_.align = a;
  {
    QSignalBlocker block(alignCombo_);
    alignCombo_->setCurrentIndex(static_cast<int>(a));
  }
  for (MetricChart* c : charts()) c->setFollowing(true);
  redraw();
}

void ComparisonPanel::setBand(Band band) {
  options_.band = band;
  QSignalBlocker block(bandCombo_);
  bandCombo_->setCurrentIndex(static_cast<int>(band));
  redraw();
}

void ComparisonPanel::setShowMembers(bool on) {
  options_.showMembers = on;
  QSignalBlocker block(membersBox_);
  membersBox_->setChecked(on);
  redraw();
}

void ComparisonPanel::setSmoothing(double weight, bool timeWeighted) {
  options_.smoothing = std::clamp(weight, 0.0, 0.99);
  options_.timeWeighted = timeWeighted;
  {
    QSignalBlocker a(smoothingSpin_), b(timeWeightedBox_);
    smoothingSpin_->setValue(options_.smoothing);
    timeWeightedBox_->setChecked(timeWeighted);
  }
  redraw();
}

void ComparisonPanel::setBaseline(int index) {
  const int entries =
      groupBy_.isEmpty() ? static_cast<int>(runs_.size()) : static_cast<int>(groups_.size());
  baseline_ = std::clamp(index, 0, std::max(0, entries - 1));
  {
    QSignalBlocker block(baselineCombo_);
    baselineCombo_->setCurrentIndex(baseline_);
  }
  rebuildSummary();
  rebuildPerClass();
}

void ComparisonPanel::rebuildSummary() {
  if (groupBy_.isEmpty())
    tables_->fillRuns(runs_, baseline_);
  else
    tables_->fillGroups(runs_, groups_, baseline_);
}

void ComparisonPanel::rebuildPerClass() {
  // Grouped, the baseline group's first run is the per-class baseline.
  int base = baseline_;
  if (!groupBy_.isEmpty())
    base = baseline_ < static_cast<int>(groups_.size()) &&
                   !groups_[static_cast<std::size_t>(baseline_)].members.empty()
               ? static_cast<int>(groups_[static_cast<std::size_t>(baseline_)].members.front())
               : 0;
  std::vector<PerClassView::RunFigures> figures;
  for (const auto& r : runs_)
    figures.emplace_back(r->name, r->color, r->record.latestPerClass(runlog::kind::kVal),
                         r->record.latestPerClass(runlog::kind::kTest));
  perClass_->setRuns(std::move(figures), base);
}

QString ComparisonPanel::summaryMarkdown() const {
  return tables_->markdown();
}

}  // namespace amp::widgets
