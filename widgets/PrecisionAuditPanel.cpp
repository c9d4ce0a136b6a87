#include "PrecisionAuditPanel.h"

#include <QAbstractTableModel>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "MetricChart.h"
#include "audit/AuditJson.h"

namespace amp::widgets {

namespace {

const QColor kSafe("#4c78a8"), kTight("#f58518"), kOver("#d62728"), kSubnormal("#bab0ac");
constexpr double kTightLog2 = 3;         ///< under 8x headroom to 65504: shown as tight
constexpr double kUnderflowWarn = 0.01;  ///< the audit's "underflowing" threshold

QString number(double v) {
  if (std::isnan(v)) return QStringLiteral("–");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
  return formatMetric(v);
}
QString scale(double v) {
  if (std::isnan(v)) return QStringLiteral("–");
  if (std::isinf(v)) return QStringLiteral("∞");
  return QString::fromStdString(audit::scaleText(v));
}
QString percent(double fraction) {
  if (fraction == 0) return QStringLiteral("0");
  if (fraction < 1e-5) return QStringLiteral("< 0.001");
  return QString::number(100.0 * fraction, 'f', fraction < 0.001 ? 3 : 1);
}

}  // namespace

// One row per audited layer, in execution order; the sort role holds numbers (infinite headroom
// and overflow scales sort last ascending, a missing bf16 comparison first).
class AuditTableModel : public QAbstractTableModel {
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setLayers(std::vector<audit::LayerAudit> layers, double reportScale) {
    beginResetModel();
    layers_ = std::move(layers);
    reportScale_ = reportScale;
    endResetModel();
  }
  const audit::LayerAudit& layer(int row) const { return layers_[static_cast<std::size_t>(row)]; }
  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : static_cast<int>(layers_.size());
  }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() ? 0 : PrecisionAuditPanel::ColumnCount;
  }

  QVariant headerData(int section, Qt::Orientation o, int role) const override {
    if (o != Qt::Horizontal) return {};
    static const char* names[] = {
        "#",          "layer",     "dtype",      "headroom",  "zero in fp16", "overflow at",
        "bf16 error", "act |max|", "grad |max|", "subnormal", "op",           "why"};
    static const char* tips[] = {
        "Execution order in the forward pass",
        "Module path, or the operation after the last module before it",
        "The dtype of its output in the audited precision",
        "log2(65504 / act |max|): doublings left before float16 overflows (negative: it already "
        "does)",
        "Share of its nonzero gradient that float16 stores as 0 at the report loss scale (|g s| < "
        "2^-24), %",
        "The loss scale at which its gradient overflows float16 (65504 / grad |max|)",
        "||y_bf16 - y_fp32|| / ||y_fp32|| on the same batch and weights (earlier layers' errors "
        "included)",
        "Largest |activation| over the audited batches",
        "Largest |gradient| of its output and parameters, unscaled",
        "Share stored as a subnormal or 0 (|g s| < 2^-14), %",
        "The ATen operation",
        "Which autocast list decided that dtype"};
    if (role == Qt::DisplayRole) return QString::fromLatin1(names[section]);
    if (role == Qt::ToolTipRole) return QString::fromLatin1(tips[section]);
    return {};
  }

  QVariant data(const QModelIndex& index, int role) const override {
    if (!index.isValid()) return {};
    const auto& l = layer(index.row());
    using P = PrecisionAuditPanel;
    if (role == Qt::DisplayRole) {
      switch (index.column()) {
        case P::Index:
          return l.index;
        case P::Layer:
          return QString::fromStdString(l.name);
        case P::Op:
          return QString::fromStdString(l.op);
        case P::Dtype:
          return QString::fromStdString(l.dtype);
        case P::Why:
          return QString::fromStdString(l.why);
        case P::ActMax:
          return number(l.act_absmax);
        case P::Headroom:
          return number(l.headroom_log2);
        case P::Bf16Error:
          return std::isnan(l.bf16_rel_error) ? QStringLiteral("–")
                                              : percent(l.bf16_rel_error) + " %";
        case P::GradMax:
          return l.has_grad ? number(l.grad_absmax) : QStringLiteral("–");
        case P::Zero16:
          return l.has_grad ? percent(l.fp16_underflow_fraction) + " %" : QStringLiteral("–");
        case P::Subnormal16:
          return l.has_grad ? percent(l.fp16_subnormal_fraction) + " %" : QStringLiteral("–");
        case P::OverflowScale:
          return l.has_grad ? scale(l.overflow_scale) : QStringLiteral("–");
      }
    }
    if (role == Qt::UserRole) {  // the sort key
      switch (index.column()) {
        case P::Index:
          return l.index;
        case P::Layer:
          return QString::fromStdString(l.name);
        case P::Op:
          return QString::fromStdString(l.op);
        case P::Dtype:
          return QString::fromStdString(l.dtype);
        case P::Why:
          return QString::fromStdString(l.why);
        case P::ActMax:
          return l.act_absmax;
        case P::Headroom:
          return std::isinf(l.headroom_log2) ? 1e300 : l.headroom_log2;
        case P::Bf16Error:
          return std::isnan(l.bf16_rel_error) ? -1.0 : l.bf16_rel_error;
        case P::GradMax:
          return l.has_grad ? l.grad_absmax : -1.0;
        case P::Zero16:
          return l.has_grad ? l.fp16_underflow_fraction : -1.0;
        case P::Subnormal16:
          return l.has_grad ? l.fp16_subnormal_fraction : -1.0;
        case P::OverflowScale:
          return l.has_grad && std::isfinite(l.overflow_scale) ? l.overflow_scale : 1e300;
      }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= P::Headroom &&
        index.column() <= P::Subnormal16)
      return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole) {
      if (index.column() == P::Headroom && l.headroom_log2 < 0) return kOver;
      if (index.column() == P::Headroom && l.headroom_log2 < kTightLog2) return kTight.darker(120);
      if (index.column() == P::OverflowScale && l.has_grad && l.overflow_scale < reportScale_)
        return kOver;
      if (index.column() == P::Zero16 && l.has_grad && l.fp16_underflow_fraction > kUnderflowWarn)
        return kTight.darker(120);
      if (l.nonfinite_grad) return kOver;
    }
    if (role == Qt::ToolTipRole) {
      QString tip =
          QStringLiteral("<b>%1</b><br>%2 → %3 (%4)")
              .arg(QString::fromStdString(l.name).toHtmlEscaped(), QString::fromStdString(l.op),
                   QString::fromStdString(l.dtype), QString::fromStdString(l.why).toHtmlEscaped());
      if (!l.module.empty() && l.module != l.name)
        tip += QStringLiteral("<br>module %1").arg(QString::fromStdString(l.module));
      if (l.nonfinite_grad) tip += QObject::tr("<br><b>inf/NaN in its gradient</b>");
      if (l.has_grad)
        tip += QObject::tr("<br>%1 of %2 gradient elements nonzero")
                   .arg(l.grad_nonzero)
                   .arg(l.grad_elements);
      return tip;
    }
    return {};
  }

 private:
  std::vector<audit::LayerAudit> layers_;
  double reportScale_ = 65536;
};

namespace {

QCustomPlot* makePlot(const QString& title, const QString& yLabel) {
  auto* p = new QCustomPlot;
  p->plotLayout()->insertRow(0);
  p->plotLayout()->addElement(
      0, 0,
      new QCPTextElement(p, title, QFont(p->font().family(), p->font().pointSize(), QFont::Bold)));
  p->xAxis->setLabel(QObject::tr("layer (execution order)"));
  p->yAxis->setLabel(yLabel);
  p->setMinimumHeight(180);
  p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  p->axisRect()->setRangeDrag(Qt::Horizontal);
  p->axisRect()->setRangeZoom(Qt::Horizontal);
  p->legend->setFont(QFont(p->font().family(), p->font().pointSize() - 1));
  p->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  // Until an audit fills it: a sentence, not an empty legend over QCustomPlot's 0-5 axes.
  p->legend->setVisible(false);
  for (QCPAxis* axis : {p->xAxis, p->yAxis}) axis->setTickLabels(false);
  return p;
}

void sayEmpty(QCustomPlot* p) {
  auto* empty = new QCPItemText(p);
  empty->position->setType(QCPItemPosition::ptAxisRectRatio);
  empty->position->setCoords(0.5, 0.5);
  empty->setColor(p->palette().color(QPalette::PlaceholderText));
  empty->setText(QObject::tr("no audit yet"));
}

// An audit's bars are about to be drawn: axes with numbers, the legend naming the bars.
void showAxes(QCustomPlot* p) {
  p->legend->setVisible(true);
  for (QCPAxis* axis : {p->xAxis, p->yAxis}) axis->setTickLabels(true);
}

// Empties a chart and returns its hidden marker of the selected layer (a vertical dashed line).
QCPItemStraightLine* clearWithMarker(QCustomPlot* p) {
  p->clearPlottables();
  p->clearItems();
  auto* marker = new QCPItemStraightLine(p);
  marker->setPen(QPen(QColor("#555555"), 0, Qt::DashLine));
  marker->setVisible(false);
  return marker;
}

QCPBars* addBars(QCustomPlot* p, const QString& name, const QColor& color) {
  auto* b = new QCPBars(p->xAxis, p->yAxis);
  b->setName(name);
  b->setPen(Qt::NoPen);
  b->setBrush(color);
  b->setWidth(0.8);
  return b;
}

}  // namespace

PrecisionAuditPanel::PrecisionAuditPanel(QWidget* parent)
    : QWidget(parent),
      job_(new CliJob(this)),
      precision_(new QComboBox),
      batches_(new QSpinBox),
      clips_(new QComboBox),
      checkpoint_(new QLineEdit),
      auditButton_(new QPushButton(tr("Audit"))),
      cancelButton_(new QPushButton(tr("Cancel"))),
      exportButton_(new QPushButton(tr("Export JSON…"))),
      status_(new QLabel),
      summary_(new QLabel),
      filter_(new QLineEdit),
      model_(new AuditTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView),
      headroomPlot_(makePlot(tr("Activation headroom to float16's largest value (65504)"),
                             tr("doublings left (log2)"))),
      underflowPlot_(
          makePlot(tr("Gradient lost in float16 at the loss scale"), tr("% of nonzero gradient"))) {
  precision_->addItem(tr("mixed (this device's)"), "amp");
  precision_->addItem("bf16", "bf16");
  precision_->addItem("fp16", "fp16");
  precision_->addItem("fp32", "fp32");
  precision_->setToolTip(
      tr("What the audited batches train in. Mixed: float16 with a loss scaler on CUDA, bfloat16 "
         "on the CPU"));
  batches_->setRange(1, 64);
  batches_->setValue(4);
  batches_->setToolTip(tr("Training batches to audit"));
  clips_->addItem(tr("training clips"));
  clips_->addItem(tr("random clips"));
  clips_->setToolTip(tr("Random clips need no dataset (and say nothing about the data's scale)"));
  checkpoint_->setPlaceholderText(tr("fresh initialisation"));
  checkpoint_->setToolTip(
      tr("Weights (and a running scaler's loss scale) to start from; empty: the model as "
         "initialised"));
  checkpoint_->setClearButtonEnabled(true);
  auto* browse = new QPushButton(tr("Choose…"));
  cancelButton_->setEnabled(false);
  exportButton_->setEnabled(false);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Precision")));
  bar->addWidget(precision_);
  bar->addWidget(new QLabel(tr("Batches")));
  bar->addWidget(batches_);
  bar->addWidget(clips_);
  bar->addWidget(new QLabel(tr("Checkpoint")));
  bar->addWidget(checkpoint_, 1);
  bar->addWidget(browse);
  bar->addWidget(auditButton_);
  bar->addWidget(cancelButton_);
  bar->addWidget(exportButton_);

  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  setStatus(
      tr("Where mixed precision runs out, layer by layer: press Audit to train a few batches of "
         "the config in the editor "
         "with every layer observed, or audit a run from the Runs list (right click)."));
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->hide();

  proxy_->setSourceModel(model_);
  proxy_->setSortRole(Qt::UserRole);
  proxy_->setFilterKeyColumn(Layer);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(Index, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(Layer, QHeaderView::Interactive);
  table_->horizontalHeader()->setSectionResizeMode(Why, QHeaderView::Interactive);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  filter_->setPlaceholderText(tr("Filter layers (e.g. head, s5, softmax)"));
  filter_->setClearButtonEnabled(true);

  auto* tableBox = new QWidget;
  auto* tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  tableLayout->addWidget(filter_);
  tableLayout->addWidget(table_, 1);
  // The table gets the width (its columns are the audit); the two charts share the row below.
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(headroomPlot_);
  charts->addWidget(underflowPlot_);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(tableBox);
  split->addWidget(charts);
  split->setSizes({560, 440});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  for (QCustomPlot* p : {headroomPlot_, underflowPlot_}) {
    markers_.push_back(clearWithMarker(p));
    sayEmpty(p);
    // Hover: the layer under the cursor; click: select it in the table.
    connect(p, &QCustomPlot::mouseMove, this, [this, p](QMouseEvent* e) {
      const int i = static_cast<int>(std::lround(p->xAxis->pixelToCoord(e->position().x())));
      if (i < 0 || i >= static_cast<int>(report_.layers.size())) return QToolTip::hideText();
      const auto& l = report_.layers[static_cast<std::size_t>(i)];
      const QString text =
          p == headroomPlot_
              ? tr("%1: %2\nheadroom %3 doublings (|max| %4)")
                    .arg(l.index)
                    .arg(QString::fromStdString(l.name), number(l.headroom_log2),
                         number(l.act_absmax))
              : tr("%1: %2\n%3 % zero, %4 % subnormal in float16")
                    .arg(l.index)
                    .arg(QString::fromStdString(l.name), percent(l.fp16_underflow_fraction),
                         percent(l.fp16_subnormal_fraction));
      QToolTip::showText(e->globalPosition().toPoint(), text, p);
    });
    connect(p, &QCustomPlot::mousePress, this, [this, p](QMouseEvent* e) {
      const int i = static_cast<int>(std::lround(p->xAxis->pixelToCoord(e->position().x())));
      if (i < 0 || i >= model_->rowCount()) return;
      const QModelIndex at = proxy_->mapFromSource(model_->index(i, Layer));
      if (at.isValid()) {
        table_->selectRow(at.row());
        table_->scrollTo(at);
      }
    });
  }

  connect(auditButton_, &QPushButton::clicked, this, [this] {
    if (haveRequest_ && lastRequest_.run)
      auditAgain();
    else
      auditConfig();
  });
  connect(cancelButton_, &QPushButton::clicked, this, &PrecisionAuditPanel::cancel);
  connect(exportButton_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the audit as JSON"),
                                                      "precision-audit.json", tr("JSON (*.json)"));
    if (path.isEmpty()) return;
    if (const QString why = exportJson(path); !why.isEmpty()) setStatus(why, true);
  });
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Checkpoint to audit from"), QFileInfo(checkpoint_->text()).path(),
        tr("Checkpoints (*.pyth *.pt *.pth);;All files (*)"));
    if (!path.isEmpty()) checkpoint_->setText(path);
  });
  connect(checkpoint_, &QLineEdit::textEdited, this,
          [this] { haveRequest_ = false; });  // Audit: the editor's config again
  // A long path shows its end (the file) in the field; the tooltip has all of it.
  connect(checkpoint_, &QLineEdit::textChanged, this, [this](const QString& path) {
    const QString what =
        tr("Weights (and a running scaler's loss scale) to start from; empty: the model as "
           "initialised");
    checkpoint_->setToolTip(
        path.isEmpty() ? what
                       : QStringLiteral("%1\n\n%2").arg(QDir::toNativeSeparators(path), what));
  });
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const auto rows = table_->selectionModel()->selectedRows();
    markLayer(rows.isEmpty() ? -1 : proxy_->mapToSource(rows.front()).row());
  });
  connect(job_, &CliJob::progress, this, [this](const QString& text) { setStatus(text); });
  connect(job_, &CliJob::finished, this, &PrecisionAuditPanel::onFinished);
}

PrecisionAuditPanel::~PrecisionAuditPanel() {
  job_->disconnect(this);
}  // the job ends its call

void PrecisionAuditPanel::auditConfig() {
  start(Request{});
}

void PrecisionAuditPanel::auditRun(const QString& runDir) {
  Request r;
  r.run = true;
  r.runDir = runDir;
  start(r);
}

void PrecisionAuditPanel::auditAgain() {
  start(haveRequest_ ? lastRequest_ : Request{});
}

void PrecisionAuditPanel::cancel() {
  if (!busy()) return;
  job_->cancel();  // onFinished reports it
}

void PrecisionAuditPanel::start(const Request& request) {
  if (busy()) {
    setStatus(tr("An audit is running: wait for it or cancel it first."), true);
    return;
  }
  if (const QString why = job_->programMissing(tr("The audit")); !why.isEmpty()) {
    setStatus(why, true);
    return;
  }
  QString checkpoint;
  const QString cfgPath = configFor(request, &checkpoint);
  if (cfgPath.isEmpty()) return;
  lastRequest_ = request;
  haveRequest_ = true;
  QStringList args = {"audit",
                      "precision",
                      "--cfg",
                      cfgPath,
                      "--json",
                      "--batches",
                      QString::number(batches_->value()),
                      "--precision",
                      precision_->currentData().toString()};
  if (!checkpoint.isEmpty()) args << "--checkpoint" << checkpoint;
  if (clips_->currentIndex() == 1) args << "--synthetic";
  job_->start(args + job_->threadArgs(), tr("Auditing %1 …").arg(what_));
  updateButtons();
}

QString PrecisionAuditPanel::configFor(const Request& request, QString* checkpoint) {
  QString cfgPath, error;
  if (request.run) {
    // Its config.yaml, or a PySlowFast run's config from its newest checkpoint.
    cfgPath = job_->runConfig(request.runDir, checkpoint, &error);
    if (cfgPath.isEmpty()) {
      setStatus(error, true);
      return {};
    }
    checkpoint_->setText(*checkpoint);
    what_ = tr("run %1 (%2)")
                .arg(QFileInfo(request.runDir).fileName(),
                     checkpoint->isEmpty() ? tr("no checkpoint yet: fresh initialisation")
                                           : QFileInfo(*checkpoint).fileName());
    return cfgPath;
  }
  const auto cfg = source_ ? source_() : std::nullopt;
  if (!cfg) {
    setStatus(tr("The config has errors: fix them in the Config tab to audit it."), true);
    return {};
  }
  cfgPath = job_->writeConfig(*cfg, "config.yaml", &error);
  if (cfgPath.isEmpty()) {
    setStatus(error, true);
    return {};
  }
  *checkpoint = checkpoint_->text().trimmed();
  what_ = tr("the config in the editor%1")
              .arg(checkpoint->isEmpty() ? QString()
                                         : tr(" from %1").arg(QFileInfo(*checkpoint).fileName()));
  return cfgPath;
}

void PrecisionAuditPanel::onFinished(const CliJob::Result& result) {
  updateButtons();
  if (result.cancelled) {
    setStatus(tr("Audit of %1 cancelled.").arg(what_));
    emit finished(false);
    return;
  }
  if (!result.ok()) {
    setStatus(result.startError.isEmpty() ? result.failure()
                                          : tr("Cannot start %1").arg(result.failure()),
              true);
    emit finished(false);
    return;
  }
  audit::PrecisionAuditReport report;
  std::string error;
  const auto j = result.json();
  if (j.is_discarded() || !audit::auditReportFromJson(j, report, &error)) {
    setStatus(tr("ampstudio-cli audit precision printed no report I can read%1")
                  .arg(error.empty() ? QString() : ": " + QString::fromStdString(error)),
              true);
    emit finished(false);
    return;
  }
  json_ = result.out;
  updateButtons();  // Export JSON… now has something to write
  showReport(report);
  const auto& s = report.summary;
  setStatus(tr("Audited %1: %2 batches of %3 clips in %4 on %5, %6 s (the audit itself %7 s).")
                .arg(what_)
                .arg(s.batches)
                .arg(s.batch_size)
                .arg(QString::fromStdString(s.precision), QString::fromStdString(s.device))
                .arg(job_->elapsedMs() / 1000.0, 0, 'f', 1)
                .arg(report.audit_seconds, 0, 'f', 1));
  emit finished(true);
}

void PrecisionAuditPanel::showReport(const audit::PrecisionAuditReport& report) {
  report_ = report;
  const auto& s = report_.summary;
  model_->setLayers(report_.layers, s.report_scale);
  table_->resizeColumnsToContents();
  table_->setColumnWidth(
      Layer, std::min(table_->columnWidth(Layer), 300));  // the tooltip has the whole name
  table_->setColumnWidth(Why, std::min(table_->columnWidth(Why), 200));
  marked_ = -1;
  for (auto* m : markers_) m->setVisible(false);
  plotHeadroom();
  plotUnderflow();

  auto layer = [](const std::string& name) {
    return QStringLiteral("<i>%1</i>").arg(QString::fromStdString(name).toHtmlEscaped());
  };
  QStringList lines;
  // The recommendation's clauses one under the other (the report keeps them as one string).
  const QStringList advice =
      QString::fromStdString(s.recommendation).split(QStringLiteral("; "), Qt::SkipEmptyParts);
  if (advice.size() == 1)
    lines << tr("<b>Recommendation:</b> %1").arg(advice.front().toHtmlEscaped());
  else {
    lines << tr("<b>Recommendation:</b>");
    for (const QString& a : advice)
      lines << QStringLiteral("&nbsp;&nbsp;• %1").arg(a.toHtmlEscaped());
  }
  if (s.safe_range_exists)
    lines << tr("Safe loss scales: %1 to %2 (the largest gradient of %3 overflows float16 above; "
                "%4 needs at least the lower end "
                "to reach float16's normal range).")
                 .arg(scale(s.safe_scale_min), scale(s.safe_scale_max),
                      s.overflow_layer.empty() ? tr("no layer") : layer(s.overflow_layer),
                      s.underflow_layer.empty() ? tr("no layer") : layer(s.underflow_layer));
  else
    lines << QStringLiteral("<span style='color:%1'>").arg(kOver.name()) +
                 tr("No loss scale keeps every layer safe: %1 overflows float16 above %2 while %3 "
                    "needs at least %4.")
                     .arg(layer(s.overflow_layer), scale(s.safe_scale_max),
                          layer(s.underflow_layer), scale(s.safe_scale_min)) +
                 "</span>";
  lines << tr("At loss scale %1: %2 layers overflow, %3 lose over 1 % of their gradient. Smallest "
              "activation headroom: %4 "
              "doublings at %5.")
               .arg(scale(s.report_scale))
               .arg(s.layers_overflowing)
               .arg(s.layers_underflowing)
               .arg(number(s.min_headroom_log2),
                    s.min_headroom_layer.empty() ? tr("no layer") : layer(s.min_headroom_layer));
  if (!std::isnan(s.max_bf16_rel_error))
    lines << tr("bfloat16 against float32: largest error %1 % at %2.")
                 .arg(percent(s.max_bf16_rel_error), layer(s.max_bf16_error_layer));
  if (!s.nonfinite_layer.empty())
    lines << QStringLiteral("<span style='color:%1'><b>").arg(kOver.name()) +
                 tr("inf/NaN gradients, first (in backward order) in %1.")
                     .arg(layer(s.nonfinite_layer)) +
                 "</b></span>";
  if (report_.skipped_steps > 0)
    lines << tr("%1 of the audited steps were skipped by the loss scaler.")
                 .arg(report_.skipped_steps);
  for (const auto& n : report_.notes)
    lines << QStringLiteral("<span style='color:gray'>%1</span>")
                 .arg(QString::fromStdString(n).toHtmlEscaped());
  summary_->setText(lines.join("<br>"));
  summary_->show();
}

void PrecisionAuditPanel::plotHeadroom() {
  QCustomPlot* p = headroomPlot_;
  markers_[0] = clearWithMarker(p);
  showAxes(p);
  auto* safe = addBars(p, tr("≥ 8x headroom"), kSafe);
  auto* tight = addBars(p, tr("under 8x"), kTight);
  auto* over = addBars(p, tr("overflows float16"), kOver);
  double lo = 0, hi = 1;
  for (const auto& l : report_.layers) {
    if (!std::isfinite(l.headroom_log2)) continue;  // an all-zero output: nothing to overflow
    (l.headroom_log2 < 0            ? over
     : l.headroom_log2 < kTightLog2 ? tight
                                    : safe)
        ->addData(l.index, l.headroom_log2);
    lo = std::min(lo, l.headroom_log2);
    hi = std::max(hi, l.headroom_log2);
  }
  for (QCPBars* b : {safe, tight, over})
    if (b->dataCount() == 0) b->removeFromLegend();
  auto* limit = new QCPItemStraightLine(p);
  limit->setPen(QPen(kOver, 1.5, Qt::DashLine));
  limit->point1->setCoords(0, 0);
  limit->point2->setCoords(1, 0);
  auto* label = new QCPItemText(p);
  label->setText(tr("float16 max 65504"));
  label->setColor(kOver);
  label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);  // under the line, clear of the bars
  label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  label->position->setTypeY(QCPItemPosition::ptPlotCoords);
  label->position->setCoords(0.01, 0);
  p->xAxis->setRange(-1, std::max<double>(1, static_cast<double>(report_.layers.size())));
  p->yAxis->setRange(std::min(lo - 0.5, -0.12 * (hi - std::min(lo, 0.0))), hi * 1.08 + 0.5);
  p->replot();
}

void PrecisionAuditPanel::plotUnderflow() {
  QCustomPlot* p = underflowPlot_;
  markers_[1] = clearWithMarker(p);
  showAxes(p);
  auto* zero = addBars(p, tr("stored as 0 (|g·s| < 2⁻²⁴)"), kOver);
  auto* sub = addBars(p, tr("subnormal (|g·s| < 2⁻¹⁴)"), kSubnormal);
  sub->moveAbove(zero);
  double hi = 0;
  for (const auto& l : report_.layers) {
    if (!l.has_grad) continue;
    zero->addData(l.index, 100.0 * l.fp16_underflow_fraction);
    sub->addData(l.index,
                 100.0 * std::max(0.0, l.fp16_subnormal_fraction - l.fp16_underflow_fraction));
    hi = std::max(hi, 100.0 * l.fp16_subnormal_fraction);
  }
  if (auto* title = qobject_cast<QCPTextElement*>(p->plotLayout()->element(0, 0)))
    title->setText(
        tr("Gradient lost in float16 at loss scale %1").arg(scale(report_.summary.report_scale)));
  if (hi < 0.01 && !report_.layers.empty()) {  // an empty chart would look broken: say it is empty
    auto* none = new QCPItemText(p);
    none->setText(tr("Under 0.01 % of any layer's gradient is lost at this scale"));
    none->setColor(QColor("#7f7f7f"));
    none->position->setType(QCPItemPosition::ptAxisRectRatio);
    none->position->setCoords(0.5, 0.5);
  }
  p->xAxis->setRange(-1, std::max<double>(1, static_cast<double>(report_.layers.size())));
  p->yAxis->setRange(0, std::min(100.0, std::max(hi, 0.01) * 1.1));
  p->replot();
}

void PrecisionAuditPanel::markLayer(int row) {
  marked_ = row < 0 || row >= static_cast<int>(report_.layers.size())
                ? -1
                : report_.layers[static_cast<std::size_t>(row)].index;
  for (std::size_t i = 0; i < markers_.size(); ++i) {
    markers_[i]->setVisible(marked_ >= 0);
    markers_[i]->point1->setCoords(marked_, 0);
    markers_[i]->point2->setCoords(marked_, 1);
    (i == 0 ? headroomPlot_ : underflowPlot_)->replot(QCustomPlot::rpQueuedReplot);
  }
}

QString PrecisionAuditPanel::exportJson(const QString& path) const {
  if (json_.isEmpty()) return tr("No audit to export yet.");
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(json_) != json_.size() || !f.commit())
    return tr("%1: %2").arg(path, f.errorString());
  return {};
}

void PrecisionAuditPanel::setStatus(const QString& text, bool error) {
  status_->setText(text);
  status_->setStyleSheet(error ? QStringLiteral("color: %1").arg(kOver.name()) : QString());
}

void PrecisionAuditPanel::updateButtons() {
  const bool running = busy();
  auditButton_->setEnabled(!running);
  cancelButton_->setEnabled(running);
  exportButton_->setEnabled(!running && !json_.isEmpty());
}

}  // namespace amp::widgets
