#pragma once
// The runs under a folder (including ones a CLI process is still writing) and any opened from
// elsewhere, refreshed every 2 s: name, status, model, precision, best val top-1 (mAP for
// multi-label runs), peak memory, duration, start. Select several (Ctrl/Shift+click) to compare
// them.
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <map>

#include "runlog/RunMetadata.h"
#include "runlog/RunRecord.h"

class QLabel;
class QTableWidget;
class QSpacerItem;

namespace amp::widgets {

class RunListPanel : public QWidget {
  Q_OBJECT
 public:
  // What tells runs apart first (how well, how long), then what they were; a narrow dock scrolls to
  // the rest.
  enum Column {
    Name,
    Status,
    BestTop1,
    Time,
    Precision,
    Model,
    PeakMemory,
    Devices,
    Started,
    ColumnCount
  };

  explicit RunListPanel(QWidget* parent = nullptr);
  void setRunsFolder(const QString& folder);
  QString runsFolder() const { return folder_; }
  /// Lists a run directory outside the runs folder too (e.g. copied back from a GPU server).
  void addRunDirectory(const QString& dir);
  QStringList extraDirectories() const { return extra_; }
  QTableWidget* table() const { return table_; }
  /// Run directories of the selected rows, in table order.
  QStringList selectedRuns() const;
  void selectRuns(const QStringList& dirs);
  int runCount() const;
  /// Writes a run's metrics as CSV (one column per metric). False with `error`.
  /// The run's devices in a few words: "CPU", "GPU", "2 x CPU", "8 x GPU" (the full text is its
  /// tooltip).
  static QString devicesLabel(const runlog::RunMetadata& meta);
  /// The best validation figure as the run list shows it: "87.5 %" (top-1 accuracy) or, for a
  /// multi-label run, "mAP 41.3 %"; "" while the run has none.
  static QString bestText(const runlog::RunSummary& s, bool multiLabel);
  static bool exportRunCsv(const QString& runDir, const QString& path, QString* error);

 public slots:
  void refresh();

 signals:
  void runActivated(const QString& runDir);
  void selectionChanged(const QStringList& runDirs);
  void compareRequested(const QStringList& runDirs);
  /// The precision audit of the run's newest checkpoint (docs/precision-audit.md).
  void auditRequested(const QString& runDir);
  /// The Predict tab with the run's config and newest checkpoint.
  void predictRequested(const QString& runDir);
  /// The clip preview of the run's config (what it trained on).
  void clipsRequested(const QString& runDir);

 private:
  struct Cached {
    qint64 size = -1;
    qint64 mtime = 0;
    runlog::RunSummary summary;
  };
  const runlog::RunSummary& summaryOf(const QString& dir);
  QString folder_;
  QStringList extra_;
  QLabel* header_;
  QTableWidget* table_;
  QSpacerItem* stretch_ = nullptr;
  QTimer timer_;
  std::map<QString, Cached> cache_;
};

}  // namespace amp::widgets
