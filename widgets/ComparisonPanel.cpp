#include "ComparisonPanel.h"

#include <set>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>

#include "MetricChart.h"
#include "PerClassView.h"
#include "checkpoint/ImportedRun.h"
#include "config/ConfigDiff.h"
#include "configfile/ConfigLoader.h"
#include "runlog/RunDirectory.h"
#include "util/Duration.h"

namespace amp::widgets {

struct ComparisonPanel::Run {
  QString dir;
  QString name;
  std::optional<runlog::RunMetadata> meta;
  std::optional<config::Config> cfg;
  QString problem;
  runlog::RunRecord record;
  QColor color;
};

namespace {
// What a chart draws of a value: as logged, 100 - an error in percent (top-1), or a fraction in
// percent (mAP).
enum class Value { Raw, Accuracy, Percent };
struct ChartSpec {
  const char* id;  ///< what chart() finds it by, the same in every language
  const char* title;
  const char* unit;
  const char* kind;
  std::vector<const char*> metrics;  ///< the first present one is drawn
  bool smooth;
  Value value;
  double divide;
  bool log2;
  bool readoutUnit;  ///< `unit` is a unit the tracker writes after values (not a description)
};
const std::vector<ChartSpec>& chartSpecs() {
  static const std::vector<ChartSpec> specs = {
      {"train_loss",
       "Training loss (smoothed)",
       "cross entropy",
       "train",
       {"loss"},
       true,
       Value::Raw,
       1,
       false,
       false},
      {"val_top1",
       "Val top-1 accuracy",
       "%",
       "val",
       {"top1_err"},
       false,
       Value::Accuracy,
       1,
       false,
       true},
      // Multi-label runs (Charades): mean average precision instead of top-1 (chartShown).
      {"val_map", "Val mAP", "%", "val", {"map"}, false, Value::Percent, 1, false, true},
      {"peak_memory",
       "Peak memory",
       "MiB",
       "train",
       {"mem_peak_bytes", "mem_peak_rss_bytes"},
       false,
       Value::Raw,
       1024.0 * 1024.0,
       false,
       true},
      {"loss_scale",
       "Loss scale",
       "factor (log2)",
       "train",
       {"loss_scale"},
       false,
       Value::Raw,
       1,
       true,
       false},
      {"throughput",
       "Throughput (smoothed)",
       "clips/s",
       "train",
       {"clips_per_s"},
       true,
       Value::Raw,
       1,
       false,
       true},
      {"learning_rate", "Learning rate", "", "train", {"lr"}, false, Value::Raw, 1, false, false},
  };
  return specs;
}

// The top-1 chart is shown when a run is single-label, the mAP chart when one is multi-label: a
// comparison of Charades runs shows mAP where one of Kinetics runs shows top-1.
bool chartShown(const ChartSpec& spec, bool anySingleLabel, bool anyMultiLabel) {
  if (spec.id == std::string("val_top1")) return anySingleLabel;
  if (spec.id == std::string("val_map")) return anyMultiLabel;
  return true;
}

bool isMultiLabel(const runlog::RunRecord& record, const std::optional<runlog::RunMetadata>& meta) {
  return record.multiLabel() || (meta && meta->multiLabel);
}

}  // namespace

ComparisonPanel::ComparisonPanel(QWidget* parent)
    : QWidget(parent),
      header_(new QLabel),
      alignCombo_(new QComboBox),
      baselineCombo_(new QComboBox),
      summary_(new QTableWidget),
      diff_(new QTableWidget),
      perClass_(new PerClassView),
      tabs_(new QTabWidget),
      liveTimer_(new QTimer(this)) {
  header_->setWordWrap(true);
  alignCombo_->addItems({tr("Step"), tr("Epoch"), tr("Relative time")});
  alignCombo_->setToolTip(tr("How the runs' curves are lined up on the X axis"));
  baselineCombo_->setToolTip(tr("The run the ratios in the summary are taken against"));
  auto* copy = new QPushButton(tr("Copy as Markdown"));
  copy->setToolTip(tr("Copy the summary table, ratios included, for a paper or an issue"));
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(new QLabel(tr("Align by:")));
  top->addWidget(alignCombo_);
  top->addSpacing(8);
  top->addWidget(new QLabel(tr("Baseline:")));
  top->addWidget(baselineCombo_);
  top->addWidget(copy);

  auto* chartsBox = new QWidget;
  grid_ = new QGridLayout(chartsBox);
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setSpacing(4);
  for (std::size_t i = 0; i < chartSpecs().size(); ++i) {
    auto* c = new MetricChart(QString::fromLatin1(chartSpecs()[i].id), tr(chartSpecs()[i].title),
                              tr(chartSpecs()[i].unit), chartsBox);
    if (chartSpecs()[i].log2) c->setYScale(MetricChart::YScale::Log2);
    if (chartSpecs()[i].value != Value::Raw) c->setLegendCorner(Qt::AlignBottom | Qt::AlignRight);
    if (chartSpecs()[i].readoutUnit) c->setValueUnit(tr(chartSpecs()[i].unit));
    allCharts_.push_back(c);
  }
  linkCharts(allCharts_, this);
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
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(chartsBox);
  split->addWidget(tabs_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(split, 1);

  connect(alignCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setAlign(static_cast<Align>(i)); });
  connect(baselineCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i >= 0) setBaseline(i);
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
  runs_.clear();
  QStringList keys;
  for (const QString& dir : dirs) keys << QDir(dir).absolutePath();
  const std::vector<QColor> colors =
      distinctColors(keys);  // two runs of one or of neighbouring colours would look like one
  for (int i = 0; i < dirs.size(); ++i) {
    auto run = std::make_unique<Run>();
    run->dir = dirs[i];
    run->color = colors[static_cast<std::size_t>(i)];
    runs_.push_back(std::move(run));
  }
  baseline_ = 0;
  reload();
}

void ComparisonPanel::reload() {
  bool live = false;
  for (auto& run : runs_) {
    runlog::RunDirectory rd(run->dir.toStdString());
    std::string why;
    run->meta = rd.readMetadata(&why);
    run->problem = run->meta ? QString() : QString::fromStdString(why);
    run->name = run->meta && !run->meta->name.empty() ? QString::fromStdString(run->meta->name)
                                                      : QDir(run->dir).dirName();
    // What could not be read marks this run (its status cell); its curves and the others stay.
    const auto mark = [&run](const QString& what) {
      run->problem += (run->problem.isEmpty() ? QString() : QStringLiteral("; ")) + what;
    };
    // A run with no metrics yet still shows with its metadata; what its files hold that could not
    // be read is in readProblems().
    (void)run->record.loadRunDirectory(run->dir.toStdString(), nullptr);
    for (const auto& p : run->record.readProblems()) mark(QString::fromStdString(p));
    if (run->meta) checkpoint::describeImportedRun(*run->meta, rd.dir());
    if (rd.isPySlowFast()) {  // its config from its newest checkpoint's "cfg" (unknown keys left
                              // out)
      std::string why;
      const auto imported = checkpoint::readImportedRunConfig(rd.dir(), &why);
      run->cfg = imported ? std::optional<config::Config>(imported->loaded.config) : std::nullopt;
      if (!imported && !why.empty())
        mark(tr("config not read: %1").arg(QString::fromStdString(why)));
      if (imported &&
          !imported->loaded.ok())  // keys of another PySlowFast version are left out, not this
        for (const auto& d : imported->loaded.diagnostics)
          if (d.isError() && d.message.find("alias expands") != std::string::npos)
            mark(tr("config not read: %1").arg(QString::fromStdString(d.toString())));
    } else {
      auto loaded = config::ConfigLoader().loadFile(rd.configPath());
      run->cfg = loaded.ok() ? std::optional<config::Config>(loaded.config) : std::nullopt;
      // A config.yaml from a stranger that is refused (an alias bomb, a broken file) marks this
      // run; its curves and the other runs are shown as ever.
      if (!loaded.ok() && QFileInfo::exists(QString::fromStdString(rd.configPath())))
        mark(tr("config not read: %1")
                 .arg(QString::fromStdString(
                     config::sortedByLocation(loaded.diagnostics).front().toString())));
    }
    live = live || (run->meta && run->meta->status == runlog::RunStatus::Running &&
                    !runlog::RunDirectory::isAbandoned(*run->meta));
  }
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
  {
    QSignalBlocker block(baselineCombo_);
    baselineCombo_->clear();
    for (const auto& r : runs_) baselineCombo_->addItem(r->name);
    if (baseline_ >= static_cast<int>(runs_.size())) baseline_ = 0;
    baselineCombo_->setCurrentIndex(baseline_);
  }
  header_->setText(runs_.size() < 2
                       ? tr("Select two or more runs in the run list to compare them (Ctrl+click).")
                       : tr("Comparing %1 runs").arg(runs_.size()));
  rebuildCharts();
  rebuildSummary();
  rebuildDiff();
  rebuildPerClass();
}

MetricChart* ComparisonPanel::chart(const QString& id) const {
  for (MetricChart* c : charts_)  // the shown ones
    if (c->id() == id) return c;
  return nullptr;
}

void ComparisonPanel::setAlign(Align a) {
  align_ = a;
  {
    QSignalBlocker block(alignCombo_);
    alignCombo_->setCurrentIndex(static_cast<int>(a));
  }
  for (MetricChart* c : charts_) c->setFollowing(true);
  rebuildCharts();
}

void ComparisonPanel::setBaseline(int index) {
  baseline_ = std::clamp(index, 0, std::max(0, static_cast<int>(runs_.size()) - 1));
  {
    QSignalBlocker block(baselineCombo_);
    baselineCombo_->setCurrentIndex(baseline_);
  }
  rebuildSummary();
  rebuildPerClass();
}

void ComparisonPanel::rebuildPerClass() {
  std::vector<PerClassView::RunFigures> figures;
  for (const auto& r : runs_)
    figures.emplace_back(r->name, r->color, r->record.latestPerClass(runlog::kind::kVal),
                         r->record.latestPerClass(runlog::kind::kTest));
  perClass_->setRuns(std::move(figures), baseline_);
}

void ComparisonPanel::rebuildCharts() {
  const QString label = align_ == Align::Step    ? tr("step")
                        : align_ == Align::Epoch ? tr("epoch")
                                                 : tr("time (s)");
  bool anySingle = runs_.empty(), anyMulti = false;
  for (const auto& run : runs_) {
    const bool multi = isMultiLabel(run->record, run->meta);
    anySingle = anySingle || !multi;
    anyMulti = anyMulti || multi;
  }
  std::vector<MetricChart*> shown;
  for (std::size_t ci = 0; ci < allCharts_.size(); ++ci)
    if (chartShown(chartSpecs()[ci], anySingle, anyMulti)) shown.push_back(allCharts_[ci]);
  if (shown != charts_) {  // the shown charts fill the grid in order, three to a row
    for (MetricChart* c : allCharts_) {
      grid_->removeWidget(c);
      c->hide();
    }
    for (std::size_t i = 0; i < shown.size(); ++i) {
      grid_->addWidget(shown[i], static_cast<int>(i) / 3, static_cast<int>(i) % 3);
      shown[i]->show();
    }
    charts_ = shown;
  }
  for (std::size_t ci = 0; ci < allCharts_.size(); ++ci) {
    MetricChart* c = allCharts_[ci];
    const ChartSpec& spec = chartSpecs()[ci];
    c->removeAllSeries();
    c->setXLabel(label);
    if (c->isHidden()) continue;
    for (const auto& run : runs_) {
      const runlog::Series* s = nullptr;
      for (const char* m : spec.metrics)
        if ((s = run->record.series(spec.kind, m))) break;
      const int idx = c->addSeries(
          run->name, run->color,
          spec.kind == std::string("val") ? MetricChart::Style::Points : MetricChart::Style::Line);
      if (!s) continue;
      const std::vector<double>& xs = align_ == Align::Step    ? s->step
                                      : align_ == Align::Epoch ? s->epoch
                                                               : s->time;
      QVector<double> x, y;
      x.reserve(static_cast<int>(s->size()));
      y.reserve(static_cast<int>(s->size()));
      SmoothedValue smooth(0.95);
      for (std::size_t i = 0; i < s->size(); ++i) {
        double v = s->value[i];
        if (spec.value == Value::Accuracy) v = 100.0 - v;
        if (spec.value == Value::Percent) v *= 100.0;
        v /= spec.divide;
        if (spec.smooth) {
          if (!std::isfinite(v)) continue;
          v = smooth.add(v);
        }
        x.push_back(xs[i]);
        y.push_back(v);
      }
      c->appendPoints(idx, x, y);
    }
    if (spec.log2) {  // the loss scale: say when no run scaled its loss (bf16, FP32)
      bool any = false, scaled = false;
      for (int i = 0; i < c->seriesCount(); ++i)
        for (auto it = c->seriesGraph(i)->data()->constBegin();
             it != c->seriesGraph(i)->data()->constEnd(); ++it)
          any = true, scaled = scaled || it->value != 1.0;
      c->setNote(any && !scaled ? tr("No run scaled its loss (1 at every step):\nbfloat16 and FP32 "
                                     "need no loss scaling.")
                                : QString());
    }
    c->fitIfFollowing();
    c->replot(QCustomPlot::rpQueuedReplot);
  }
}

void ComparisonPanel::rebuildSummary() {
  // Top-1 columns when a run is single-label, mAP ones when one is multi-label (Charades).
  bool anySingle = runs_.empty(), anyMulti = false;
  for (const auto& run : runs_) {
    const bool multi = isMultiLabel(run->record, run->meta);
    anySingle = anySingle || !multi;
    anyMulti = anyMulti || multi;
  }
  QStringList columns = {tr("Run"), tr("Precision")};
  if (anySingle) columns << tr("Best val top-1") << tr("Final val top-1");
  if (anyMulti) columns << tr("Best val mAP") << tr("Final val mAP");
  columns << tr("Final loss") << tr("Peak memory") << tr("Iterations/s") << tr("Clips/s")
          << tr("Skipped steps") << tr("Wall time") << tr("Status");
  summary_->clear();
  summary_->setColumnCount(static_cast<int>(columns.size()));
  summary_->setHorizontalHeaderLabels(columns);
  summary_->setRowCount(static_cast<int>(runs_.size()));
  std::optional<runlog::RunSummary> base;
  if (baseline_ < static_cast<int>(runs_.size()))
    base = runs_[static_cast<std::size_t>(baseline_)]->record.summary();
  for (int row = 0; row < static_cast<int>(runs_.size()); ++row) {
    const Run& run = *runs_[static_cast<std::size_t>(row)];
    const runlog::RunSummary s = run.record.summary();
    const bool isBase = row == baseline_;
    // value text, and its ratio to the baseline in brackets (not on the baseline's own row)
    auto cell = [&](const std::optional<double>& v, const std::optional<double>& b,
                    const QString& text) {
      if (!v) return QStringLiteral("–");
      if (isBase || runs_.size() < 2) return text;
      const auto r = runlog::ratio(v, b);
      return r ? QStringLiteral("%1 (%2×)").arg(text).arg(*r, 0, 'f', 2) : text;
    };
    const auto pct = [](const std::optional<double>& v) {
      return v ? QStringLiteral("%1 %").arg(*v, 0, 'f', 1) : QString();
    };
    QStringList cells;
    cells << run.name << (run.meta ? QString::fromStdString(run.meta->precision) : QString());
    if (anySingle) {
      cells << cell(s.bestValTop1, base ? base->bestValTop1 : std::nullopt, pct(s.bestValTop1));
      cells << cell(s.finalValTop1, base ? base->finalValTop1 : std::nullopt, pct(s.finalValTop1));
    }
    if (anyMulti) {  // fractions, shown in percent; higher is better, as top-1
      const auto times100 = [](const std::optional<double>& v) {
        return v ? std::optional<double>(*v * 100.0) : std::nullopt;
      };
      cells << cell(s.bestValMap, base ? base->bestValMap : std::nullopt,
                    pct(times100(s.bestValMap)));
      cells << cell(s.finalValMap, base ? base->finalValMap : std::nullopt,
                    pct(times100(s.finalValMap)));
    }
    cells << cell(s.finalLoss, base ? base->finalLoss : std::nullopt,
                  s.finalLoss ? QString::number(*s.finalLoss, 'f', 4) : QString());
    cells << cell(s.peakMemoryBytes, base ? base->peakMemoryBytes : std::nullopt,
                  s.peakMemoryBytes ? formatMiB(*s.peakMemoryBytes) : QString());
    cells << cell(s.itersPerSecond, base ? base->itersPerSecond : std::nullopt,
                  s.itersPerSecond ? QString::number(*s.itersPerSecond, 'f', 2) : QString());
    cells << cell(s.clipsPerSecond, base ? base->clipsPerSecond : std::nullopt,
                  s.clipsPerSecond ? QString::number(*s.clipsPerSecond, 'f', 1) : QString());
    cells << QString::number(s.skippedSteps);
    const std::optional<double> wall =
        s.wallTimeSeconds > 0 ? std::optional<double>(s.wallTimeSeconds) : std::nullopt;
    const std::optional<double> baseWall = base && base->wallTimeSeconds > 0
                                               ? std::optional<double>(base->wallTimeSeconds)
                                               : std::nullopt;
    cells << cell(wall, baseWall, QString::fromStdString(util::formatDuration(s.wallTimeSeconds)));
    cells << (run.meta
                  ? QString::fromLatin1(runlog::toString(run.meta->status)) +
                        (run.meta->error.empty() ? QString()
                                                 : ": " + QString::fromStdString(run.meta->error)) +
                        (run.problem.isEmpty() ? QString()
                                               : QStringLiteral(" (%1)").arg(run.problem))
                  : run.problem);
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == cells.size() - 1)
        item->setToolTip(cells[c]);  // the status and what was not read, whole
      if (c == 0) {
        item->setForeground(run.color);
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
        item->setToolTip(QDir::toNativeSeparators(run.dir) +
                         (isBase ? tr("\n(baseline)") : QString()));
        if (isBase) item->setText(run.name + tr(" (baseline)"));
      }
      summary_->setItem(row, c, item);
    }
  }
  summary_->resizeColumnsToContents();
  // The pane below the charts holds every run's row (up to six, then it scrolls) and the tabs.
  const int rows = std::min(static_cast<int>(runs_.size()), 6);
  const int table = summary_->horizontalHeader()->sizeHint().height() +
                    rows * summary_->verticalHeader()->defaultSectionSize() +
                    2 * summary_->frameWidth() +
                    summary_->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
  tabs_->setMinimumHeight(table + tabs_->tabBar()->sizeHint().height() + 6);
}

QString ComparisonPanel::summaryMarkdown() const {
  QString md;
  QStringList head;
  for (int c = 0; c < summary_->columnCount(); ++c)
    head << summary_->horizontalHeaderItem(c)->text();
  md += "| " + head.join(" | ") + " |\n|" + QString("---|").repeated(head.size()) + "\n";
  for (int r = 0; r < summary_->rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < summary_->columnCount(); ++c)
      row << (summary_->item(r, c) ? summary_->item(r, c)->text() : QString());
    md += "| " + row.join(" | ") + " |\n";
  }
  return md;
}

void ComparisonPanel::rebuildDiff() {
  diff_->clear();
  std::vector<const config::Config*> cfgs;
  QStringList header{tr("Key")};
  QStringList missing;
  for (const auto& r : runs_) {
    if (r->cfg) {
      cfgs.push_back(&*r->cfg);
      header << r->name;
    } else {
      missing << r->name;
    }
  }
  const auto diffs = config::diffConfigs(cfgs);
  diff_->setColumnCount(static_cast<int>(header.size()));
  diff_->setHorizontalHeaderLabels(header);
  diff_->setRowCount(static_cast<int>(diffs.size()));
  for (int row = 0; row < static_cast<int>(diffs.size()); ++row) {
    const auto& d = diffs[static_cast<std::size_t>(row)];
    auto* key = new QTableWidgetItem(QString::fromStdString(d.key));
    if (const config::KeyDef* def = cfgs.front()->schema().find(d.key))
      key->setToolTip(QString::fromStdString(def->doc));
    diff_->setItem(row, 0, key);
    for (std::size_t i = 0; i < d.values.size(); ++i)
      diff_->setItem(row, static_cast<int>(i) + 1,
                     new QTableWidgetItem(QString::fromStdString(d.values[i])));
  }
  diff_->resizeColumnsToContents();
  QString title = cfgs.size() >= 2 ? tr("Config diff (%1)").arg(diffs.size()) : tr("Config diff");
  tabs_->setTabText(1, title);
  tabs_->setTabToolTip(1, missing.isEmpty()
                              ? tr("Only the keys whose values differ")
                              : tr("No readable config.yaml in: %1").arg(missing.join(", ")));
}

}  // namespace amp::widgets
