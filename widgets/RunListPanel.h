#pragma once
// The runs under a folder (including ones a CLI process is still writing) and any opened from
// elsewhere, refreshed every 2 s: name, status, model, precision, best val top-1 (mAP for
// multi-label runs), peak memory, duration, start, tags and note. Select several
// (Ctrl/Shift+click) to compare them. Built for a sweep's thousand runs: columns sort by value,
// a filter line narrows the list (runlog::RunFilter's syntax), and a refresh reads again only the
// run.json and metrics of runs that changed and touches only the cells that did.
//
//   widgets::RunListPanel runs;
//   runs.setRunsFolder("runs");
//   runs.setFilterText("status:finished SOLVER.BASE_LR<0.1 tag:sweep-3");
#include <QStringList>
#include <QTimer>
#include <QWidget>
#include <cstdint>
#include <map>
#include <optional>

#include "RunSummaryLoader.h"
#include "runlog/RunFilter.h"
#include "runlog/RunMetadata.h"
#include "runlog/RunRecord.h"

class QCheckBox;
class QLabel;
class QLineEdit;
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
    Tags,
    Note,
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
  /// Rows the filter lets through (runCount() when there is no filter).
  int shownRunCount() const;
  /// The filter line's text (runlog::RunFilter::syntaxHelp); applied at once.
  void setFilterText(const QString& text);
  QLineEdit* filterEdit() const { return filter_; }
  /// Lists <runs folder>/archive/ too (the "Show archived" box).
  void setShowArchived(bool show);
  /// The context menu's file actions, without their dialogs (RunFileActions); false with `error`.
  bool trashRun(const QString& dir, QString* error);
  bool archiveRun(const QString& dir, QString* error);
  bool restoreRun(const QString& dir, QString* error);
  /// Blocks until every summary asked for is read and shown (tests, the benchmark); the list
  /// itself shows a run's figures as its worker reads them.
  void waitForSummaries();
  /// Whether figures are still being read (or wait to be shown).
  bool summariesPending() const { return loader_.busy(); }
  /// Shows "Note and tags…" for the run and saves what the user types.
  void editNoteAndTags(const QString& dir);
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
  // What a run's files said when last read, so a refresh re-reads only what changed.
  struct Cached {
    qint64 size = -1;  // metrics log, as last read
    qint64 mtime = 0;
    qint64 askedSize = -1, askedMtime = 0;  // as last asked of the loader
    runlog::RunSummary summary;
    qint64 metaSize = -1, metaMtime = 0;  // run.json
    std::optional<runlog::RunMetadata> meta;
    std::string metaError;
    QString metricsPath;      ///< found again when run.json is read anew (a few stats each time)
    qint64 configMtime = -1;  // config.yaml (or a TensorBoard run's hparams.yaml) in filterRow
    runlog::RunFilterRow filterRow;
    // Bumped when run.json or the summary is read anew; a refresh fills a row only when it
    // moved past what the row shows (or the run is running: its time goes on).
    std::uint64_t version = 0, shownVersion = ~std::uint64_t(0);
  };
  const runlog::RunSummary& summaryOf(const QString& dir);
  Cached& metadataOf(const QString& dir);
  void fillRow(int row, const QString& dir, Cached& c, double now);
  /// Shows the summaries the loader has read since the last call.
  void collectSummaries();
  /// Names the best column for what its rows show: top-1, mAP (multi-label runs) or both.
  void nameBestColumn();
  void setCell(int row, int column, const QString& text, const QVariant& sortKey,
               const QString& toolTip);
  /// Hides the rows the filter rejects and says how many are shown.
  void applyFilter();
  void updateHeader();
  void showContextMenu(const QPoint& pos);
  QString folder_;
  QStringList extra_;
  QLabel* header_;
  QLineEdit* filter_;
  QCheckBox* showArchived_;
  QTableWidget* table_;
  QSpacerItem* stretch_ = nullptr;
  QTimer timer_;
  QTimer filterDelay_;
  QTimer summaryTimer_;  ///< collects the loader's results while it reads
  RunSummaryLoader loader_;
  std::map<QString, Cached> cache_;
  runlog::RunFilter runFilter_;
  int listed_ = 0;
};

}  // namespace amp::widgets
