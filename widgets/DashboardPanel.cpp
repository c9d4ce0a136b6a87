#include "DashboardPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "MetricChart.h"
#include "runlog/RunDirectory.h"
#include "util/AtomicFile.h"

namespace amp::widgets {
namespace {
// Accuracy: 100 - an error in percent; Percent: a fraction (mAP) x 100.
enum class Transform { Raw, Ema, Accuracy, AccuracyEma, Percent, MiB };
constexpr double kMiB = 1024.0 * 1024.0;
// The charts' ids: what chart() finds them by and what exported files are called, the same in
// every language (their titles are translated).
constexpr char kLoss[] = "loss";
constexpr char kAccuracy[] = "accuracy";
constexpr char kMemory[] = "memory";
constexpr char kLossScale[] = "loss_scale";
constexpr char kLearningRate[] = "learning_rate";
constexpr char kGradientNorm[] = "gradient_norm";
constexpr char kThroughput[] = "throughput";
constexpr char kIterationTime[] = "iteration_time";
}  // namespace

struct DashboardPanel::Binding {
  MetricChart* chart;
  int series;
  std::string kind, metric;
  Transform transform;
  std::string onlyWhere;  ///< markers: only points where this train metric is > 0.5
  std::size_t done = 0;
  SmoothedValue smooth{0.9};
};

DashboardPanel::DashboardPanel(QWidget* parent)
    : QWidget(parent),
      title_(new QLabel),
      state_(new QLabel),
      xCombo_(new QComboBox),
      logCheck_(new QCheckBox(tr("Log Y"))),
      followCheck_(new QCheckBox(tr("Follow"))),
      smoothSlider_(new QSlider(Qt::Horizontal)),
      smoothLabel_(new QLabel),
      messages_(new QListWidget),
      followTimer_(new QTimer(this)) {
  QFont big = title_->font();
  big.setPointSizeF(big.pointSizeF() * 1.15);
  big.setBold(true);
  title_->setFont(big);
  title_->setText(tr("No run yet"));
  state_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  state_->setWordWrap(true);
  xCombo_->addItems({tr("Step"), tr("Epoch"), tr("Time")});
  xCombo_->setToolTip(tr("What the charts' X axis counts"));
  logCheck_->setToolTip(tr("Logarithmic Y axes (the loss scale is always on a log2 axis)"));
  followCheck_->setChecked(true);
  followCheck_->setToolTip(
      tr("Keep every chart fitted to all the data as it arrives.\n"
         "Zooming or panning a chart turns it off; double-click a chart to turn it on again."));
  smoothSlider_->setRange(0, 99);
  smoothSlider_->setValue(90);
  smoothSlider_->setMaximumWidth(160);
  smoothSlider_->setToolTip(
      tr("Smoothing of the strong lines: exponential moving average of the raw values (faint), "
         "bias-corrected as in TensorBoard"));
  smoothLabel_->setMinimumWidth(QFontMetrics(font()).horizontalAdvance("0.99 "));

  auto* top = new QHBoxLayout;
  top->addWidget(title_);
  top->addSpacing(12);
  top->addWidget(state_, 1);
  top->addWidget(new QLabel(tr("X:")));
  top->addWidget(xCombo_);
  top->addSpacing(8);
  top->addWidget(new QLabel(tr("Smoothing:")));
  top->addWidget(smoothSlider_);
  top->addWidget(smoothLabel_);
  top->addWidget(logCheck_);
  top->addWidget(followCheck_);

  buildCharts();
  auto* grid = new QGridLayout;
  grid->setSpacing(4);
  for (int i = 0; i < static_cast<int>(charts_.size()); ++i)
    grid->addWidget(charts_[static_cast<size_t>(i)], i / 3, i % 3);
  auto* messageBox = new QWidget;
  auto* messageLayout = new QVBoxLayout(messageBox);
  messageLayout->setContentsMargins(0, 0, 0, 0);
  auto* messageTitle = new QLabel(tr("<b>Messages</b>"));
  messageLayout->addWidget(messageTitle);
  messageLayout->addWidget(messages_);
  messages_->setWordWrap(true);
  messages_->setAlternatingRowColors(true);
  grid->addWidget(messageBox, 2, 2);
  for (int r = 0; r < 3; ++r) grid->setRowStretch(r, 1);
  for (int c = 0; c < 3; ++c) grid->setColumnStretch(c, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addLayout(grid, 1);

  connect(xCombo_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this](int i) { setXAxis(static_cast<XAxis>(i)); });
  connect(logCheck_, &QCheckBox::toggled, this, &DashboardPanel::setLogY);
  connect(smoothSlider_, &QSlider::valueChanged, this, [this](int v) { setSmoothing(v / 100.0); });
  connect(followCheck_, &QCheckBox::toggled, this, [this](bool on) {
    for (MetricChart* c : charts_) c->setFollowing(on);
    for (MetricChart* c : charts_) c->replot();
    emit followingChanged(on);
  });
  linkCharts(charts_, this, [this] {
    QSignalBlocker block(followCheck_);
    followCheck_->setChecked(false);
  });
  for (MetricChart* c : charts_)
    connect(c, &MetricChart::followingChanged, this, [this](bool on) {
      if (on && !followCheck_->isChecked()) {  // double-click: all follow again
        QSignalBlocker block(followCheck_);
        followCheck_->setChecked(true);
      }
    });
  followTimer_->setInterval(40);
  connect(followTimer_, &QTimer::timeout, this, &DashboardPanel::pollFollowed);
  setSmoothing(0.9);
}

DashboardPanel::~DashboardPanel() = default;

void DashboardPanel::buildCharts() {
  auto chart = [this](const char* id, const QString& title, const QString& unit) {
    auto* c = new MetricChart(QString::fromLatin1(id), title, unit);
    charts_.push_back(c);
    return c;
  };
  auto bind = [this](MetricChart* c, const QString& name, int color, MetricChart::Style style,
                     const char* kind, const char* metric, Transform t, const char* onlyWhere = "",
                     QCPScatterStyle::ScatterShape shape = QCPScatterStyle::ssCircle) {
    const int s = c->addSeries(name, seriesColor(color), style, shape);
    bindings_.push_back(std::make_unique<Binding>(Binding{c, s, kind, metric, t, onlyWhere}));
  };
  using S = MetricChart::Style;
  MetricChart* loss = chart(kLoss, tr("Loss"), tr("cross entropy"));
  bind(loss, tr("train"), 0, S::Faint, "train", "loss", Transform::Raw);
  bind(loss, tr("train (smoothed)"), 0, S::Line, "train", "loss", Transform::Ema);
  bind(loss, tr("val"), 1, S::Points, "val", "loss", Transform::Raw);
  decodeFailureSeries_ = loss->addSeries(tr("decode failure"), seriesColor(3), S::Markers,
                                         QCPScatterStyle::ssCross);  // filled from events

  MetricChart* acc = chart(kAccuracy, tr("Accuracy"), tr("%"));
  acc->setLegendCorner(Qt::AlignBottom | Qt::AlignRight);
  bind(acc, tr("train top-1 (smoothed)"), 0, S::Line, "train", "top1_err", Transform::AccuracyEma);
  bind(acc, tr("train top-5 (smoothed)"), 9, S::Line, "train", "top5_err", Transform::AccuracyEma);
  bind(acc, tr("val top-1"), 1, S::Points, "val", "top1_err", Transform::Accuracy);
  bind(acc, tr("val top-5"), 2, S::Points, "val", "top5_err", Transform::Accuracy, "",
       QCPScatterStyle::ssSquare);
  // TEST.ENABLE: the multi-view test after training, one point at the last epoch.
  bind(acc, tr("test top-1 (multi-view)"), 4, S::Points, "test", "top1_err", Transform::Accuracy,
       "", QCPScatterStyle::ssStar);
  // A multi-label run (Charades) has mean average precision instead of top-1 (the chart's title
  // follows, showMultiLabel); PySlowFast computes it on validation and test only.
  bind(acc, tr("val mAP"), 1, S::Points, "val", "map", Transform::Percent);
  bind(acc, tr("test mAP (multi-view)"), 4, S::Points, "test", "map", Transform::Percent, "",
       QCPScatterStyle::ssStar);

  MetricChart* mem = chart(kMemory, tr("Memory"), tr("MiB"));
  bind(mem, tr("allocated"), 0, S::Line, "train", "mem_allocated_bytes", Transform::MiB);
  bind(mem, tr("reserved"), 1, S::Line, "train", "mem_reserved_bytes", Transform::MiB);
  bind(mem, tr("peak allocated"), 3, S::Line, "train", "mem_peak_bytes", Transform::MiB);
  bind(mem, tr("process RSS"), 0, S::Faint, "train", "mem_rss_bytes", Transform::MiB);
  bind(mem, tr("peak RSS"), 3, S::Line, "train", "mem_peak_rss_bytes", Transform::MiB);

  MetricChart* scale = chart(kLossScale, tr("Loss scale"), tr("factor (log2)"));
  bind(scale, tr("loss scale"), 4, S::Line, "train", "loss_scale", Transform::Raw);
  bind(scale, tr("skipped step"), 3, S::Markers, "train", "loss_scale", Transform::Raw, "skipped",
       QCPScatterStyle::ssCross);
  backoffSeries_ = scale->addSeries(tr("backoff"), seriesColor(1), S::Markers,
                                    QCPScatterStyle::ssTriangleInverted);  // from events
  scale->setYScale(MetricChart::YScale::Log2);

  MetricChart* lr = chart(kLearningRate, tr("Learning rate"), QString());
  bind(lr, tr("lr"), 2, S::Line, "train", "lr", Transform::Raw);

  MetricChart* grad = chart(kGradientNorm, tr("Gradient norm"), tr("L2, before clipping"));
  bind(grad, tr("grad norm"), 5, S::Faint, "train", "grad_norm", Transform::Raw);
  bind(grad, tr("smoothed"), 5, S::Line, "train", "grad_norm", Transform::Ema);

  MetricChart* speed = chart(kThroughput, tr("Throughput"), tr("clips/s"));
  bind(speed, tr("clips/s"), 2, S::Faint, "train", "clips_per_s", Transform::Raw);
  bind(speed, tr("smoothed"), 2, S::Line, "train", "clips_per_s", Transform::Ema);

  MetricChart* time = chart(kIterationTime, tr("Iteration time"), tr("s"));
  bind(time, tr("iteration"), 0, S::Faint, "train", "iter_time_s", Transform::Raw);
  bind(time, tr("iteration (smoothed)"), 0, S::Line, "train", "iter_time_s", Transform::Ema);
  bind(time, tr("data wait (smoothed)"), 3, S::Line, "train", "data_wait_s", Transform::Ema);
  for (MetricChart* c : charts_) c->setXLabel(tr("step"));
  // The tracker writes these after its values; the other charts' axis labels are not units.
  for (MetricChart* c : {acc, mem, speed, time}) c->setValueUnit(c->yAxis->label());
}

MetricChart* DashboardPanel::chart(const QString& id) const {
  for (MetricChart* c : charts_)
    if (c->id() == id) return c;
  return nullptr;
}

void DashboardPanel::beginRun(const QString& title) {
  followTimer_->stop();
  reader_.reset();
  followedDir_.clear();
  record_.clear();
  multiLabelSaid_ = false;
  generation_ = record_.generation();
  title_->setText(title);
  setRunState(tr("Starting…"));
  messages_->clear();
  repeated_.clear();
  rebuild();
}

void DashboardPanel::setRunState(const QString& state, const QString& error) {
  QString color = palette().color(QPalette::Text).name();
  if (state.startsWith(tr("Failed")))
    color = "#d62728";
  else if (state.startsWith(tr("Finished")))
    color = "#2ca02c";
  else if (state.startsWith(tr("Stopped")) || state.startsWith(tr("Paused")))
    color = "#ff7f0e";
  state_->setText(QStringLiteral("<span style='color:%1'><b>%2</b></span>%3")
                      .arg(color, state.toHtmlEscaped(),
                           error.isEmpty() ? QString() : " — " + error.toHtmlEscaped()));
  state_->setToolTip(error);
}

QString DashboardPanel::stateText() const {
  return state_->text();
}

void DashboardPanel::appendEvents(const std::vector<runlog::MetricEvent>& events) {
  if (events.empty()) return;
  record_.addAll(events);
  if (record_.generation() != generation_) {
    generation_ = record_.generation();
    rebuild();
    return;
  }
  updateCharts();
}

double DashboardPanel::xOf(const runlog::MetricEvent& e) const {
  switch (xAxis_) {
    case XAxis::Epoch:
      return e.epoch;
    case XAxis::Time:
      return e.time_s;
    default:
      return static_cast<double>(e.step);
  }
}

void DashboardPanel::rebuild() {
  for (MetricChart* c : charts_) c->clearPoints();
  for (auto& b : bindings_) b->done = 0, b->smooth = SmoothedValue(smoothing_);
  notableDone_ = 0;
  scaleChecked_ = 0;
  scaleVaries_ = false;
  messages_->clear();
  repeated_.clear();
  const QString label = xAxis_ == XAxis::Step    ? tr("step")
                        : xAxis_ == XAxis::Epoch ? tr("epoch")
                                                 : tr("time (s)");
  for (MetricChart* c : charts_) c->setXLabel(label);
  updateCharts();
}

void DashboardPanel::updateCharts() {
  for (auto& b : bindings_) {
    const runlog::Series* s = record_.series(b->kind, b->metric);
    if (!s || s->size() <= b->done) continue;
    const std::vector<double>& xs = xAxis_ == XAxis::Step    ? s->step
                                    : xAxis_ == XAxis::Epoch ? s->epoch
                                                             : s->time;
    const runlog::Series* filter =
        b->onlyWhere.empty() ? nullptr : record_.series(b->kind, b->onlyWhere);
    QVector<double> x, y;
    x.reserve(static_cast<int>(s->size() - b->done));
    y.reserve(static_cast<int>(s->size() - b->done));
    for (std::size_t i = b->done; i < s->size(); ++i) {
      double v = s->value[i];
      if (!b->onlyWhere.empty() && !(filter && i < filter->size() && filter->value[i] > 0.5))
        continue;
      if (b->transform == Transform::Accuracy || b->transform == Transform::AccuracyEma)
        v = 100.0 - v;
      if (b->transform == Transform::Percent) v *= 100.0;
      if (b->transform == Transform::MiB) v /= kMiB;
      if (b->transform == Transform::Ema || b->transform == Transform::AccuracyEma) {
        if (!std::isfinite(v)) continue;  // one NaN step must not poison the average
        v = b->smooth.add(v);
      }
      x.push_back(xs[i]);
      y.push_back(v);
    }
    b->done = s->size();
    b->chart->appendPoints(b->series, x, y);
  }
  showMultiLabel(multiLabelSaid_ || record_.multiLabel());
  const auto& notable = record_.notableEvents();
  for (; notableDone_ < notable.size(); ++notableDone_) addNotable(notable[notableDone_]);
  if (const runlog::Series* s = record_.series("train", "loss_scale")) {
    for (; scaleChecked_ < s->size(); ++scaleChecked_)
      scaleVaries_ = scaleVaries_ || s->value[scaleChecked_] != 1.0;
    // A flat line at 1 would look like a scaler stuck at 1; say that none runs.
    chart(kLossScale)
        ->setNote(s->size() && !scaleVaries_ ? tr("No loss scaling in this run (1 at every step):\n"
                                                  "bfloat16 and FP32 have float32's exponent\n"
                                                  "range, small gradients do not underflow.")
                                             : QString());
  }
  for (MetricChart* c : charts_) {
    for (int i = 0; i < c->seriesCount(); ++i) {
      QCPGraph* g = c->seriesGraph(i);
      const bool has = g->dataCount() > 0;
      if (has != (c->legend->itemWithPlottable(g) != nullptr))
        has ? g->addToLegend() : g->removeFromLegend();
    }
    c->fitIfFollowing();
    c->replot(QCustomPlot::rpQueuedReplot);
  }
}

void DashboardPanel::setMultiLabel(bool on) {
  multiLabelSaid_ = on;
  showMultiLabel(multiLabelSaid_ || record_.multiLabel());
}

void DashboardPanel::showMultiLabel(bool multiLabel) {
  if (multiLabel == showsMap_) return;
  showsMap_ = multiLabel;
  // The ids stay "accuracy" and "loss" (what tests, exports and callers find them by). A
  // multi-label head is trained with a binary cross entropy per class (MODEL.LOSS_FUNC bce_logit).
  if (showsMap_) {
    chart(kAccuracy)->setTitle(tr("Mean average precision"), tr("mAP (%)"));
    chart(kLoss)->setTitle(tr("Loss"), tr("binary cross entropy"));
  } else {
    chart(kAccuracy)->setTitle(tr("Accuracy"), tr("%"));
    chart(kLoss)->setTitle(tr("Loss"), tr("cross entropy"));
  }
}

QString DashboardPanel::eventTitle(const std::string& name) {
  static const std::map<std::string, const char*> titles = {
      {"checkpoint", QT_TR_NOOP("Checkpoint")},
      {"precise_bn", QT_TR_NOOP("Precise BN")},
      {"shape_change", QT_TR_NOOP("Multigrid")},
      {"scaler_backoff", QT_TR_NOOP("Loss scale backoff")},
      {"scaler_growth", QT_TR_NOOP("Loss scale growth")},
      {"nonfinite_gradients", QT_TR_NOOP("Non-finite gradients")},
      {"decode_failure", QT_TR_NOOP("Decode failure")},
      {"resumed", QT_TR_NOOP("Resumed")},
      {"initialised", QT_TR_NOOP("Initialised")},
      {"testing", QT_TR_NOOP("Test")},
      {"tensorboard", QT_TR_NOOP("TensorBoard")},
      {"error", QT_TR_NOOP("Error")},
  };
  if (const auto it = titles.find(name); it != titles.end()) return tr(it->second);
  QString words =
      QString::fromStdString(name).replace('_', ' ');  // an event this version does not know
  if (!words.isEmpty()) words[0] = words[0].toUpper();
  return words;
}

void DashboardPanel::addNotable(const runlog::MetricEvent& e) {
  QString icon = QStringLiteral("•");
  QColor color = palette().color(QPalette::Text);
  if (e.name == "error" || e.name == "diverged")
    icon = QStringLiteral("✖"), color = QColor("#d62728");
  else if (e.name == "decode_failure" || e.name == "scaler_backoff" ||
           e.name == "nonfinite_gradients" || e.name == "warning" || e.name == "tensorboard")
    icon = QStringLiteral("▲"), color = QColor("#e377c2").darker(110);
  QString message = QString::fromStdString(e.message);
  if (e.name == "checkpoint") message = QFileInfo(message).fileName();  // the folder is the run's
  // A message said before (precise BN every epoch) is said once, last where it last happened, with
  // how often and since when.
  const QString key = QString::fromStdString(e.name) + '\n' + message;
  Repeated& seen = repeated_[key];
  if (seen.item) delete messages_->takeItem(messages_->row(seen.item));
  if (seen.count++ == 0) seen.firstStep = e.step;
  const QString steps = seen.count == 1 ? tr("step %1").arg(e.step)
                                        : tr("steps %1–%2").arg(seen.firstStep).arg(e.step);
  const QString times = seen.count == 1 ? QString() : tr(" (%1 times)").arg(seen.count);
  const QString title = eventTitle(e.name);
  const bool titled = message.startsWith(
      title + QLatin1Char(' '),
      Qt::CaseInsensitive);  // "multigrid phase 2/5 ...": not "Multigrid: multigrid ..."
  auto* item =
      new QListWidgetItem(QStringLiteral("%1 %2 · %3%4")
                              .arg(icon, steps, titled ? message : title + ": " + message, times));
  item->setForeground(color);
  item->setToolTip(QString::fromStdString(e.message));
  messages_->addItem(item);
  messages_->scrollToBottom();
  seen.item = item;
  const QVector<double> x{xOf(e)};
  if (e.name == "scaler_backoff") {
    MetricChart* scale = chart(kLossScale);
    if (auto v = e.value("loss_scale")) {
      scale->appendPoints(backoffSeries_, x, {*v});
      if (!e.layer.empty())
        scale->setPointNote(backoffSeries_, x.front(),
                            tr("first inf/NaN in %1").arg(QString::fromStdString(e.layer)));
    }
  } else if (e.name == "shape_change") {  // multigrid: a line on every chart, the new (B, T, S)
                                          // written on the first
    const auto v = [&](const char* k) { return static_cast<long long>(e.value(k).value_or(0)); };
    const QString label =
        QStringLiteral("B %1 · T %2 · S %3").arg(v("batch_size")).arg(v("frames")).arg(v("crop"));
    for (MetricChart* c : charts_) c->addVerticalMarker(x.front(), label, c == charts_.front());
  } else if (e.name == "decode_failure") {
    MetricChart* loss = chart(kLoss);
    const runlog::Series* l = record_.series("train", "loss");
    loss->appendPoints(decodeFailureSeries_, x, {l && l->size() ? l->value.back() : 0.0});
  }
}

void DashboardPanel::setXAxis(XAxis axis) {
  if (axis == xAxis_) return;
  xAxis_ = axis;
  {
    QSignalBlocker block(xCombo_);
    xCombo_->setCurrentIndex(static_cast<int>(axis));
  }
  for (MetricChart* c : charts_) c->setFollowing(true);
  followCheck_->setChecked(true);
  rebuild();
}

void DashboardPanel::setSmoothing(double alpha) {
  smoothing_ = std::clamp(alpha, 0.0, 0.999);
  {
    QSignalBlocker block(smoothSlider_);
    smoothSlider_->setValue(static_cast<int>(std::lround(smoothing_ * 100)));
  }
  smoothLabel_->setText(QString::number(smoothing_, 'f', 2));
  rebuild();
}

void DashboardPanel::setLogY(bool on) {
  logY_ = on;
  {
    QSignalBlocker block(logCheck_);
    logCheck_->setChecked(on);
  }
  for (MetricChart* c : charts_) {
    if (c->id() == kLossScale || c->id() == kAccuracy) continue;
    c->setYScale(on ? MetricChart::YScale::Log10 : MetricChart::YScale::Linear);
    c->replot(QCustomPlot::rpQueuedReplot);
  }
}

bool DashboardPanel::openRunDirectory(const QString& dir, QString* error) {
  runlog::RunDirectory run(dir.toStdString());
  std::string why;
  auto meta = run.readMetadata(&why);
  if (!meta) {
    if (error) *error = QString::fromStdString(why);
    return false;
  }
  beginRun(
      QString::fromStdString(meta->name.empty() ? QDir(dir).dirName().toStdString() : meta->name));
  // A multi-label run says so before its first validation has a `map` to show.
  setMultiLabel(meta->multiLabel);
  followedDir_ = dir;
  reader_ = std::make_unique<runlog::MetricsReader>(run.metricsPath());
  appendEvents(reader_->poll());
  followTicks_ = 0;
  const bool live =
      meta->status == runlog::RunStatus::Running && !runlog::RunDirectory::isAbandoned(*meta);
  if (live) {
    setRunState(tr("Running (followed: %1)").arg(QString::fromStdString(meta->host)));
    followTimer_->start();
  } else {
    appendEvents(reader_->pollFinal());
    const QString status = QString::fromLatin1(runlog::toString(meta->status));
    setRunState(meta->status == runlog::RunStatus::Running
                    ? tr("Abandoned (its process is gone)")
                    : status.left(1).toUpper() + status.mid(1),
                QString::fromStdString(meta->error));
  }
  return true;
}

void DashboardPanel::pollFollowed() {
  if (!reader_) return;
  appendEvents(reader_->poll());
  if (++followTicks_ % 25) return;  // run.json once a second
  auto meta = runlog::RunDirectory(followedDir_.toStdString()).readMetadata();
  if (!meta) return;
  if (meta->status != runlog::RunStatus::Running || runlog::RunDirectory::isAbandoned(*meta)) {
    appendEvents(reader_->pollFinal());
    followTimer_->stop();
    const QString status = QString::fromLatin1(runlog::toString(meta->status));
    setRunState(meta->status == runlog::RunStatus::Running
                    ? tr("Abandoned (its process is gone)")
                    : status.left(1).toUpper() + status.mid(1),
                QString::fromStdString(meta->error));
  }
}

bool DashboardPanel::exportCsv(const QString& path, QString* error) const {
  std::string why;
  if (util::writeFileAtomically(path.toStdString(), record_.toCsv(), &why)) return true;
  if (error) *error = QString::fromStdString(why);
  return false;
}

QStringList DashboardPanel::exportCharts(const QString& folder, const QString& suffix) const {
  QStringList written;
  for (MetricChart* c : charts_) {
    // Named by id, not by the translated title: "loss-scale.png" in every language.
    QString name = c->id();
    name.replace('_', '-');
    const QString path = QDir(folder).filePath(name + "." + suffix);
    if (c->exportTo(path, 900, 500)) written << path;
  }
  return written;
}

}  // namespace amp::widgets
