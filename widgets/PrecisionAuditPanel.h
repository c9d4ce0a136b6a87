#pragma once
// The studio's Precision tab: the precision audit (docs/precision-audit.md) of the config in the
// editor, or of a run's newest checkpoint, shown as a sortable table of layers, a chart of each
// layer's activation headroom to float16's largest value and one of the share of its gradient
// float16 flushes to zero or to subnormals at the loss scale, with the safe scale range and the
// recommendation. The audit runs as `ampstudio-cli audit precision --json` in a child process:
// its own model copy, RNG and thread pool, so a training run of this studio is not disturbed
// (beside one it runs at lower CPU priority on one thread), and Cancel ends it at once.
// The panel assembles and connects the parts, each a class of its own: the table's rows
// (AuditTableModel), the two charts (AuditCharts) and the call (CliJob).
#include <QWidget>

#include <functional>
#include <optional>

#include "AuditTableModel.h"
#include "CliJob.h"
#include "audit/PrecisionAudit.h"
#include "config/Config.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace amp::widgets {

class AuditCharts;

// The table's columns are AuditTableModel::Column.
class PrecisionAuditPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PrecisionAuditPanel(QWidget* parent = nullptr);
  ~PrecisionAuditPanel() override;  ///< ends an audit in progress

  /// Where the editor's config comes from; nullopt: it has errors.
  void setConfigSource(std::function<std::optional<config::Config>()> source) {
    source_ = std::move(source);
  }
  /// ampstudio-cli (default: LaunchedRun::findCli()).
  void setCliPath(const QString& path) { job_->setProgram(path); }
  /// A training run of this studio is active: audits started now run at nice 10 on one thread.
  void setTrainingActive(bool on) { job_->setTrainingActive(on); }

  /// Audits the config in the editor, from the checkpoint in the checkpoint field (if any).
  void auditConfig();
  /// Audits a run: its saved config.yaml from its newest checkpoint.
  void auditRun(const QString& runDir);
  /// Runs the last audit again (the editor's config as it is now, or the run's newest checkpoint).
  void auditAgain();
  void cancel();

  bool busy() const { return job_->busy(); }
  /// The last audit shown.
  const audit::PrecisionAuditReport& report() const { return report_; }
  /// The arguments of the last ampstudio-cli call, and its process id while it runs.
  const QStringList& lastArguments() const { return job_->lastArguments(); }
  qint64 processId() const { return job_->processId(); }
  /// Writes the last audit's JSON (as `--json` prints it). Returns "" or the reason.
  QString exportJson(const QString& path) const;

  QComboBox* precisionBox() const { return precision_; }
  QSpinBox* batchesBox() const { return batches_; }
  QComboBox* clipsBox() const { return clips_; }
  QLineEdit* checkpointEdit() const { return checkpoint_; }
  QLineEdit* filterEdit() const { return filter_; }
  QPushButton* exportButton() const { return exportButton_; }
  QTableView* table() const { return table_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QCustomPlot* headroomChart() const;
  QCustomPlot* underflowChart() const;
  QLabel* status() const { return status_; }
  QLabel* summary() const { return summary_; }
  /// The layer (execution index) marked in both charts, -1 for none.
  int markedLayer() const;

 signals:
  /// An audit ended: shown (ok), failed or cancelled.
  void finished(bool ok);

 private:
  struct Request {
    bool run = false;  ///< a run's config and newest checkpoint, not the editor's
    QString runDir;
  };
  void start(const Request& request);
  /// The config file and checkpoint `request` audits, and what_; "" after saying why not.
  QString configFor(const Request& request, QString* checkpoint);
  void onFinished(const CliJob::Result& result);
  void showReport(const audit::PrecisionAuditReport& report);
  void showSummary();
  void setStatus(const QString& text, bool error = false);
  void updateButtons();

  std::function<std::optional<config::Config>()> source_;
  CliJob* job_;
  QComboBox* precision_;
  QSpinBox* batches_;
  QComboBox* clips_;
  QLineEdit* checkpoint_;
  QPushButton* auditButton_;
  QPushButton* cancelButton_;
  QPushButton* exportButton_;
  QLabel* status_;
  QLabel* summary_;
  QLineEdit* filter_;
  AuditTableModel* model_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
  AuditCharts* charts_;

  QString what_;  ///< what the running audit audits, for the status line
  Request lastRequest_;
  bool haveRequest_ = false;
  audit::PrecisionAuditReport report_;
  QByteArray json_;
};

}  // namespace amp::widgets
