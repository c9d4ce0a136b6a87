#include "ComparisonCharts.h"

#include <QCoreApplication>
#include <QGridLayout>
#include <QVector>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "MetricChart.h"
#include "SmoothedValue.h"
#include "metrics/GroupBands.h"

namespace amp::widgets {

namespace {
QString trCharts(const char* text) {
  return QCoreApplication::translate("amp::widgets::ComparisonPanel", text);
}

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
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "Training loss (smoothed)"),
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "cross entropy"),
       "train",
       {"loss"},
       true,
       Value::Raw,
       1,
       false,
       false},
      {"val_top1",
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "Val top-1 accuracy"),
       "%",
       "val",
       {"top1_err"},
       false,
       Value::Accuracy,
       1,
       false,
       true},
      // Multi-label runs (Charades): mean average precision instead of top-1 (chartShown).
      {"val_map",
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "Val mAP"),
       "%",
       "val",
       {"map"},
       false,
       Value::Percent,
       1,
       false,
       true},
      {"peak_memory",
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "Peak memory"),
       "MiB",
       "train",
       {"mem_peak_bytes", "mem_peak_rss_bytes"},
       false,
       Value::Raw,
       1024.0 * 1024.0,
       false,
       true},
      {"loss_scale",
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "Loss scale"),
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "factor (log2)"),
       "train",
       {"loss_scale"},
       false,
       Value::Raw,
       1,
       true,
       false},
      {"throughput",
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "Throughput (smoothed)"),
       "clips/s",
       "train",
       {"clips_per_s"},
       true,
       Value::Raw,
       1,
       false,
       true},
      {"learning_rate",
       QT_TRANSLATE_NOOP("amp::widgets::ComparisonPanel", "Learning rate"),
       "",
       "train",
       {"lr"},
       false,
       Value::Raw,
       1,
       false,
       false},
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

const runlog::Series* seriesFor(const ComparedRun& run, const ChartSpec& spec) {
  for (const char* m : spec.metrics)
    if (const runlog::Series* s = run.record.series(spec.kind, m)) return s;
  return nullptr;
}

const std::vector<double>& xsOf(const runlog::Series& s, ComparisonCharts::Align a) {
  return a == ComparisonCharts::Align::Step    ? s.step
         : a == ComparisonCharts::Align::Epoch ? s.epoch
                                               : s.time;
}

// The median distance between a series' successive x (0 when it has fewer than two).
double medianSpacing(const std::vector<double>& xs) {
  std::vector<double> d;
  d.reserve(xs.size());
  for (std::size_t i = 1; i < xs.size(); ++i)
    if (xs[i] > xs[i - 1]) d.push_back(xs[i] - xs[i - 1]);
  if (d.empty()) return 0;
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

// What a chart draws of one run's series: the value as the chart shows it, smoothed where the
// chart is (non-finite points then left out). `interval`: the time-weighted smoothing's unit.
void curveOf(const runlog::Series& s, const ChartSpec& spec, const ComparisonCharts::Options& o,
             double interval, QVector<double>& cx, QVector<double>& cy) {
  const std::vector<double>& xs = xsOf(s, o.align);
  cx.clear();
  cy.clear();
  cx.reserve(static_cast<int>(s.size()));
  cy.reserve(static_cast<int>(s.size()));
  SmoothedValue smooth(o.smoothing);
  bool first = true;
  double lastX = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    double v = s.value[i];
    if (spec.value == Value::Accuracy) v = 100.0 - v;
    if (spec.value == Value::Percent) v *= 100.0;
    v /= spec.divide;
    if (spec.smooth) {
      if (!std::isfinite(v)) continue;
      if (o.timeWeighted && interval > 0)
        v = smooth.add(v, first ? 1.0 : (xs[i] - lastX) / interval);
      else
        v = smooth.add(v);
      first = false;
      lastX = xs[i];
    }
    cx.push_back(xs[i]);
    cy.push_back(v);
  }
}

// The time-weighted smoothing's unit on one chart: the smallest of the runs' median spacings, so
// the densest run is smoothed exactly as TensorBoard smooths it.
double smoothingInterval(const std::vector<std::unique_ptr<ComparedRun>>& runs,
                         const ChartSpec& spec, ComparisonCharts::Align align) {
  double best = 0;
  for (const auto& run : runs)
    if (const runlog::Series* s = seriesFor(*run, spec)) {
      const double m = medianSpacing(xsOf(*s, align));
      if (m > 0 && (best == 0 || m < best)) best = m;
    }
  return best;
}

QVector<double> toQVector(const std::vector<double>& v) {
  return QVector<double>(v.begin(), v.end());
}
}  // namespace

struct ComparisonCharts::Curve {
  QVector<double> x, y;
};

struct ComparisonCharts::CachedCurve {
  const ComparedRun* run = nullptr;
  std::uint64_t generation = 0;
  std::size_t events = 0;
  Align align = Align::Step;
  double smoothing = -1, interval = -1;
  bool timeWeighted = false;
  Curve curve;
};

ComparisonCharts::~ComparisonCharts() = default;

const ComparisonCharts::Curve& ComparisonCharts::curveFor(std::size_t ci, std::size_t r,
                                                          const ComparedRun& run, const Options& o,
                                                          double interval) {
  std::vector<CachedCurve>& cache = curves_[ci];
  if (cache.size() <= r) cache.resize(r + 1);
  CachedCurve& c = cache[r];
  const bool fresh = c.run == &run && c.generation == run.record.generation() &&
                     c.events == run.record.eventCount() && c.align == o.align &&
                     c.smoothing == o.smoothing && c.timeWeighted == o.timeWeighted &&
                     c.interval == interval;
  if (!fresh) {
    c = CachedCurve{&run,
                    run.record.generation(),
                    run.record.eventCount(),
                    o.align,
                    o.smoothing,
                    interval,
                    o.timeWeighted,
                    {}};
    if (const runlog::Series* s = seriesFor(run, chartSpecs()[ci]))
      curveOf(*s, chartSpecs()[ci], o, interval, c.curve.x, c.curve.y);
  }
  return c.curve;
}

ComparisonCharts::ComparisonCharts(QWidget* parent)
    : QWidget(parent), grid_(new QGridLayout(this)) {
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setSpacing(4);
  for (const ChartSpec& spec : chartSpecs()) {
    auto* c = new MetricChart(QString::fromLatin1(spec.id), trCharts(spec.title),
                              trCharts(spec.unit), this);
    if (spec.log2) c->setYScale(MetricChart::YScale::Log2);
    if (spec.value != Value::Raw) c->setLegendCorner(Qt::AlignBottom | Qt::AlignRight);
    if (spec.readoutUnit) c->setValueUnit(trCharts(spec.unit));
    c->hide();
    allCharts_.push_back(c);
    entryOfSeries_.emplace_back();
    curves_.emplace_back();
    connect(c, &MetricChart::seriesHovered, this,
            [this, c](int series) { emit entryHovered(entryOf(c, series)); });
  }
  linkCharts(allCharts_, this);
}

MetricChart* ComparisonCharts::chart(const QString& id) const {
  for (MetricChart* c : charts_)  // the shown ones
    if (c->id() == id) return c;
  return nullptr;
}

int ComparisonCharts::entryOf(const MetricChart* chart, int series) const {
  for (std::size_t ci = 0; ci < allCharts_.size(); ++ci)
    if (allCharts_[ci] == chart) {
      const auto& entries = entryOfSeries_[ci];
      return series >= 0 && series < static_cast<int>(entries.size())
                 ? entries[static_cast<std::size_t>(series)]
                 : -1;
    }
  return -1;
}

void ComparisonCharts::draw(const std::vector<std::unique_ptr<ComparedRun>>& runs,
                            const std::vector<ComparedGroup>* groups, const Options& options) {
  const QString label = options.align == Align::Step    ? trCharts("step")
                        : options.align == Align::Epoch ? trCharts("epoch")
                                                        : trCharts("time (s)");
  bool anySingle = runs.empty(), anyMulti = false;
  for (const auto& run : runs) {
    const bool multi = run->record.multiLabel() || (run->meta && run->meta->multiLabel);
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
  entryCount_ = static_cast<int>(groups ? groups->size() : runs.size());
  for (auto& cache : curves_) cache.resize(runs.size());  // a run no longer compared: its curves
  for (std::size_t ci = 0; ci < allCharts_.size(); ++ci) {
    MetricChart* c = allCharts_[ci];
    const ChartSpec& spec = chartSpecs()[ci];
    c->removeAllSeries();
    entryOfSeries_[ci].clear();
    c->setXLabel(label);
    if (c->isHidden()) continue;
    if (groups)
      drawGroups(c, ci, runs, *groups, options);
    else
      drawRuns(c, ci, runs, options);
    if (spec.log2) {  // the loss scale: say when no run scaled its loss (bf16, FP32)
      bool any = false, scaled = false;
      for (int i = 0; i < c->seriesCount(); ++i)
        for (auto it = c->seriesGraph(i)->data()->constBegin();
             it != c->seriesGraph(i)->data()->constEnd(); ++it)
          any = true, scaled = scaled || it->value != 1.0;
      c->setNote(any && !scaled ? trCharts("No run scaled its loss (1 at every step):\nbfloat16 "
                                           "and FP32 need no loss scaling.")
                                : QString());
    }
    c->fitIfFollowing();
    c->replot(QCustomPlot::rpQueuedReplot);
  }
}

void ComparisonCharts::drawRuns(MetricChart* c, std::size_t ci,
                                const std::vector<std::unique_ptr<ComparedRun>>& runs,
                                const Options& o) {
  const ChartSpec& spec = chartSpecs()[ci];
  const double interval =
      o.timeWeighted && spec.smooth ? smoothingInterval(runs, spec, o.align) : 0;
  const bool val = spec.kind == std::string("val");
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const ComparedRun& run = *runs[r];
    const int idx = c->addSeries(run.name, run.color,
                                 val ? MetricChart::Style::Points : MetricChart::Style::Line);
    entryOfSeries_[ci].push_back(static_cast<int>(r));
    if (o.hidden.contains(run.name)) c->setSeriesVisible(idx, false);
    const Curve& curve = curveFor(ci, r, run, o, interval);
    c->appendPoints(idx, curve.x, curve.y);
  }
}

void ComparisonCharts::drawGroups(MetricChart* c, std::size_t ci,
                                  const std::vector<std::unique_ptr<ComparedRun>>& runs,
                                  const std::vector<ComparedGroup>& groups, const Options& o) {
  const ChartSpec& spec = chartSpecs()[ci];
  const double interval =
      o.timeWeighted && spec.smooth ? smoothingInterval(runs, spec, o.align) : 0;
  const bool val = spec.kind == std::string("val");
  std::vector<int>& entries = entryOfSeries_[ci];
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const ComparedGroup& g = groups[gi];
    const bool visible = !o.hidden.contains(g.label);
    std::vector<const Curve*> curves;
    curves.reserve(g.members.size());
    std::vector<metrics::CurveView> views;
    for (std::size_t m : g.members) {
      curves.push_back(&curveFor(ci, m, *runs[m], o, interval));
      const Curve& cv = *curves.back();
      views.push_back({cv.x.constData(), cv.y.constData(), static_cast<std::size_t>(cv.x.size())});
    }
    metrics::BandOptions bandOptions;
    bandOptions.maxPoints =
        500;  // about a point a pixel: a band is a filled polygon, drawn per replot
    const metrics::GroupBand band = metrics::computeGroupBand(views, bandOptions);
    const auto add = [&](const QString& name, MetricChart::Style style, MetricChart::Role role,
                         const QVector<double>& x, const QVector<double>& y) {
      const int idx = c->addSeries(name, g.color, style);
      entries.push_back(static_cast<int>(gi));
      c->setSeriesRole(idx, role);
      c->appendPoints(idx, x, y);
      if (!visible) c->setSeriesVisible(idx, false);
      return idx;
    };
    if (g.members.size() > 1 && !band.x.empty()) {  // a band says nothing about one run
      QVector<double> lower, upper;
      for (std::size_t i = 0; i < band.x.size(); ++i) {
        lower.push_back(o.band == Band::Std ? band.mean[i] - band.std[i] : band.min[i]);
        upper.push_back(o.band == Band::Std ? band.mean[i] + band.std[i] : band.max[i]);
      }
      const QVector<double> x = toQVector(band.x);
      const int lo = add(g.label + trCharts(" (band low)"), MetricChart::Style::Faint,
                         MetricChart::Role::Band, x, lower);
      const int hi = add(g.label + trCharts(" (band high)"), MetricChart::Style::Faint,
                         MetricChart::Role::Band, x, upper);
      c->fillBetween(lo, hi, g.color);
    }
    if (o.showMembers)
      for (std::size_t k = 0; k < g.members.size(); ++k)
        add(runs[g.members[k]]->name, MetricChart::Style::Faint, MetricChart::Role::Member,
            curves[k]->x, curves[k]->y);
    add(g.label, val ? MetricChart::Style::Points : MetricChart::Style::Line,
        MetricChart::Role::Curve, toQVector(band.x), toQVector(band.mean));
  }
}

void ComparisonCharts::forgetCurves() {
  for (auto& cache : curves_) cache.clear();
}

void ComparisonCharts::setEntryVisible(int entry, bool on) {
  for (std::size_t ci = 0; ci < allCharts_.size(); ++ci) {
    MetricChart* c = allCharts_[ci];
    const auto& entries = entryOfSeries_[ci];
    for (std::size_t s = 0; s < entries.size(); ++s)
      if (entries[s] == entry) c->setSeriesVisible(static_cast<int>(s), on);
    c->fitIfFollowing();
    c->replot(QCustomPlot::rpQueuedReplot);
  }
}

void ComparisonCharts::emphasize(int entry) {
  for (std::size_t ci = 0; ci < allCharts_.size(); ++ci) {
    std::vector<int> series;
    const auto& entries = entryOfSeries_[ci];
    for (std::size_t s = 0; s < entries.size(); ++s)
      if (entries[s] == entry &&
          allCharts_[ci]->seriesRole(static_cast<int>(s)) != MetricChart::Role::Band)
        series.push_back(static_cast<int>(s));
    if (entry >= 0 && series.empty()) series.push_back(-1);  // others faint all the same
    allCharts_[ci]->setEmphasis(entry < 0 ? std::vector<int>{} : series);
  }
}

void ComparisonCharts::setInPlotLegends(bool on) {
  for (MetricChart* c : allCharts_) {
    c->setInPlotLegend(on);
    c->replot(QCustomPlot::rpQueuedReplot);
  }
}

}  // namespace amp::widgets
