#include "ComparisonSummary.h"

#include <QCoreApplication>
#include <QDir>
#include <QFont>
#include <QHeaderView>
#include <QScrollBar>
#include <QStringList>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "MetricFormat.h"
#include "config/ConfigDiff.h"
#include "metrics/GroupBands.h"
#include "util/Duration.h"

namespace amp::widgets {

namespace {
QString trSummary(const char* text) {
  return QCoreApplication::translate("amp::widgets::ComparisonSummary", text);
}

// Top-1 columns when a run is single-label, mAP ones when one is multi-label (Charades).
void labelKinds(const std::vector<std::unique_ptr<ComparedRun>>& runs, bool* anySingle,
                bool* anyMulti) {
  *anySingle = runs.empty();
  *anyMulti = false;
  for (const auto& run : runs) {
    const bool multi = run->record.multiLabel() || (run->meta && run->meta->multiLabel);
    *anySingle = *anySingle || !multi;
    *anyMulti = *anyMulti || multi;
  }
}

std::optional<double> times100(const std::optional<double>& v) {
  return v ? std::optional<double>(*v * 100.0) : std::nullopt;
}

std::optional<double> wallOf(const runlog::RunSummary& s) {
  return s.wallTimeSeconds > 0 ? std::optional<double>(s.wallTimeSeconds) : std::nullopt;
}

// The figures of the summary, each with how a value is written.
struct Figure {
  const char* column;
  std::function<std::optional<double>(const runlog::RunSummary&)> get;
  std::function<QString(double)> text;
  bool singleLabel = false, multiLabel = false;  ///< shown only when such a run is compared
};
const std::vector<Figure>& figures() {
  const auto pct = [](double v) { return QStringLiteral("%1 %").arg(v, 0, 'f', 1); };
  static const std::vector<Figure> list = {
      {"Best val top-1", [](const runlog::RunSummary& s) { return s.bestValTop1; }, pct, true},
      {"Final val top-1", [](const runlog::RunSummary& s) { return s.finalValTop1; }, pct, true},
      {"Best val mAP", [](const runlog::RunSummary& s) { return times100(s.bestValMap); }, pct,
       false, true},
      {"Final val mAP", [](const runlog::RunSummary& s) { return times100(s.finalValMap); }, pct,
       false, true},
      {"Final loss", [](const runlog::RunSummary& s) { return s.finalLoss; },
       [](double v) { return QString::number(v, 'f', 4); }},
      {"Peak memory", [](const runlog::RunSummary& s) { return s.peakMemoryBytes; },
       [](double v) { return formatMiB(v); }},
      {"Iterations/s", [](const runlog::RunSummary& s) { return s.itersPerSecond; },
       [](double v) { return QString::number(v, 'f', 2); }},
      {"Clips/s", [](const runlog::RunSummary& s) { return s.clipsPerSecond; },
       [](double v) { return QString::number(v, 'f', 1); }},
  };
  return list;
}

bool figureShown(const Figure& f, bool anySingle, bool anyMulti) {
  return (!f.singleLabel || anySingle) && (!f.multiLabel || anyMulti);
}

QString withRatio(const QString& text, const std::optional<double>& v,
                  const std::optional<double>& base) {
  const auto r = runlog::ratio(v, base);
  return r ? QStringLiteral("%1 (%2×)").arg(text).arg(*r, 0, 'f', 2) : text;
}
}  // namespace

ComparisonSummary::ComparisonSummary(QTableWidget* summary, QTableWidget* diff, QTabWidget* tabs)
    : summary_(summary), diff_(diff), tabs_(tabs) {}

void ComparisonSummary::fillRuns(const std::vector<std::unique_ptr<ComparedRun>>& runs,
                                 int baseline) {
  bool anySingle = false, anyMulti = false;
  labelKinds(runs, &anySingle, &anyMulti);
  QStringList columns = {trSummary("Run"), trSummary("Precision")};
  for (const Figure& f : figures())
    if (figureShown(f, anySingle, anyMulti)) columns << trSummary(f.column);
  columns << trSummary("Skipped steps") << trSummary("Wall time") << trSummary("Status");
  summary_->clear();
  summary_->setColumnCount(static_cast<int>(columns.size()));
  summary_->setHorizontalHeaderLabels(columns);
  summary_->setRowCount(static_cast<int>(runs.size()));
  std::optional<runlog::RunSummary> base;
  if (baseline < static_cast<int>(runs.size()))
    base = runs[static_cast<std::size_t>(baseline)]->summary;
  for (int row = 0; row < static_cast<int>(runs.size()); ++row) {
    const ComparedRun& run = *runs[static_cast<std::size_t>(row)];
    const runlog::RunSummary& s = run.summary;
    const bool isBase = row == baseline;
    // value text, and its ratio to the baseline in brackets (not on the baseline's own row)
    auto cell = [&](const std::optional<double>& v, const std::optional<double>& b,
                    const QString& text) {
      if (!v) return QStringLiteral("–");
      if (isBase || runs.size() < 2) return text;
      return withRatio(text, v, b);
    };
    QStringList cells;
    cells << run.name << (run.meta ? QString::fromStdString(run.meta->precision) : QString());
    for (const Figure& f : figures()) {
      if (!figureShown(f, anySingle, anyMulti)) continue;
      const std::optional<double> v = f.get(s);
      cells << cell(v, base ? f.get(*base) : std::nullopt, v ? f.text(*v) : QString());
    }
    cells << QString::number(s.skippedSteps);
    cells << cell(wallOf(s), base ? wallOf(*base) : std::nullopt,
                  QString::fromStdString(util::formatDuration(s.wallTimeSeconds)));
    cells << (run.meta
                  ? QString::fromLatin1(runlog::toString(run.meta->status)) +
                        (run.meta->error.empty() ? QString()
                                                 : ": " + QString::fromStdString(run.meta->error)) +
                        (run.problem.isEmpty() ? QString()
                                               : QStringLiteral(" (%1)").arg(run.problem))
                  : run.problem);
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == cells.size() - 1) item->setToolTip(cells[c]);  // the status and what was not read
      if (c == 0) {
        item->setForeground(run.color);
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
        item->setToolTip(QDir::toNativeSeparators(run.dir) +
                         (isBase ? trSummary("\n(baseline)") : QString()));
        if (isBase) item->setText(run.name + trSummary(" (baseline)"));
      }
      summary_->setItem(row, c, item);
    }
  }
  summary_->resizeColumnsToContents();
  fitPane(static_cast<int>(runs.size()));
}

void ComparisonSummary::fillGroups(const std::vector<std::unique_ptr<ComparedRun>>& runs,
                                   const std::vector<ComparedGroup>& groups, int baseline) {
  bool anySingle = false, anyMulti = false;
  labelKinds(runs, &anySingle, &anyMulti);
  std::vector<const Figure*> shown;
  for (const Figure& f : figures())
    if (figureShown(f, anySingle, anyMulti)) shown.push_back(&f);
  QStringList columns = {trSummary("Group"), trSummary("Runs")};
  for (const Figure* f : shown) columns << trSummary(f->column);
  columns << trSummary("Skipped steps") << trSummary("Wall time");
  summary_->clear();
  summary_->setColumnCount(static_cast<int>(columns.size()));
  summary_->setHorizontalHeaderLabels(columns);
  summary_->setRowCount(static_cast<int>(groups.size()));
  std::vector<runlog::RunSummary> summaries;
  summaries.reserve(runs.size());
  for (const auto& r : runs) summaries.push_back(r->summary);
  // Each figure's statistics over a group's runs.
  using Get = std::function<std::optional<double>(const runlog::RunSummary&)>;
  const auto stats = [&summaries](const ComparedGroup& g, const Get& get) {
    std::vector<std::optional<double>> values;
    for (std::size_t m : g.members) values.push_back(get(summaries[m]));
    return metrics::figureStats(values);
  };
  std::vector<Get> getters;
  std::vector<std::function<QString(double)>> texts;
  for (const Figure* f : shown) getters.push_back(f->get), texts.push_back(f->text);
  getters.push_back([](const runlog::RunSummary& s) {
    return std::optional<double>(static_cast<double>(s.skippedSteps));
  });
  texts.push_back([](double v) { return QString::number(v, 'f', v == std::floor(v) ? 0 : 1); });
  getters.push_back(wallOf);
  texts.push_back([](double v) { return QString::fromStdString(util::formatDuration(v)); });
  const ComparedGroup* base = baseline >= 0 && baseline < static_cast<int>(groups.size())
                                  ? &groups[static_cast<std::size_t>(baseline)]
                                  : nullptr;
  for (int row = 0; row < static_cast<int>(groups.size()); ++row) {
    const ComparedGroup& g = groups[static_cast<std::size_t>(row)];
    const bool isBase = &g == base;
    auto* name = new QTableWidgetItem(isBase ? g.label + trSummary(" (baseline)") : g.label);
    name->setForeground(g.color);
    QFont font = name->font();
    font.setBold(true);
    name->setFont(font);
    QStringList members;
    for (std::size_t m : g.members) members << runs[m]->name;
    name->setToolTip(members.join('\n'));
    summary_->setItem(row, 0, name);
    summary_->setItem(row, 1, new QTableWidgetItem(QString::number(g.members.size())));
    for (std::size_t k = 0; k < getters.size(); ++k) {
      const auto s = stats(g, getters[k]);
      QString text = QStringLiteral("–");
      if (s) {
        text = texts[k](s->mean);  // "74.2 % ± 0.3 %": the spread in the figure's own unit
        if (s->n > 1) text += QStringLiteral(" ± %1").arg(texts[k](s->std));
        if (s->n < static_cast<int>(g.members.size())) text += QStringLiteral(" [n=%1]").arg(s->n);
        if (!isBase && base && groups.size() > 1) {
          const auto b = stats(*base, getters[k]);
          text = withRatio(text, s->mean, b ? std::optional<double>(b->mean) : std::nullopt);
        }
      }
      auto* item = new QTableWidgetItem(text);
      if (s)
        item->setToolTip(
            trSummary("%1 of %2 runs: mean %3, std %4, min %5, max %6")
                .arg(s->n)
                .arg(g.members.size())
                .arg(texts[k](s->mean), texts[k](s->std), texts[k](s->min), texts[k](s->max)));
      summary_->setItem(row, static_cast<int>(k) + 2, item);
    }
  }
  summary_->resizeColumnsToContents();
  fitPane(static_cast<int>(groups.size()));
}

void ComparisonSummary::fitPane(int rowCount) {
  // The pane below the charts holds every row (up to six, then it scrolls) and the tabs.
  const int rows = std::min(rowCount, 6);
  const int table = summary_->horizontalHeader()->sizeHint().height() +
                    rows * summary_->verticalHeader()->defaultSectionSize() +
                    2 * summary_->frameWidth() +
                    summary_->style()->pixelMetric(QStyle::PM_ScrollBarExtent);
  tabs_->setMinimumHeight(table + tabs_->tabBar()->sizeHint().height() + 6);
}

QString ComparisonSummary::markdown() const {
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

void ComparisonSummary::fillDiff(const std::vector<std::unique_ptr<ComparedRun>>& runs) {
  diff_->clear();
  std::vector<const config::Config*> cfgs;
  QStringList header{trSummary("Key")};
  QStringList missing;
  for (const auto& r : runs) {
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
  QString title =
      cfgs.size() >= 2 ? trSummary("Config diff (%1)").arg(diffs.size()) : trSummary("Config diff");
  tabs_->setTabText(1, title);
  tabs_->setTabToolTip(
      1, missing.isEmpty() ? trSummary("Only the keys whose values differ")
                           : trSummary("No readable config.yaml in: %1").arg(missing.join(", ")));
}

}  // namespace amp::widgets
