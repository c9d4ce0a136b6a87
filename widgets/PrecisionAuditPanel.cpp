#include "PrecisionAuditPanel.h"

#include <QComboBox>
#include <QDir>
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
#include <QVBoxLayout>

#include <cmath>

#include <nlohmann/json.hpp>

#include "AuditCharts.h"
#include "AuditFormat.h"
#include "audit/AuditJson.h"

namespace amp::widgets {

using namespace auditfmt;

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
      charts_(new AuditCharts) {
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
  proxy_->setFilterKeyColumn(AuditTableModel::Layer);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(AuditTableModel::Index, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(AuditTableModel::Layer,
                                                   QHeaderView::Interactive);
  table_->horizontalHeader()->setSectionResizeMode(AuditTableModel::Why, QHeaderView::Interactive);
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
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(tableBox);
  split->addWidget(charts_);
  split->setSizes({560, 440});

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  // A bar clicked in a chart selects its layer in the table, whose selection marks the charts.
  connect(charts_, &AuditCharts::layerClicked, this, [this](int row) {
    const QModelIndex at = proxy_->mapFromSource(model_->index(row, AuditTableModel::Layer));
    if (at.isValid()) {
      table_->selectRow(at.row());
      table_->scrollTo(at);
    }
  });

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
    charts_->markLayer(rows.isEmpty() ? -1 : proxy_->mapToSource(rows.front()).row());
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
  model_->setLayers(report_.layers, report_.summary.report_scale);
  table_->resizeColumnsToContents();
  // The long text columns stay narrow: their tooltip has the whole name and reason.
  for (const auto& [column, widest] :
       {std::pair{AuditTableModel::Layer, 300}, std::pair{AuditTableModel::Why, 200}})
    table_->setColumnWidth(column, std::min(table_->columnWidth(column), widest));
  charts_->showReport(report_);
  showSummary();
}

void PrecisionAuditPanel::showSummary() {
  const auto& s = report_.summary;
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

QCustomPlot* PrecisionAuditPanel::headroomChart() const {
  return charts_->headroomChart();
}

QCustomPlot* PrecisionAuditPanel::underflowChart() const {
  return charts_->underflowChart();
}

int PrecisionAuditPanel::markedLayer() const {
  return charts_->markedLayer();
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
